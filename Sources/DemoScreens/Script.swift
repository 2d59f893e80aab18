/// A script of user actions for `demo-screens --script` (docs/demo.md):
/// one step per line, `on KIND ["TITLE"] ACTION [ARGUMENT]`, `#` comments.
///
///     on menu press "Onboarding tutorial"
///     on tutorial "Welcome" press 2
///     on tutorial "All set" expect
///     on student-age type "33"
///     on summary back
///
/// A step waits until the visible screen is of KIND (and its title contains
/// TITLE), then acts on it. Actions: `press N` (buttons count from 1, as
/// drawn) or `press "Label"`, `type "text"`, `back`, `tab N`, `close`,
/// `expect` (only wait).
public struct Script: Sendable, Equatable {
    /// One step.
    public struct Step: Sendable, Equatable {
        /// The 1-based line it came from.
        public var line: Int
        public var kind: String
        /// A substring the visible screen's title must contain, if any.
        public var title: String?
        public var action: Action
    }

    /// What a step does to the matching screen.
    public enum Action: Sendable, Equatable {
        case press(Int)
        case pressLabel(String)
        case type(String)
        case back
        case tab(Int)
        case close
        case expect
    }

    /// A line that could not be read: its number and why.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var line: Int
        public var reason: String
        public var description: String { "script line \(line): \(reason)" }
    }

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
            throw ParseError(line: line, reason: "expected `on KIND [\"TITLE\"] ACTION`, e.g. `on menu press 1`")
        }
        var rest = Array(words.dropFirst(2))
        var title: String?
        if case .quoted(let text) = rest.first {
            title = text
            rest.removeFirst()
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
        return Step(line: line, kind: kind, title: title, action: action)
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
