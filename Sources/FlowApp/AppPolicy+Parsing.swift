/// The policy file: one rule a line (docs/daemon.md, "Who may do what").
///
/// ```
/// # comment (a line whose first non-blank character is #)
/// provide KIND[,KIND...] by PEERS      # who may provide these kinds (* : every kind not named)
/// provide KIND[,KIND...] only-factory  # only the process the kind's factory spawns
/// open-links by PEERS
/// display by PEERS                     # who may draw the screens (flowd-shell) and navigate any screen
/// debug inspect by PEERS               # read-only: tree, stats, events, history, audit
/// debug control by PEERS               # inspect, and inject and terminate
/// saved-state any-host | same-identity
/// ```
///
/// PEERS is `any`, `nobody`, or terms that must all hold: `uid=N`, `gid=N`, `exe=PATH`,
/// `unit=NAME`, `label=LABEL`, `factory=KIND` (or `factory=*`). Lines of one kind add up: a peer
/// matching any of them is admitted.
extension AppPolicy {
    /// A policy file that cannot be used: where, and why.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file (or any name the caller gave the text).
        public var source: String
        /// The line, from 1.
        public var line: Int
        /// What is wrong with it.
        public var reason: String

        public var description: String { "\(source):\(line): \(reason)" }
    }

    /// Reads a policy from `text`; `source` names it in errors and in the rules' origins.
    /// An empty file (or only comments) is the default policy.
    public init(parsing text: String, source: String) throws(ParseError) {
        self.init()
        var sawSavedState = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = index + 1
            let line = raw.trimmingWhitespace
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let origin = "\(source):\(number)"
            func fail(_ reason: String) -> ParseError {
                ParseError(source: source, line: number, reason: "\(reason): `\(line.prefix(200))`")
            }
            switch words[0] {
            case "provide":
                guard words.count >= 3 else { throw fail("`provide` needs kinds, then `by PEERS` or `only-factory`") }
                let kinds = words[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard !kinds.contains(where: \.isEmpty) else { throw fail("an empty kind in `\(words[1])` (kinds are comma-separated, no spaces)") }
                if words[2] == "only-factory" {
                    guard words.count == 3 else { throw fail("nothing may follow `only-factory`") }
                    hosting.append(Hosting(kinds: kinds, peers: nil, origin: origin))
                } else {
                    let peers = try Self.peers(after: 2, in: words, fail)
                    hosting.append(Hosting(kinds: kinds, peers: peers, origin: origin))
                }
            case "open-links":
                let peers = try Self.peers(after: 1, in: words, fail)
                links = (links ?? []) + [Grant(peers, origin: origin)]
            case "display":
                let peers = try Self.peers(after: 1, in: words, fail)
                displays = (displays ?? []) + [Grant(peers, origin: origin)]
            case "debug":
                guard words.count >= 2, let power = ["inspect": DebugPower.inspect, "control": .control][words[1]] else {
                    throw fail("`debug` takes a power, `inspect` or `control`, then `by PEERS`")
                }
                let peers = try Self.peers(after: 2, in: words, fail)
                debug = (debug ?? []) + [DebugGrant(power, peers, origin: origin)]
            case "saved-state":
                guard words.count == 2, let choice = SavedState(rawValue: words[1]) else {
                    throw fail("`saved-state` takes one of `any-host`, `same-identity`")
                }
                guard !sawSavedState else { throw fail("a second `saved-state` line") }
                sawSavedState = true
                savedState = choice
            default:
                throw fail("unknown rule `\(words[0].prefix(40))`; a line starts with provide, open-links, display, debug, saved-state or #")
            }
        }
    }

    /// `by PEERS` from `words[index...]`.
    private static func peers(after index: Int, in words: [String], _ fail: (String) -> ParseError) throws(ParseError) -> Peers {
        guard words.count > index, words[index] == "by" else { throw fail("expected `by PEERS` after `\(words[..<min(index, words.count)].joined(separator: " "))`") }
        let terms = words[(index + 1)...]
        guard !terms.isEmpty else { throw fail("`by` needs peers: any, nobody, or terms such as uid=1000 exe=/usr/bin/host") }
        if terms.count == 1, terms.first == "any" { return .any }
        if terms.count == 1, terms.first == "nobody" { return .nobody }
        var peers = Peers()
        for term in terms {
            guard let equals = term.firstIndex(of: "="), equals != term.startIndex, term.index(after: equals) != term.endIndex else {
                throw fail("`\(term.prefix(60))` is not a term (NAME=VALUE: uid, gid, exe, unit, label, factory), nor any or nobody alone")
            }
            let name = String(term[..<equals])
            let value = String(term[term.index(after: equals)...])
            func once<T>(_ field: T?) throws(ParseError) {
                guard field == nil else { throw fail("`\(name)` twice in one rule (write a second line for another peer)") }
            }
            switch name {
            case "uid", "gid":
                guard let id = UInt32(value) else { throw fail("\(name) `\(value.prefix(40))` is not a number") }
                if name == "uid" {
                    try once(peers.uid)
                    peers.uid = id
                } else {
                    try once(peers.gid)
                    peers.gid = id
                }
            case "exe":
                guard value.hasPrefix("/") else { throw fail("exe `\(value.prefix(60))` is not an absolute path") }
                try once(peers.executable)
                peers.executable = value
            case "unit":
                try once(peers.unit)
                peers.unit = value
            case "label":
                try once(peers.securityLabel)
                peers.securityLabel = value
            case "factory":
                try once(peers.factory)
                peers.factory = value
            default:
                throw fail("unknown term `\(name.prefix(40))`; the terms are uid, gid, exe, unit, label, factory")
            }
        }
        return peers
    }

    /// The policy as a file says it (`AppPolicy(parsing:)` reads it back to an equal policy, but
    /// for the rules' origins).
    public var fileText: String {
        var lines: [String] = []
        lines += hosting.map(\.description)
        lines += (links ?? []).map { "open-links by \($0.peers)" }
        lines += (displays ?? []).map { "display by \($0.peers)" }
        lines += (debug ?? []).map(\.description)
        if savedState != .anyHost { lines.append("saved-state \(savedState.rawValue)") }
        return lines.joined(separator: "\n")
    }
}

extension Substring {
    /// Without leading and trailing blanks (spaces, tabs, a carriage return).
    fileprivate var trimmingWhitespace: Substring {
        var copy = self
        while let first = copy.first, first == " " || first == "\t" || first == "\r" { copy.removeFirst() }
        while let last = copy.last, last == " " || last == "\t" || last == "\r" { copy.removeLast() }
        return copy
    }
}
