/// A window a flow opened on a display: its content can present, and it closes when that content
/// goes (the flow's dismisser, or the user closing it). The main window is not one: it is the
/// app's own and is never closed (`windowRoot`).
public struct Window: PlacedContext, Hashable, Sendable {
    /// The window's node.
    public let node: NodeID
    /// Wraps a window node id: only placers (and tests in this package) make contexts, so a
    /// context's type is what was really placed.
    package init(node: NodeID) { self.node = node }
    /// A window on no node, which every placer refuses.
    public init(unplaced: Unplaced) { self.node = .none }
}

/// What a window placement does when no host provides its display.
public enum AbsentDisplay: Hashable, Sendable {
    /// The placement fails with `FlowKitError.displayUnavailable`, and the flow ends `.failed`.
    case fail
    /// The window opens in the model anyway and is drawn once a host provides the display.
    case wait
}

extension PlacementRequest {
    /// Opens an empty window on `display` for this placement (closed again if the placement fails).
    public func openWindow(on display: String, whenAbsent: AbsentDisplay) throws(FlowKitError) -> NodeID {
        if whenAbsent == .fail, let available = runtime.availableDisplays, !available.contains(display) {
            let known = available.isEmpty ? "none" : available.sorted().joined(separator: ", ")
            throw FlowKitError(.displayUnavailable, "no host provides the display '\(display)' (provided: \(known)); connect one, or open the window with whenAbsent: .wait")
        }
        let window = runtime.model.createWindow(display: display)
        tracker.created.append(window)
        return window
    }
}

extension ScreenPlacer where Context == Window {
    /// As the content of a new window on `display`; the content can present. The window closes when
    /// its content is dismissed. With `whenAbsent: .fail` (the default) a display no host provides
    /// fails the placement; with `.wait` the window waits for one.
    public static func window(on display: String, whenAbsent: AbsentDisplay = .fail, animated: Bool = true) -> ScreenPlacer<Window> {
        ScreenPlacer<Window>(animated: animated) { (request) throws(FlowKitError) -> Window in
            let window = try request.openWindow(on: display, whenAbsent: whenAbsent)
            try request.attach(.content(ofWindow: window))
            return Window(node: window)
        }
    }

    /// As the content of `window`, replacing what it shows.
    public static func content(of window: Window, animated: Bool = false) -> ScreenPlacer<Window> {
        let node = window.node
        return ScreenPlacer<Window>(animated: animated) { (request) throws(FlowKitError) -> Window in
            try request.attach(.content(ofWindow: node))
            return Window(node: node)
        }
    }
}

/// As the content of a new window on `display` (`ScreenPlacer.window(on:whenAbsent:animated:)`).
public func window(on display: String, whenAbsent: AbsentDisplay = .fail, animated: Bool = true) -> ScreenPlacer<Window> {
    ScreenPlacer<Window>.window(on: display, whenAbsent: whenAbsent, animated: animated)
}

/// As the content of `window`, replacing what it shows.
public func content(of window: Window, animated: Bool = false) -> ScreenPlacer<Window> {
    ScreenPlacer<Window>.content(of: window, animated: animated)
}
