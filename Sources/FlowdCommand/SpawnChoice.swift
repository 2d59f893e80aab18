import ArgumentParser

/// One `--spawn-screens` value: an executable spawned for every kind of the app, or, as
/// `KINDS=EXECUTABLE`, for the kinds named only (docs/daemon.md, "Screen factories").
package struct SpawnChoice: Equatable, Sendable {
    /// The kinds it spawns for; nil for every kind of the app.
    package var kinds: [String]?
    /// The executable, as given (a name without a slash is looked up next to the daemon, then in `PATH`).
    package var executable: String

    /// Parses `text`: `EXECUTABLE`, or `KIND,...=EXECUTABLE` when the part before the first `=` has no slash
    /// (so a path with `=` in a folder's name is still an executable).
    package init(parsing text: String) throws(ValidationError) {
        guard let equals = text.firstIndex(of: "="), !text[..<equals].contains(Character("/")) else {
            guard !text.isEmpty else { throw ValidationError("--spawn-screens needs an executable, or KINDS=EXECUTABLE; got nothing") }
            self.init(kinds: nil, executable: text)
            return
        }
        let kinds = text[..<equals].split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingSpaces)
        let executable = String(text[text.index(after: equals)...])
        guard !kinds.contains(""), !executable.isEmpty else {
            throw ValidationError("--spawn-screens takes EXECUTABLE or KINDS=EXECUTABLE with kinds comma-separated (login,login-success=flowd-qt), got '\(text)'")
        }
        self.init(kinds: kinds, executable: executable)
    }

    /// A choice as parsed: `kinds` nil for every kind.
    package init(kinds: [String]?, executable: String) {
        self.kinds = kinds
        self.executable = executable
    }

    /// The factories `choices` make, per kind, for an app with `appKinds`: the executable given without kinds
    /// for every kind, then each named kind's own, whatever their order on the command line. Two executables
    /// for every kind, a kind named twice or a kind the app does not have are errors that say which.
    package static func executables(_ choices: [SpawnChoice], appKinds: [String], app: String) throws(ValidationError) -> [String: String] {
        let everyKind = choices.filter { $0.kinds == nil }
        guard everyKind.count <= 1 else {
            throw ValidationError("--spawn-screens names \(everyKind.count) executables for every kind (\(everyKind.map(\.executable).joined(separator: ", "))); give one, and KINDS=EXECUTABLE for the others")
        }
        var chosen: [String: String] = [:]
        if let every = everyKind.first {
            for kind in appKinds { chosen[kind] = every.executable }
        }
        var named: Set<String> = []
        for choice in choices {
            for kind in choice.kinds ?? [] {
                guard appKinds.contains(kind) else {
                    throw ValidationError("--spawn-screens: app \(app) has no kind \(kind); its kinds are \(appKinds.joined(separator: ", "))")
                }
                guard named.insert(kind).inserted else { throw ValidationError("--spawn-screens names kind \(kind) twice") }
                chosen[kind] = choice.executable
            }
        }
        return chosen
    }
}
