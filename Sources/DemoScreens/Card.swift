import Foundation
import DemoApps
import FlowKit
import ScreenKit

/// One hosted demo screen, whatever its kind: its state and placement, and
/// the ways a person (or a script) can act on it.
public final class Card {
    /// The daemon's screen id.
    public let id: UInt64
    /// The screen kind ("menu", "tutorial", ...).
    public let kind: String
    /// The owning flow's type, for display.
    public let flowType: String
    /// What the screen shows.
    public internal(set) var state: CardState
    /// Where it is.
    public internal(set) var placement: Placement
    /// Set once dismissed.
    public internal(set) var isDismissed = false
    /// How it went, once dismissed.
    public internal(set) var dismissal: Dismissal?
    /// The owning flow's id.
    public let flowID: UInt64
    /// Whether its `Place` asked for an animated appearance.
    public let animated: Bool
    /// The serial of the last command about it (what an ack acknowledges).
    public internal(set) var serial: UInt64
    /// Why it last moved (with `CardDeck.Change.moved`).
    public internal(set) var lastChange: PlacementChange?
    /// What the user typed into its field and did not send, as saved with flowd (`saveDraft`) and
    /// handed back when flowd placed the card again; nil when nothing is saved.
    public private(set) var draft: String?

    private let output: (CardOutput) throws -> Void
    private let navigation: (Navigation) throws -> Void
    private let save: (Data) throws -> Void

    /// User navigation a card can start; a gesture goes `.begin`, then `.cancel` or `.commit`.
    public enum Navigation: Sendable, Equatable {
        case back(NavigationPhase = .immediate)
        case selectTab(Int)
        case closeModal(NavigationPhase = .immediate)
        /// Close the window the card is in (a window a flow opened on a display).
        case closeWindow(NavigationPhase = .immediate)

        /// Back at once (a button).
        public static let back = Navigation.back(.immediate)
        /// Close the modal at once (a button).
        public static let closeModal = Navigation.closeModal(.immediate)
    }

    init<M: CardScreen>(_ screen: HostedScreen<M>) {
        id = screen.id
        kind = M.kind
        flowType = screen.flowType
        flowID = screen.flowID
        animated = screen.animated
        serial = screen.lastSerial
        state = screen.state
        placement = screen.placement
        draft = screen.savedState.isEmpty ? nil : String(decoding: screen.savedState, as: UTF8.self)
        // Weak: the screen's callbacks hold the card, the card must not hold the screen.
        output = { [weak screen] output in try screen?.send(output) }
        save = { [weak screen] data in try screen?.saveState(data) }
        navigation = { [weak screen] navigation in
            guard let screen else { return }
            switch navigation {
            case .back(let phase): try screen.back(phase: phase)
            case .selectTab(let index): try screen.selectTab(index)
            case .closeModal(let phase): try screen.closeModal(phase: phase)
            case .closeWindow(let phase): try screen.closeWindow(phase: phase)
            }
        }
    }

    /// Sends a user event to the flow. A text sent is no longer a draft.
    public func sendOutput(_ event: CardOutput) throws {
        try output(event)
        if case .didEnterText = event, draft != nil { try saveDraft(nil) }
    }

    /// Saves what the user has typed into the field and not sent (nil: nothing) with flowd, which
    /// hands it back when it places the card again: in a new tab, after a restart (docs/protocol.md §19).
    public func saveDraft(_ text: String?) throws {
        guard text != draft else { return }
        try save(Data((text ?? "").utf8))
        draft = text
    }

    /// Reports user navigation from this card.
    public func navigate(_ request: Navigation) throws { try navigation(request) }

    /// The stack depth (1 = root), if the card is in a stack.
    public var stackDepth: Int? {
        placement.stack == nil ? nil : placement.index + 1
    }

    /// The tab the card is in and how many tabs there are, if it is in a tab bar.
    public var tab: (index: Int, count: Int)? {
        for step in placement.path.reversed() {
            if case .tab(_, let index, let count) = step { return (index, count) }
        }
        return nil
    }

    /// Whether the card is inside a modal presentation.
    public var isInModal: Bool {
        placement.path.contains { if case .modal = $0 { true } else { false } }
    }

    /// "modal › tab 2/2 › stack depth 3": where the card is, for a person.
    public var breadcrumb: String {
        var parts: [String] = []
        if isInModal { parts.append("modal") }
        if let tab { parts.append("tab \(tab.index + 1)/\(tab.count)") }
        if let stackDepth { parts.append("stack depth \(stackDepth)") }
        return parts.isEmpty ? "window" : parts.joined(separator: " › ")
    }

    /// The display of the window a flow opened that holds the card (nil: the main window).
    public var otherWindowDisplay: String? {
        if case .otherWindow(_, let display)? = placement.path.first { display } else { nil }
    }

    /// `menu "flowd demos"`.
    public var label: String { "\(kind) \"\(state.title)\"" }
}
