import FlowWire

/// A screen's placement changed without it being removed (`PlacementChanged`).
public struct PlacementChange: Sendable, Hashable {
    /// Why the placement changed.
    public enum Kind: Sendable, Hashable {
        /// Something was pushed or presented over the screen; it is not visible any more.
        case covered
        /// What covered it went away; it is visible again.
        case uncovered
        /// Its path changed (e.g. a screen below it was removed).
        case moved
        /// Its tab became the selected tab.
        case tabSelected
        /// Another tab became the selected one.
        case tabDeselected
        /// A reason this version of ScreenKit does not know.
        case unspecified
    }

    /// Why.
    public var kind: Kind
    /// The complete new placement (also in `HostedScreen.placement` by the time handlers run).
    public var placement: Placement
    /// The placement before this change.
    public var previous: Placement

    /// A change from its parts.
    public init(kind: Kind, placement: Placement, previous: Placement) {
        self.kind = kind
        self.placement = placement
        self.previous = previous
    }
}

extension PlacementChange.Kind {
    /// The kind a wire `PlacementChanged.Change` names.
    package init(_ wire: Flowd_V1_PlacementChanged.Change) {
        self =
            switch wire {
            case .covered: .covered
            case .uncovered: .uncovered
            case .moved: .moved
            case .tabSelected: .tabSelected
            case .tabDeselected: .tabDeselected
            default: .unspecified
            }
    }
}
