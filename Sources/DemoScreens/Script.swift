/// A script of user actions for `demo-screens --script` (docs/demo.md):
/// one step per line, `on KIND ["TITLE"] [body "TEXT"] ACTION [ARGUMENT]`,
/// `#` comments.
///
///     on menu press "Onboarding tutorial"
///     on tutorial "Welcome" press 2
///     on tutorial "All set" expect
///     on student-age type "33"
///     on summary back
///     on menu body "Ann 33, Bob 21" expect
///
/// A step waits until the visible screen is of KIND (and its title contains
/// TITLE, and its body contains TEXT), then acts on it. Actions: `press N` (buttons count from 1, as
/// drawn) or `press "Label"`, `type "text"`, `back`, `tab N`, `close`,
/// `expect` (only wait).
public struct Script: Sendable, Equatable {
    /// One step.
    public struct Step: Sendable, Equatable {
        /// The 1-based line it came from.
        public var line: Int
        /// The screen kind it waits for.
        public var kind: String
        /// A substring the visible screen's title must contain, if any.
        public var title: String?
        /// A substring the visible screen's body must contain, if any.
        public var body: String?
        /// What it does once the screen is visible.
        public var action: Action

        /// A step of `kind` (optionally with title and body conditions) from `line`.
        public init(line: Int, kind: String, title: String? = nil, body: String? = nil, action: Action) {
            self.line = line
            self.kind = kind
            self.title = title
            self.body = body
            self.action = action
        }

        /// Whether a screen of `kind` showing `title` and `body` is the one this step waits for.
        public func matches(kind: String, title: String, body: String) -> Bool {
            kind == self.kind && (self.title.map { title.firstRange(of: $0) != nil } ?? true)
                && (self.body.map { body.firstRange(of: $0) != nil } ?? true)
        }

        /// `tutorial "Welcome" body "..."`: what the step waits for, for messages.
        public var target: String {
            kind + (title.map { " \"\($0)\"" } ?? "") + (body.map { " body \"\($0)\"" } ?? "")
        }
    }

    /// What a step does to the matching screen.
    public enum Action: Sendable, Equatable {
        /// Press button N (1-based, as drawn).
        case press(Int)
        /// Press the button with this label (exact, else the first containing it).
        case pressLabel(String)
        /// Send the text field's new value.
        case type(String)
        /// Pop the screen off its stack.
        case back
        /// Select tab N (1-based) of the tab bar holding the screen.
        case tab(Int)
        /// Close the modal presentation holding the screen.
        case close
        /// Only wait for the screen.
        case expect
    }

    /// A line that could not be read: its number and why.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The 1-based line number.
        public var line: Int
        /// What is wrong and how to write it instead.
        public var reason: String
        /// `script line 3: ...`.
        public var description: String { "script line \(line): \(reason)" }
    }

    /// The steps in file order.
    public var steps: [Step]

    /// Parses script text.
    public init(parsing text: String) throws(ParseError) {
        var steps: [Step] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            let words = try Self.words(of: String(raw), line: line)
            guard !words.isEmpty else { continue }
            steps.append(try Self.step(words, line: line))
        }
        self.steps = steps
    }

    private static func step(_ words: [Word], line: Int) throws(ParseError) -> Step {
        guard words.count >= 3, case .bare("on") = words[0], case .bare(let kind) = words[1] else {
            throw ParseError(line: line, reason: "expected `on KIND [\"TITLE\"] [body \"TEXT\"] ACTION`, e.g. `on menu press 1`")
        }
        var rest = Array(words.dropFirst(2))
        var title: String?
        if case .quoted(let text) = rest.first {
            title = text
            rest.removeFirst()
        }
        var body: String?
        if case .bare("body") = rest.first {
            guard rest.count > 1, case .quoted(let text) = rest[1] else {
                throw ParseError(line: line, reason: "`body` takes the text the screen's body must contain in quotes, e.g. `body \"Ann 33\"`")
            }
            body = text
            rest.removeFirst(2)
        }
        guard case .bare(let verb)? = rest.first else {
            throw ParseError(line: line, reason: "missing action after `on \(kind)`; one of press, type, back, tab, close, expect")
        }
        let argument = rest.count > 1 ? rest[1] : nil
        guard rest.count <= 2 else { throw ParseError(line: line, reason: "too many words after `\(verb)`") }
        let action: Action
        switch (verb, argument) {
        case ("press", .bare(let number)?):
            guard let index = Int(number), index >= 1 else { throw ParseError(line: line, reason: "press takes a button number from 1 or a \"label\", got \(number)") }
            action = .press(index)
        case ("press", .quoted(let label)?): action = .pressLabel(label)
        case ("type", .quoted(let text)?): action = .type(text)
        case ("tab", .bare(let number)?):
            guard let index = Int(number), index >= 1 else { throw ParseError(line: line, reason: "tab takes a tab number from 1, got \(number)") }
            action = .tab(index)
        case ("back", nil): action = .back
        case ("close", nil): action = .close
        case ("expect", nil): action = .expect
        default:
            throw ParseError(line: line, reason: "unknown action `\(verb)`\(argument == nil ? "" : " with that argument"); use press N|\"label\", type \"text\", back, tab N, close or expect")
        }
        return Step(line: line, kind: kind, title: title, body: body, action: action)
    }

    private enum Word: Equatable {
        case bare(String)
        case quoted(String)
    }

    private static func words(of line: String, line number: Int) throws(ParseError) -> [Word] {
        var words: [Word] = []
        var iterator = line.makeIterator()
        var current = ""
        func endBare() {
            if !current.isEmpty { words.append(.bare(current)) }
            current = ""
        }
        while let character = iterator.next() {
            switch character {
            case "#":
                endBare()
                return words
            case " ", "\t", "\r":
                endBare()
            case "\"":
                endBare()
                var quoted = ""
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" { closed = true; break }
                    quoted.append(next)
                }
                guard closed else { throw ParseError(line: number, reason: "a quote is not closed") }
                words.append(.quoted(quoted))
            default:
                current.append(character)
            }
        }
        endBare()
        return words
    }
}
