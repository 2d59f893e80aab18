import DemoApps
import FlowKit

/// A placed screen as the page draws it: what it shows and where it is (docs/web.md, "Messages").
struct ScreenView: Encodable, Equatable {
    var id: UInt64
    var kind: String
    var flow: UInt64
    var flowType: String
    var title: String
    var body: String
    var buttons: [String]
    var field: String?
    var text: String?
    /// What the user typed into the field and did not send, saved with flowd (nil: none).
    var draft: String?
    var placement: PlacementView

    init(id: UInt64, kind: String, flow: UInt64, flowType: String, state: CardState, placement: Placement, draft: String? = nil) {
        self.id = id
        self.kind = kind
        self.flow = flow
        self.flowType = flowType
        title = state.title
        body = state.body
        buttons = state.buttons
        field = state.field
        text = state.text
        self.draft = draft
        self.placement = PlacementView(placement)
    }
}

/// A placement with plain fields: the containers from the window down, the index in a stack,
/// top-most and visible. The page derives the chrome from it (back button and breadcrumb in a
/// stack, a tab bar, a modal sheet, the window root).
struct PlacementView: Encodable, Equatable {
    /// One container on the way from the window to the screen.
    struct Step: Encodable, Equatable {
        /// "window", "stack", "tab" or "modal".
        var step: String
        /// The stack's or tab bar's node id, or the node a modal is presented on; 0 for the main
        /// window, a window's own id for a window a flow opened.
        var id: UInt64
        /// For a tab: which tab, and how many there are.
        var tab: Int?
        var tabCount: Int?
        /// For a window a flow opened: the display it is on.
        var display: String?
    }

    var path: [Step]
    var index: Int
    var topMost: Bool
    var visible: Bool

    init(_ placement: Placement) {
        path = placement.path.map { step in
            switch step {
            case .window: Step(step: "window", id: 0)
            case .otherWindow(let window, let display): Step(step: "window", id: window.rawValue, display: display)
            case .stack(let id): Step(step: "stack", id: id.rawValue)
            case .tab(let bar, let index, let count): Step(step: "tab", id: bar.rawValue, tab: index, tabCount: count)
            case .modal(let presenter): Step(step: "modal", id: presenter.rawValue)
            }
        }
        index = placement.index
        topMost = placement.isTopMost
        visible = placement.isVisible
    }
}
