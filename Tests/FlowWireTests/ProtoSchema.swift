import Foundation

/// The messages declared in `proto/flowd/v1/*.proto`, read with a small line
/// parser that knows what those files use: `package`, nested `message`,
/// `enum` and `oneof` blocks, and fields `[repeated|optional] type name = N;`
/// (one declaration per line, `//` comments).
struct ProtoSchema {
    /// One field of a message.
    struct Field: Equatable {
        /// The field's name in the .proto.
        var name: String
        /// The field number.
        var number: Int
        /// The type as written (`uint64`, `Payload`, `Dismiss.Reason`, `map<...>`).
        var type: String
        /// The full name of the oneof holding it (`flowd.v1.Envelope.body`), if any.
        var oneof: String?
    }

    /// Fields by message full name (`flowd.v1.Envelope`).
    var messages: [String: [Field]] = [:]
    /// Full names of every enum declared.
    var enums: Set<String> = []

    /// Parses every .proto file under `directory`.
    init(directory: String) throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".proto") }
            .sorted()
        for file in files {
            try parse(String(contentsOfFile: directory + "/" + file, encoding: .utf8))
        }
    }

    /// The full name of the message or enum that `type`, used inside `scope` (a message's full name), refers to.
    func resolve(_ type: String, in scope: String) -> String? {
        var outer = scope
        while !outer.isEmpty {
            let candidate = outer + "." + type
            if messages[candidate] != nil || enums.contains(candidate) { return candidate }
            outer = outer.split(separator: ".").dropLast().joined(separator: ".")
        }
        return messages[type] != nil || enums.contains(type) ? type : nil
    }

    private mutating func parse(_ text: String) throws {
        enum Block { case message(String), enumeration, oneof(String) }
        var package = ""
        var blocks: [Block] = []
        let field = /^(?:repeated\s+|optional\s+)?(map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*(\d+)/
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            let scope: String? = blocks.reversed().lazy.compactMap { if case .message(let name) = $0 { name } else { nil } }.first
            if let match = line.wholeMatch(of: /package\s+([\w.]+)\s*;/) {
                package = String(match.1)
            } else if let match = line.wholeMatch(of: /message\s+(\w+)\s*\{(\s*\})?/) {
                let name = (scope ?? package) + "." + match.1
                messages[name] = messages[name] ?? []
                if match.2 == nil { blocks.append(.message(name)) }  // `message Empty {}` opens no block
            } else if let match = line.wholeMatch(of: /enum\s+(\w+)\s*\{/) {
                enums.insert((scope ?? package) + "." + match.1)
                blocks.append(.enumeration)
            } else if let match = line.wholeMatch(of: /oneof\s+(\w+)\s*\{/), let scope {
                blocks.append(.oneof(scope + "." + match.1))
            } else if line.hasPrefix("}") {
                guard blocks.popLast() != nil else { throw ParseError(line: String(rawLine)) }
            } else if let match = line.prefixMatch(of: field), let scope {
                switch blocks.last {
                case .message, .oneof:
                    var oneof: String?
                    if case .oneof(let name) = blocks.last { oneof = name }
                    messages[scope, default: []].append(
                        Field(name: String(match.2), number: Int(match.3)!, type: String(match.1), oneof: oneof))
                default:
                    break  // an enum value (`NAME = 1;` has no type, but `option x = 1;` could match)
                }
            }
        }
        guard blocks.isEmpty else { throw ParseError(line: "end of file inside a block") }
    }

    /// A line the parser does not understand.
    struct ParseError: Error {
        /// The offending line.
        var line: String
    }
}
