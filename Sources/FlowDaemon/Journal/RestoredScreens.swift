import FlowKit
import Foundation

/// What a restore's replay placed: the screen commands the flows made while the journal was
/// replayed, folded into every live screen's current `Place` (its latest state and placement), in the
/// order the screens were first placed. After the replay the daemon gives these to the delivery as
/// new placements, which holds each for a host of its kind or spawns one — as for any `Place`.
struct RestoredScreens {
    private var places: [ScreenID: PlaceCommand] = [:]
    /// Screens in the order placed; entries of dismissed screens are skipped and compacted away.
    private var order: [ScreenID] = []
    /// How the root flow ended while the journal replayed (acted on once the replay is over).
    private(set) var rootOutcome: RootOutcome?

    /// The root flow reported during the replay: its end is kept; its outputs were logged when they
    /// first happened.
    mutating func rootReported(_ outcome: RootOutcome) {
        if case .output = outcome { return }
        rootOutcome = outcome
    }

    /// A host saved `data` for `screen` (a journaled `SaveState`).
    mutating func save(_ data: Data, for screen: ScreenID) {
        places[screen]?.savedState = data
    }

    mutating func apply(_ command: ScreenCommand) {
        switch command {
        case .place(let place):
            places[place.screen] = place
            order.append(place.screen)
        case .update(let screen, let state, let owner):
            places[screen]?.state = state
            places[screen]?.owner = owner
        case .placementChanged(let screen, let placement, _, let owner):
            places[screen]?.placement = placement
            places[screen]?.owner = owner
        case .dismiss(let screen, _, _):
            places[screen] = nil
            if order.count > 2 * places.count + 64 { order.removeAll { places[$0] == nil } }
        }
    }

    /// The current placements of the screens `isPlaced` says the replayed model still holds, first
    /// placed first, without animation (the user saw them appear before the restart). A screen lost
    /// with its host is removed without a `Dismiss` of its own, so the commands alone would keep it.
    func live(isPlaced: (ScreenID) -> Bool) -> [PlaceCommand] {
        order.compactMap { id in
            guard var place = places[id], isPlaced(id) else { return nil }
            place.animated = false
            return place
        }
    }
}
