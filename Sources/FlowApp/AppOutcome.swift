import FlowKit

/// What the root flow told the daemon (FlowKit's `RootOutcome`).
public typealias AppOutcome = RootOutcome
