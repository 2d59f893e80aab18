import FlowKit

// Removed and renamed API, kept for one minor version as unavailable declarations, so the compiler
// says what to write instead (docs/CHANGELOG.md, "Removed").

/// ScreenKit's own screen description of 0.1.0: hosts take FlowKit's `ScreenModule`, the type the flows use.
@available(*, unavailable, renamed: "ScreenModule", message: """
    screen hosts take FlowKit's ScreenModule, the same type the flows place: add `import FlowKit` and conform \
    to ScreenModule (kind, State and Output as before)
    """)
public typealias ScreenDescription = ScreenModule

/// ScreenKit's own placement of 0.1.0: hosts get FlowKit's `Placement`.
@available(*, unavailable, message: """
    a HostedScreen's placement is FlowKit's Placement: add `import FlowKit`; path is [PlacementStep], \
    visible is isVisible, topMost is isTopMost
    """)
public typealias Placement = FlowKit.Placement

/// A step of ScreenKit's placement path of 0.1.0.
@available(*, unavailable, renamed: "PlacementStep", message: "FlowKit's PlacementStep, an enum of the container kinds: add `import FlowKit`")
public typealias PathElement = FlowKit.PlacementStep

/// ScreenKit's placement change of 0.1.0 (a struct with kind, placement and previous).
@available(*, unavailable, message: """
    onPlacementChanged gets FlowKit's PlacementChange, an enum (covered, uncovered, moved, tabSelected, \
    tabDeselected): add `import FlowKit`, and read screen.placement and screen.previousPlacement
    """)
public typealias PlacementChange = FlowKit.PlacementChange
