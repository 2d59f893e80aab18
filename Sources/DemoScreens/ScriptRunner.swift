import DemoApps
import Foundation
import ScreenKit

/// Drives a `CardDeck` by a `Script`, printing one line per event.
///
/// Attached hosts (holding every screen) run the steps in order: each waits
/// for its screen to be visible, acts, and waits for the daemon's barrier so
/// that the next step sees every consequence. A spawned host holds one
/// screen, so its steps are rules: whenever its screen is visible, it runs
/// the first step not yet run that matches it. Spawned hosts sharing a
/// progress file follow the script in order across processes instead
/// (`runInSharedOrder`, ScriptRunner+SharedProgress.swift).
///
/// Screens hosted by another process (a spawned screen, e.g. the Python
/// login) are not in this host's deck. An attached runner that finds, after
/// its barrier, none of its own cards visible but some hidden, and none of
/// the step's kind, leaves that step to the process that hosts the visible
/// screen (which runs the same script as rules) and goes on.
public final class ScriptRunner {
    /// Why a script failed.
    public struct Failure: Error, CustomStringConvertible {
        /// `script line N: ...`: the step and what went wrong.
        public var description: String
    }

    let host: ScreenHost
    let deck: CardDeck
    let script: Script
    let stepTimeoutMilliseconds: Int
    let log: (String) -> Void
    private var done: Set<Int> = []

    /// How long each step waits for its screen unless told otherwise: 10 s.
    public static let defaultStepTimeoutMilliseconds = 10_000

    /// A runner acting on `deck` (registered on `host`), logging each step and event through `log`.
    public init(
        host: ScreenHost, deck: CardDeck, script: Script, stepTimeoutMilliseconds: Int = ScriptRunner.defaultStepTimeoutMilliseconds,
        log: @escaping (String) -> Void
    ) {
        self.host = host
        self.deck = deck
        self.script = script
        self.stepTimeoutMilliseconds = stepTimeoutMilliseconds
        self.log = log
    }

    /// Runs every step in order, then serves until the daemon ends the session.
    /// A step that ends the session (the launcher's Quit) ends the walk: flowd may close the
    /// connection before it reads the step's barrier, and that is not a failure; steps left after it are.
    public func runInOrder() throws -> ExitReason {
        try host.ping()  // every screen already waiting for this host is placed
        for (index, step) in script.steps.enumerated() {
            if isHostedElsewhere(step) {
                log("[line \(step.line)] \(step.target): the visible screen is hosted by another process; left to it")
                continue
            }
            try performWhenVisible(step)
            guard try barrier() else {
                let reason = try host.run()
                if let next = script.steps.dropFirst(index + 1).first {
                    throw Failure(description: "script line \(next.line): the session ended (\(reason)) after line \(step.line), before this step")
                }
                log("script done (\(script.steps.count) steps); the session ended with the last one")
                return reason
            }
        }
        log("script done (\(script.steps.count) steps); waiting for the daemon to finish")
        return try host.run()
    }

    /// A `Ping` barrier: afterwards `deck` reflects everything flowd did before answering it.
    /// False if the session ended meanwhile (then `host.run()` returns why at once).
    func barrier() throws(ScreenKitError) -> Bool {
        do throws(ScreenKitError) {
            try host.ping()
            return true
        } catch where error.code == .closed {
            return false
        }
    }

    /// Serves, acting on this host's screen whenever a step matches it.
    public func runAsRules() throws -> ExitReason {
        while true {
            if let card = deck.visible,
               let step = script.steps.first(where: { !done.contains($0.line) && matches($0, card) }) {
                done.insert(step.line)
                try perform(step, on: card)
            }
            if let reason = try host.pollOnce(timeoutMilliseconds: 1_000) { return reason }
        }
    }

    private func matches(_ step: Script.Step, _ card: Card) -> Bool {
        step.matches(kind: card.kind, title: card.state.title, body: card.state.body)
    }

    /// True when another process hosts the visible screen and this host has no screen of the step's kind.
    private func isHostedElsewhere(_ step: Script.Step) -> Bool {
        deck.visible == nil && !deck.cards.isEmpty && !deck.cards.values.contains { $0.kind == step.kind }
    }

    /// Waits for the step's screen and acts on it. An action that a dropped connection did not
    /// send (`.reconnecting`: nothing went out) is done again once the host has resumed.
    private func performWhenVisible(_ step: Script.Step) throws {
        while true {
            let card = try waitForVisible(step)
            do {
                try perform(step, on: card)
                return
            } catch let error as ScreenKitError where error.code == .reconnecting {
                log("[line \(step.line)] not sent, the connection dropped; again once the screens are back")
            }
            // At least once: the host starts reconnecting when it reads the end of the stream after
            // the failed write (and what flowd wrote before it went), so `isReconnecting` may still
            // be false here.
            repeat {
                if let reason = try host.pollOnce(timeoutMilliseconds: 1_000) {
                    throw Failure(description: "script line \(step.line): the session ended (\(reason)) while reconnecting")
                }
            } while host.isReconnecting
        }
    }

    private func waitForVisible(_ step: Script.Step) throws -> Card {
        let deadline = Date().addingTimeInterval(Double(stepTimeoutMilliseconds) / 1000)
        while true {
            if let card = deck.visible, matches(step, card) { return card }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                let visible = deck.visible.map { "\($0.label) at \($0.breadcrumb)" } ?? "nothing"
                throw Failure(description: "script line \(step.line): waited \(stepTimeoutMilliseconds) ms for \(step.target); visible is \(visible)\(deck.visible.map { " showing \"\($0.state.body)\"" } ?? "")")
            }
            if let reason = try host.pollOnce(timeoutMilliseconds: Int32(min(remaining * 1000, 1_000))) {
                throw Failure(description: "script line \(step.line): the session ended (\(reason)) while waiting for \(step.kind)")
            }
        }
    }

    func perform(_ step: Script.Step, on card: Card) throws {
        let prefix = "[line \(step.line)] \(card.label) (\(card.breadcrumb)):"
        switch step.action {
        case .expect:
            log("\(prefix) seen")
        case .press(let number):
            guard card.state.buttons.indices.contains(number - 1) else {
                throw Failure(description: "script line \(step.line): \(card.label) has \(card.state.buttons.count) buttons, no button \(number)")
            }
            log("\(prefix) press \(number) \"\(card.state.buttons[number - 1])\"")
            try card.sendOutput(.didPressButton(index: number - 1))
        case .pressLabel(let label):
            guard let index = card.state.buttons.firstIndex(where: { $0 == label }) ?? card.state.buttons.firstIndex(where: { $0.firstRange(of: label) != nil }) else {
                throw Failure(description: "script line \(step.line): \(card.label) has no button \"\(label)\"; it has \(card.state.buttons)")
            }
            log("\(prefix) press \(index + 1) \"\(card.state.buttons[index])\"")
            try card.sendOutput(.didPressButton(index: index))
        case .type(let text):
            log("\(prefix) type \"\(text)\"")
            try card.sendOutput(.didEnterText(text: text))
        case .back:
            log("\(prefix) back")
            try card.navigate(.back)
        case .tab(let number):
            log("\(prefix) tab \(number)")
            try card.navigate(.selectTab(number - 1))
        case .close:
            log("\(prefix) close modal")
            try card.navigate(.closeModal)
        }
    }
}

extension CardDeck.Change {
    /// One line for the event log: `+ tutorial "Welcome" at stack depth 2`.
    public var logLine: String {
        switch self {
        case .placed(let card): "+ \(card.label) at \(card.breadcrumb)\(card.placement.isVisible ? "" : " (hidden)")"
        case .updated(let card): "~ \(card.label) updated: \(card.state.body)"
        case .moved(let card): "~ \(card.label) \(card.placement.isVisible ? "visible" : "hidden") at \(card.breadcrumb)"
        case .dismissed(let card): "- \(card.label) dismissed"
        }
    }
}
