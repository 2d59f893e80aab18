/// A token for exactly the UI a finished flow left placed (its screens and what its sub-flows left).
/// Until the parent dismisses it, that UI belongs to the parent; `leave()` keeps it for good.
public final class Dismisser {
    unowned let runtime: FlowRuntime
    /// The flow that adopted the screens (the finished flow's parent, or the host).
    let adopter: FlowID
    /// The screens covered, in placement order.
    public let screens: [ScreenID]
    /// Whether `dismiss` or `leave` was called.
    public private(set) var isDecided = false

    init(runtime: FlowRuntime, adopter: FlowID, screens: [ScreenID]) {
        self.runtime = runtime
        self.adopter = adopter
        self.screens = screens
    }

    /// Removes the covered screens still placed and owned by the adopter, top-most first;
    /// `completion` runs once every screen acknowledged, timed out or lost its host.
    public func dismiss(animated: Bool = true, completion: ((DismissalReport) -> Void)? = nil) {
        guard !isDecided else {
            completion?(DismissalReport(outcomes: []))
            return
        }
        isDecided = true
        runtime.unwind(screens, ownedBy: adopter, animated: animated, completion: completion)
    }

    /// Leaves the screens in place; the adopter keeps them.
    public func leave() {
        isDecided = true
    }
}

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

/// Collects dismissal outcomes of one unwinding and completes once sealed and all are in.
final class DismissalGroup {
    private var pending = 0
    private var sealed = false
    private var entries: [DismissalReport.Entry] = []
    private var positions: [ScreenID: Int] = [:]
    private var completion: ((DismissalReport) -> Void)?

    init(completion: ((DismissalReport) -> Void)?) { self.completion = completion }

    func expect(_ screen: ScreenID) {
        pending += 1
        positions[screen] = entries.count
        entries.append(.init(screen: screen, outcome: .timedOut))
    }

    func resolve(_ screen: ScreenID, _ outcome: DismissOutcome) {
        guard let position = positions.removeValue(forKey: screen) else { return }
        entries[position].outcome = outcome
        pending -= 1
        fireIfDone()
    }

    func seal() {
        sealed = true
        fireIfDone()
    }

    private func fireIfDone() {
        guard sealed, pending == 0, let completion else { return }
        self.completion = nil
        completion(DismissalReport(outcomes: entries))
    }
}
