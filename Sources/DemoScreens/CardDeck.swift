import DemoApps
import ScreenKit

/// Every demo screen a host holds, registered for every card kind; knows
/// which one is visible and tells an observer what changed.
public final class CardDeck {
    /// Live cards by screen id.
    public private(set) var cards: [UInt64: Card] = [:]
    /// Called after anything changed: placed, updated, moved, dismissed.
    public var onChange: ((CardDeck.Change) -> Void)?

    /// What happened to a card.
    public enum Change {
        case placed(Card)
        case updated(Card)
        case moved(Card)
        case dismissed(Card)
    }

    public init() {}

    /// Registers every demo card kind on `host`.
    public func register(on host: ScreenHost) {
        for module in allCardScreens { register(module, on: host) }
    }

    private func register<M: CardScreen>(_ module: M.Type, on host: ScreenHost) {
        host.register(module) { [unowned self] screen in
            let card = Card(screen)
            cards[card.id] = card
            screen.onUpdate { [unowned self, unowned screen, card] state in
                card.state = state
                card.serial = screen.lastSerial
                onChange?(.updated(card))
            }
            screen.onPlacementChanged { [unowned self, unowned screen, card] change in
                card.placement = screen.placement
                card.serial = screen.lastSerial
                card.lastChange = change
                onChange?(.moved(card))
            }
            screen.onDismiss { [unowned self, unowned screen, card] dismissal in
                card.isDismissed = true
                card.dismissal = dismissal
                card.serial = screen.lastSerial
                cards[card.id] = nil
                onChange?(.dismissed(card))
            }
            onChange?(.placed(card))
        }
    }

    /// The card the user sees in the main window, if this host holds it. With windows on other
    /// displays several cards are visible, one per window: the terminal shows the main window's.
    public var visible: Card? {
        cards.values.first { $0.placement.isVisible && $0.otherWindowDisplay == nil }
    }

    /// The visible cards of windows flows opened on other displays, by display then screen id.
    public var visibleInOtherWindows: [Card] {
        cards.values.filter { $0.placement.isVisible && $0.otherWindowDisplay != nil }
            .sorted { ($0.otherWindowDisplay ?? "", $0.id) < ($1.otherWindowDisplay ?? "", $1.id) }
    }
}
