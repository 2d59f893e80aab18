import ScreenKit

/// The interactive terminal mode (drawn screen, keys). Placeholder: the
/// terminal UI lands in a follow-up; until then it serves like a silent host.
public final class TerminalHost {
    let host: ScreenHost
    let deck: CardDeck

    public init(host: ScreenHost, deck: CardDeck) {
        self.host = host
        self.deck = deck
    }

    /// Serves until the daemon ends the session.
    public func run() throws -> ExitReason {
        try host.run()
    }
}
