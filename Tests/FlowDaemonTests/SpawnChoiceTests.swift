import FlowdCommand
import Testing

/// `--spawn-screens [KINDS=]EXECUTABLE`: one program for every kind, others for the kinds named
/// (docs/daemon.md, "Screen factories"; the shell tests' `mixed` runs it with flowd-gtk and flowd-qt).
struct SpawnChoiceTests {
    let kinds = ["login", "login-success", "menu", "students"]

    func executables(_ values: [String]) throws -> [String: String] {
        try SpawnChoice.executables(values.map { try SpawnChoice(parsing: $0) }, appKinds: kinds, app: "launcher")
    }

    func refusal(_ values: [String]) -> String? {
        do {
            _ = try executables(values)
            return nil
        } catch {
            return "\(error)" // ArgumentParser's ValidationError: its message
        }
    }

    @Test func parsesAnExecutableOrKindsAndAnExecutable() throws {
        #expect(try SpawnChoice(parsing: "flowd-gtk") == SpawnChoice(kinds: nil, executable: "flowd-gtk"))
        #expect(try SpawnChoice(parsing: "login, login-success=/opt/bin/flowd-qt")
            == SpawnChoice(kinds: ["login", "login-success"], executable: "/opt/bin/flowd-qt"))
        // An `=` after a slash is part of a path.
        #expect(try SpawnChoice(parsing: "/opt/a=b/host") == SpawnChoice(kinds: nil, executable: "/opt/a=b/host"))
        for bad in ["", "=flowd-qt", "login,=flowd-qt", "login="] {
            #expect(throws: (any Error).self, "\(bad)") { try SpawnChoice(parsing: bad) }
        }
    }

    @Test func namedKindsWinOverEveryKindWhateverTheOrder() throws {
        let expected = ["login": "qt", "login-success": "qt", "menu": "gtk", "students": "gtk"]
        #expect(try executables(["gtk", "login,login-success=qt"]) == expected)
        #expect(try executables(["login,login-success=qt", "gtk"]) == expected)
        // Without an executable for every kind, the others keep the app's own factories.
        #expect(try executables(["menu=gtk", "login=qt"]) == ["menu": "gtk", "login": "qt"])
    }

    @Test func refusesWhatCannotBeMeant() {
        #expect(refusal(["gtk", "qt"])?.contains("2 executables for every kind (gtk, qt)") == true)
        #expect(refusal(["gtk", "login=qt", "login=other"]) == "--spawn-screens names kind login twice")
        #expect(refusal(["logon=qt"]) == "--spawn-screens: app launcher has no kind logon; its kinds are login, login-success, menu, students")
    }
}
