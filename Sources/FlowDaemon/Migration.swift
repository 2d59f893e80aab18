import FlowApp
import FlowWire

// Moved API, kept for one minor version as unavailable declarations, so the compiler says what to
// write instead (docs/CHANGELOG.md, "Changed"): what an app is moved to FlowApp, which apps import
// without the daemon.

/// `App` of 0.1.0, now in FlowApp.
@available(*, unavailable, message: "App moved to the FlowApp module: add the FlowApp product and `import FlowApp`")
public typealias App = FlowApp.App

/// `ScreenFactory` of 0.1.0, now in FlowApp.
@available(*, unavailable, message: "ScreenFactory moved to the FlowApp module: add the FlowApp product and `import FlowApp`")
public typealias ScreenFactory = FlowApp.ScreenFactory

/// `DeferredScreenFactory` of 0.1.0, now in FlowApp.
@available(*, unavailable, message: "DeferredScreenFactory moved to the FlowApp module: add the FlowApp product and `import FlowApp`")
public typealias DeferredScreenFactory = FlowApp.DeferredScreenFactory

/// `AppOutcome` of 0.1.0, now in FlowApp.
@available(*, unavailable, message: "AppOutcome moved to the FlowApp module: add the FlowApp product and `import FlowApp`")
public typealias AppOutcome = FlowApp.AppOutcome

/// `FlowdVersion` of 0.1.0, now in FlowWire (screen hosts and clients report it too).
@available(*, unavailable, message: "FlowdVersion moved to the FlowWire module: `import FlowWire`")
public typealias FlowdVersion = FlowWire.FlowdVersion
