import Foundation

/// What the runtime asks of one screen. The runtime returns these (see `RuntimeEffect`) instead of
/// calling out; whoever drives it delivers them (the daemon over the wire, a fake in tests).
public enum ScreenCommand: Hashable, Sendable, CustomStringConvertible {
    /// Create a screen: its kind, first state and placement. Boxed (`indirect`): a place is rare
    /// beside updates, and unboxed it would make every command, effect and action as large as it.
    indirect case place(PlaceCommand)
    /// Give a placed screen new state; `owner` is the flow that owned it when the command was made.
    case update(ScreenID, state: Data, owner: FlowID)
    /// Tell a placed screen its placement changed (covered, uncovered, moved); `owner` as for `update`.
    case placementChanged(ScreenID, placement: Placement, change: PlacementChange, owner: FlowID)
    /// Remove a screen; answer with `FlowRuntime.dismissalCompleted(_:_:)`.
    case dismiss(ScreenID, animated: Bool, reason: DismissalReason)

    /// The screen the command is for.
    public var screen: ScreenID {
        switch self {
        case .place(let place): place.screen
        case .update(let id, _, _), .placementChanged(let id, _, _, _), .dismiss(let id, _, _): id
        }
    }

    /// A one-line description.
    public var description: String {
        switch self {
        case .place(let place): "place \(place.kind)\(place.screen) at \(place.placement)"
        case .update(let id, let state, _): "update \(id) \(String(decoding: state, as: UTF8.self))"
        case .placementChanged(let id, let placement, let change, _): "\(change) \(id) at \(placement)"
        case .dismiss(let id, let animated, let reason): "dismiss \(id)\(animated ? " animated" : "") (\(reason))"
        }
    }
}

/// A `place` command: everything a host needs to create the screen, and everything the daemon needs
/// to report it (the owning flow and its type).
public struct PlaceCommand: Hashable, Sendable {
    /// The new screen.
    public var screen: ScreenID
    /// Its kind name.
    public var kind: String
    /// Its first state, encoded by its module's `stateCoder`.
    public var state: Data
    /// The content type of `state` (`application/json` unless the module's State is a `BinaryPayload`).
    public var contentType: String
    /// The content type of its outputs, as its module takes them (not sent to hosts): the daemon
    /// compares each output's with it before asking the runtime (`FlowRuntime.acceptedOutput`).
    public var outputContentType: String
    /// Where it is placed.
    public var placement: Placement
    /// The flow that owns it.
    public var owner: FlowID
    /// The owning flow's type name.
    public var flowType: String
    /// Whether the host should animate its appearance (the placer's `animated:`).
    public var animated: Bool
    /// What a host saved for the screen (`SaveState`; docs/protocol.md §19): empty from the runtime,
    /// kept by the delivery and the journal, and sent whenever the screen is placed again.
    public var savedState = Data()

    /// A place command.
    public init(
        screen: ScreenID, kind: String, state: Data, contentType: String = "application/json",
        outputContentType: String = "application/json", placement: Placement, owner: FlowID, flowType: String, animated: Bool
    ) {
        self.screen = screen
        self.kind = kind
        self.state = state
        self.contentType = contentType
        self.outputContentType = outputContentType
        self.placement = placement
        self.owner = owner
        self.flowType = flowType
        self.animated = animated
    }
}
