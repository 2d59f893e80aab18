/// One container on the path from the window to a screen.
public enum PlacementStep: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The main window's content.
    case window
    /// The content of a window a flow opened (`window(on:)`): its id and the display it is on.
    case otherWindow(NodeID, display: String)
    /// Inside the navigation stack with this id.
    case stack(NodeID)
    /// In tab `index` of the tab bar with this id, which has `count` tabs.
    case tab(bar: NodeID, index: Int, count: Int)
    /// In the modal presented on this node.
    case modal(presenter: NodeID)

    /// `window`, `window#7@customer`, `stack#3`, `tabs#4:1`, `modal@#5`.
    public var description: String {
        switch self {
        case .window: "window"
        case .otherWindow(let id, let display): "window\(id)@\(display)"
        case .stack(let id): "stack\(id)"
        case .tab(let bar, let index, _): "tabs\(bar):\(index)"
        case .modal(let presenter): "modal@\(presenter)"
        }
    }
}
