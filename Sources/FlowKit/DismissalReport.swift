/// The outcome of an unwinding: each removed screen, top-most first, and how its dismissal ended.
public struct DismissalReport: Hashable, Sendable {
    /// One entry per removed screen, in removal order.
    public var outcomes: [Entry]

    /// One screen's dismissal.
    public struct Entry: Hashable, Sendable {
        /// The screen.
        public var screen: ScreenID
        /// How its dismissal ended.
        public var outcome: DismissOutcome
    }

    /// The screens removed, in removal order.
    public var screens: [ScreenID] { outcomes.map(\.screen) }

    /// Whether every screen acknowledged.
    public var allAcknowledged: Bool { outcomes.allSatisfy { $0.outcome == .acknowledged } }
}
