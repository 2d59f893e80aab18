import FlowKit
import FlowKitWire
import FlowWire
import Foundation

/// The screens of the timeline's replay as their hosts would have them: kind, owner, the state last
/// sent (as JSON where the app's coder can say it) and how many commands each got (its serial), folded
/// from the screen commands in order. Each command also comes back as the `Event` a recording holds.
struct MomentScreens {
    private struct Screen {
        var kind: String
        var contentType: String
        var state: Flowd_V1_Payload
        var serial: UInt64
        var placement: Flowd_V1_Placement
    }

    private var screens: [ScreenID: Screen] = [:]
    /// Every screen's kind, dismissed ones too (a dismissal's acknowledgement names its screen later).
    private var kinds: [ScreenID: String] = [:]
    /// Screens in the order placed (dismissed ones skipped, and compacted away now and then).
    private var order: [ScreenID] = []

    mutating func reset() { self = MomentScreens() }

    func kind(of screen: ScreenID) -> String { kinds[screen] ?? "" }

    func serial(of screen: ScreenID) -> UInt64 { screens[screen]?.serial ?? 0 }

    /// Folds `command` in and returns its event (seq 0, with its payload), as the daemon would have
    /// emitted it for a recording. `runtime` turns states into JSON while the screen is still placed.
    mutating func apply(_ command: ScreenCommand, runtime: FlowRuntime) -> Flowd_V1_Event {
        let id = command.screen
        var event = Flowd_V1_Event()
        event.screenID = id.rawValue
        switch command {
        case .place(let place):
            let state = runtime.eventPayload(state: place.state, contentType: place.contentType, of: id)
            let placement = Flowd_V1_Placement(place.placement, screen: id)
            screens[id] = Screen(kind: place.kind, contentType: place.contentType, state: state, serial: 1, placement: placement)
            kinds[id] = place.kind
            order.append(id)
            event.kind = .place
            event.flowID = place.owner.rawValue
            event.placement = placement
            event.payload = state
        case .update(_, let data, let owner):
            screens[id]?.serial += 1
            let state = runtime.eventPayload(state: data, contentType: screens[id]?.contentType ?? WireProtocol.jsonContentType, of: id)
            screens[id]?.state = state
            event.kind = .update
            event.flowID = owner.rawValue
            event.payload = state
        case .placementChanged(_, let placement, _, let owner):
            screens[id]?.serial += 1
            event.kind = .placementChanged
            event.flowID = owner.rawValue
            event.placement = Flowd_V1_Placement(placement, screen: id)
            screens[id]?.placement = event.placement
        case .dismiss:
            screens[id]?.serial += 1
            event.kind = .dismiss
        }
        let screen = screens[id]
        event.name = screen?.kind ?? ""
        event.serial = screen?.serial ?? 0
        event.text = "\(event.kind) \(event.name) screen \(id.rawValue)"
        if case .dismiss = command {
            screens[id] = nil
            if order.count > 2 * screens.count + 64 { order.removeAll { screens[$0] == nil } }
        }
        return event
    }

    /// The screens `runtime` still holds, first placed first, each with its state and owner.
    func live(owners runtime: FlowRuntime) -> [Flowd_V1_MomentScreen] {
        order.compactMap { id in
            guard let screen = screens[id], runtime.model.contains(id) else { return nil }
            var moment = Flowd_V1_MomentScreen()
            moment.id = id.rawValue
            moment.kind = screen.kind
            moment.flowID = runtime.owner(of: id)?.rawValue ?? 0
            moment.state = screen.state
            moment.placement = screen.placement
            return moment
        }
    }
}
