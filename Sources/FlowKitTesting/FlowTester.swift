import FlowKit
import Foundation

/// Runs flows against a `FakeScreenTransport`: start flows, act as the user and the screens, and
/// assert on what was placed, emitted, finished and dismissed. Failures point at the caller's line.
public final class FlowTester {
    /// The fake screens.
    public let transport: FakeScreenTransport
    /// The runtime under test.
    public let runtime: FlowRuntime

    /// A runtime with an empty window over a fake transport.
    public init(acknowledgesAutomatically: Bool = true) {
        runtime = FlowRuntime()
        transport = FakeScreenTransport(runtime: runtime, acknowledgesAutomatically: acknowledgesAutomatically)
    }

    /// Starts a root flow and records what it reports.
    @discardableResult
    public func start<F: Flow>(_ flow: F, _ placer: ScreenPlacer<F.RequiredContext>, recorder: FlowRecorder<F> = FlowRecorder<F>()) -> FlowRecorder<F> {
        recorder.id = runtime.start(flow, placer, handler: recorder.record)
        settle()
        return recorder
    }

    /// Applies everything the runtime has to say (fake screens acknowledge as configured). Every
    /// other method does this first; call it after acting on `runtime` directly.
    public func settle() { transport.settle() }

    // MARK: looking

    /// The screen the user sees.
    public var visibleScreen: ScreenID? {
        settle()
        return runtime.visibleScreen
    }

    /// Live screens of a module's kind, oldest first.
    public func screens<M: ScreenModule>(_ module: M.Type) -> [ScreenID] {
        transport.screens.values.filter { $0.kind == M.kind }.map(\.id).sorted()
    }

    /// The newest live screen of a module's kind.
    public func screen<M: ScreenModule>(_ module: M.Type) -> ScreenID? { screens(module).last }

    /// The latest state of a screen, decoded as its module's `State`.
    public func state<M: ScreenModule>(of screen: ScreenID, as module: M.Type) -> M.State? {
        guard let data = transport.screens[screen]?.state else { return nil }
        return try? M.stateCoder.decode(data, with: runtime.codec)
    }

    /// The latest state of the newest screen of a kind.
    public func state<M: ScreenModule>(_ module: M.Type) -> M.State? {
        screen(module).flatMap { state(of: $0, as: module) }
    }

    /// The placement the fake screen was last told.
    public func placement(of screen: ScreenID) -> Placement? { transport.screens[screen]?.placement }

    // MARK: acting

    /// Sends an output from a screen, as its host would (encoded by the module's `outputCoder`).
    public func send<M: ScreenModule>(_ output: M.Output, from screen: ScreenID, as module: M.Type) throws {
        defer { settle() }
        try runtime.receiveOutput(screen: screen, payload: M.outputCoder.encode(output, with: runtime.codec))
    }

    /// Sends an output from the newest screen of the module's kind; a missing screen fails the test.
    public func send<M: ScreenModule>(_ output: M.Output, from module: M.Type,
                                      fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        guard let screen = screen(module) else {
            return reportFailure("no \(M.kind) screen is placed to send \(output) from", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        do { try send(output, from: screen, as: module) } catch {
            reportFailure("sending \(output) from \(M.kind)\(screen) failed: \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// The user goes back from the visible screen (or `screen`): the back button (`immediate`).
    public func back(from screen: ScreenID? = nil) throws(FlowKitError) {
        defer { settle() }
        try runtime.receiveUserNavigation(.back(.immediate), from: try target(screen))
    }

    /// The user starts a back swipe and then cancels or commits it.
    public func backGesture(from screen: ScreenID? = nil, commit: Bool) throws(FlowKitError) {
        defer { settle() }
        let screen = try target(screen)
        try runtime.receiveUserNavigation(.back(.begin), from: screen)
        try runtime.receiveUserNavigation(.back(commit ? .commit : .cancel), from: screen)
    }

    /// The user selects a tab of the tab bar around the visible screen (or `screen`).
    public func selectTab(_ index: Int, from screen: ScreenID? = nil) throws(FlowKitError) {
        defer { settle() }
        try runtime.receiveUserNavigation(.selectTab(index), from: try target(screen))
    }

    /// The user closes the modal around the visible screen (or `screen`).
    public func closeModal(from screen: ScreenID? = nil) throws(FlowKitError) {
        defer { settle() }
        try runtime.receiveUserNavigation(.closeModal, from: try target(screen))
    }

    /// The host of a screen dies.
    public func loseScreen(_ screen: ScreenID) {
        transport.hostDied(screen)
    }

    private func target(_ screen: ScreenID?) throws(FlowKitError) -> ScreenID {
        if let screen { return screen }
        guard let visible = runtime.visibleScreen else {
            throw FlowKitError(.invalidNavigation, "no screen is visible to navigate from")
        }
        return visible
    }
}
