import FlowKit
import Foundation

/// A screen transport that sends nothing: every dismissal is acknowledged at once.
/// `tree-cost` measures FlowKit's own work per operation with it.
final class NoOpTransport: ScreenTransport {
    /// Commands the runtime issued, by kind (a check that operations did happen).
    private(set) var places = 0, updates = 0, placementChanges = 0, dismissals = 0

    func place(_ screen: ScreenID, kind: String, state: Data, placement: Placement) { places += 1 }

    func update(_ screen: ScreenID, state: Data) { updates += 1 }

    func placementChanged(_ screen: ScreenID, placement: Placement, change: PlacementChange) { placementChanges += 1 }

    func dismiss(_ screen: ScreenID, animated: Bool, completion: @escaping (DismissOutcome) -> Void) {
        dismissals += 1
        completion(.acknowledged)
    }
}
