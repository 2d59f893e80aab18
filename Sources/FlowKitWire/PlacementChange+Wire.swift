import FlowKit
import FlowWire

extension Flowd_V1_PlacementChanged.Change {
    /// The wire form of a FlowKit placement change.
    package init(_ change: PlacementChange) {
        switch change {
        case .covered: self = .covered
        case .uncovered: self = .uncovered
        case .moved: self = .moved
        case .tabSelected: self = .tabSelected
        case .tabDeselected: self = .tabDeselected
        }
    }
}


extension PlacementChange {
    /// The FlowKit reason for a wire `PlacementChanged.Change`, as a screen host sees it; a reason
    /// this version does not know is read off the placements the way the daemon decides it
    /// (visibility, then top-most, else moved).
    package init(_ wire: Flowd_V1_PlacementChanged.Change, from previous: Placement, to placement: Placement) {
        switch wire {
        case .covered: self = .covered
        case .uncovered: self = .uncovered
        case .tabSelected: self = .tabSelected
        case .tabDeselected: self = .tabDeselected
        case .moved: self = .moved
        case .unspecified, .UNRECOGNIZED:
            if placement.isVisible != previous.isVisible {
                self = placement.isVisible ? .uncovered : .covered
            } else if placement.isTopMost != previous.isTopMost {
                self = placement.isTopMost ? .uncovered : .covered
            } else {
                self = .moved
            }
        }
    }
}
