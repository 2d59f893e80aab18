/// How far the processes of one spawned walk got through a script: the lines
/// started (and by which screen) and the lines done, as read from their shared
/// progress file (`ScriptProgressFile`). Decides what one process does next.
///
/// The rules rely on what holds for the demo's walk: one screen is visible at
/// a time, only the script's steps change what is shown, and each step's
/// screen is the visible one once the steps before it took effect.
public struct ScriptProgress: Sendable, Equatable {
    /// The screen a process shows, as far as the rules care.
    public struct Screen: Sendable, Equatable {
        /// The daemon's screen id (a restarted process gets the same one).
        public var id: UInt64
        /// Its kind, title and body, to match steps against.
        public var kind: String
        public var title: String
        public var body: String

        /// A screen with `id` showing `title` and `body`.
        public init(id: UInt64, kind: String, title: String, body: String) {
            self.id = id
            self.kind = kind
            self.title = title
            self.body = body
        }
    }

    /// What a process should do now.
    public enum Move: Sendable, Equatable {
        /// Run this step on the visible screen; `startedBefore`: this screen's previous process
        /// started it and died before recording it done (so it may run twice).
        case perform(Script.Step, startedBefore: Bool)
        /// The step was started by `screen`, which is no longer the visible screen matching it: its
        /// output took effect and the process that sent it ended (or has yet to record it). Record it done.
        case takeAsDone(Script.Step, startedBy: UInt64)
        /// Nothing to do until the visible screen or the progress changes; the step is the next one.
        case wait(Script.Step)
        /// Every step is done.
        case finished
    }

    /// The screen that last started each line.
    public private(set) var started: [Int: UInt64] = [:]
    /// The lines done.
    public private(set) var done: Set<Int> = []

    /// Progress read from the file's text: `started LINE screen ID` and `done LINE` lines. Anything
    /// else (there should be nothing else) is skipped.
    public init(parsing text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            switch (words.first, words.count > 1 ? Int(words[1]) : nil) {
            case ("started", let number?):
                if words.count == 4, words[2] == "screen", let screen = UInt64(words[3]) { started[number] = screen }
            case ("done", let number?):
                done.insert(number)
            default:
                continue
            }
        }
    }

    /// The record of `line` started by `screen`, one line of the file.
    public static func startedRecord(line: Int, screen: UInt64) -> String { "started \(line) screen \(screen)\n" }

    /// The record of `line` done, one line of the file.
    public static func doneRecord(line: Int) -> String { "done \(line)\n" }

    /// What a process whose visible screen is `visible` (nil: its screen is hidden) does next in `script`.
    ///
    /// Only the visible process moves, and only on the first step not done: in order, across processes.
    /// `.perform` and `.takeAsDone` hold only if `visible` is up to date: take them after a `Ping`
    /// barrier, then ask again.
    public func move(in script: Script, visible: Screen?) -> Move {
        guard let next = script.steps.first(where: { !done.contains($0.line) }) else { return .finished }
        guard let visible else { return .wait(next) }
        let matches = next.matches(kind: visible.kind, title: visible.title, body: visible.body)
        switch started[next.line] {
        case nil:
            return matches ? .perform(next, startedBefore: false) : .wait(next)
        case let screen? where screen == visible.id && matches:
            // Started by this screen's previous process, which died before recording it done.
            return .perform(next, startedBefore: true)
        case let screen?:
            // Started by another screen, which is not visible now (or by this one, whose state changed
            // since): only the step's output can have changed what is shown.
            return .takeAsDone(next, startedBy: screen)
        }
    }
}
