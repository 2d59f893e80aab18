import FlowKit

// Removed and renamed API, kept for one minor version as unavailable declarations, so the compiler
// says what to write instead (docs/CHANGELOG.md, "Removed").

/// ScreenKit's own screen description of 0.1.0: hosts take FlowKit's `ScreenModule`, the type the flows use.
@available(*, unavailable, renamed: "ScreenModule", message: """
    screen hosts take FlowKit's ScreenModule, the same type the flows place: add `import FlowKit` and conform \
    to ScreenModule (kind, State and Output as before)
    """)
public typealias ScreenDescription = ScreenModule
