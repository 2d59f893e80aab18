import FlowKit
import FlowWire
import Foundation

/// The fake screens of `flowd replay`: every screen is hosted and
/// acknowledges everything. Serials, the wire form of placements and the
/// commands dropped while a screen is being dismissed follow
/// `ScreenDirectory`, so that what it records compares with a live
/// daemon's events. Dismissals complete when `acknowledgeAll()` runs (after
/// each replayed input), as if the host acked before its next input.
final class ReplayTransport: ScreenTransport {
    /// Every command sent, in order.
    var commands: [ReplayedCommand] = []
    /// Set once the runtime exists (the runtime retains us).
    unowned(unsafe) var runtime: FlowRuntime!
    private var serials: [ScreenID: UInt64] = [:]
    private var kinds: [ScreenID: String] = [:]
    private var dismissing: Set<ScreenID> = []
    private var acknowledgements: [() -> Void] = []

    func place(_ screen: ScreenID, kind: String, state: Data, placement: Placement) {
        serials[screen] = 1
        kinds[screen] = kind
        commands.append(ReplayedCommand(kind: .place, screen: screen.rawValue, screenKind: kind, serial: 1,
                                        placement: wire(placement, screen), state: state))
    }

    func update(_ screen: ScreenID, state: Data) {
        guard let serial = nextSerial(screen) else { return }
        commands.append(ReplayedCommand(kind: .update, screen: screen.rawValue, screenKind: kinds[screen] ?? "", serial: serial, state: state))
    }

    func placementChanged(_ screen: ScreenID, placement: Placement, change: PlacementChange) {
        guard let serial = nextSerial(screen) else { return }
        commands.append(ReplayedCommand(kind: .placementChanged, screen: screen.rawValue, screenKind: kinds[screen] ?? "", serial: serial,
                                        placement: wire(placement, screen)))
    }

    func dismiss(_ screen: ScreenID, animated: Bool, completion: @escaping (DismissOutcome) -> Void) {
        guard let serial = nextSerial(screen) else {
            completion(.hostLost)
            return
        }
        dismissing.insert(screen)
        commands.append(ReplayedCommand(kind: .dismiss, screen: screen.rawValue, screenKind: kinds[screen] ?? "", serial: serial))
        acknowledgements.append { [unowned self] in
            serials[screen] = nil
            kinds[screen] = nil
            dismissing.remove(screen)
            completion(.acknowledged)
        }
    }

    /// Acknowledges every dismissal sent so far, and those their completions send.
    func acknowledgeAll() {
        while !acknowledgements.isEmpty {
            let batch = acknowledgements
            acknowledgements.removeAll()
            for acknowledge in batch { acknowledge() }
        }
    }

    /// The next serial of a live screen that is not being dismissed.
    private func nextSerial(_ screen: ScreenID) -> UInt64? {
        guard let last = serials[screen], !dismissing.contains(screen) else { return nil }
        serials[screen] = last + 1
        return last + 1
    }

    private func wire(_ placement: Placement, _ screen: ScreenID) -> Flowd_V1_Placement {
        var counts: [NodeID: Int] = [:]
        for step in placement.path {
            if case .tab(let bar, _) = step { counts[bar] = runtime.model[bar]?.children.count ?? 0 }
        }
        return Flowd_V1_Placement(placement, screen: screen, tabCounts: counts)
    }
}
