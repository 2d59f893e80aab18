import DemoApps
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The user's place survives a new version of the app (docs/restore.md, "A new version of the
/// app"), through the real flowd and flowctl: the demo's launcher walked to a student's age, stopped,
/// and started as a new version (`FLOWD_DEMO_VERSION`, docs/demo.md) on the same journal.
@Suite("A new version of the app keeps the user's place")
struct NewVersionTests {
    @Test func theLauncherAsANewVersionShowsTheAgeEditorWithTheRealStackBehindIt() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--app", "launcher"]
        do {
            let old = try DaemonProcess(arguments: arguments, environment: ["FLOWD_PYTHON_SCREENS": "0"], directory: directory)
            let host = try RawClient(path: old.socketPath)
            try host.handshake(provides: BuiltInApps.kinds)
            var screen = try #require(try host.settle().compactMap(\.place).first { $0.kind == MenuScreen.kind }).screenID
            for (index, kind) in [(4, StudentListScreen.kind), (1, NameEditorScreen.kind), (0, AgeEditorScreen.kind)] {
                _ = try host.press(index, on: screen)
                screen = try #require(try host.settle().compactMap(\.place).first { $0.kind == kind }).screenID
            }
            #expect(try flowctl(["where"], old).stdout == "students/Bob/age\n")
            old.signal(SIGTERM)
            #expect(old.waitForExit() == 0, "\(old.logText)")
        }

        let new = try DaemonProcess(arguments: arguments, environment: ["FLOWD_PYTHON_SCREENS": "0", "FLOWD_DEMO_VERSION": "6"],
                                    directory: directory)
        #expect(new.waitForLog("upgraded the app from version 5 to 6: carried the place students/Bob/age"), "\(new.logText)")
        let host = try RawClient(path: new.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        let places = try host.settle().compactMap(\.place)
        #expect(places.map(\.kind) == [MenuScreen.kind, StudentListScreen.kind, NameEditorScreen.kind, AgeEditorScreen.kind],
                "the whole stack is placed again: \(places.map(\.kind))")
        let age = try #require(places.last)
        #expect(age.placement.visible)
        #expect(age.kind == AgeEditorScreen.kind, "the age editor is the visible screen")
        #expect(try flowctl(["where"], new).stdout == "students/Bob/age\n")
        let stats = try flowctl(["stats"], new)
        #expect(stats.stdout.contains("students/Bob/age (version 5)"), "\(stats.stdout)")
        #expect(stats.stdout.contains("journal archive   \(directory)/state/flowd/launcher@") && stats.stdout.contains(".journal.previous\n"),
                "the old journal's archive slot: \(stats.stdout)")

        // Back walks the real stack to the menu: each back uncovers the screen below.
        for (index, expected) in ["students/Bob", "students", "menu"].enumerated() {
            _ = try host.back(from: places[places.count - 1 - index].screenID)
            #expect(try flowctl(["where"], new).stdout == expected + "\n")
        }
    }

    /// The till stopped while its customer pays comes back as a new version with both windows where
    /// they were: the customer's window's place (`customer/pay`) is carried beside the main one's.
    @Test func theTillAsANewVersionKeepsTheCustomersWindowAndItsPayPrompt() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kinds = ["till", "customer", "customer-pay"]
        do {
            let old = try DaemonProcess(arguments: ["--app", "till"], directory: directory)
            let host = try RawClient(path: old.socketPath)
            try host.handshake(provides: kinds)
            let till = try #require(try host.settle().compactMap(\.place).first { $0.kind == "till" })
            for button in [2, 3] { // milk, take payment
                try host.press(button, on: till.screenID)
                _ = try host.settle()
            }
            #expect(try flowctl(["where"], old).stdout == "main: -\ncustomer: customer/pay\n")
            old.signal(SIGTERM)
            #expect(old.waitForExit() == 0, "\(old.logText)")
        }
        let new = try DaemonProcess(arguments: ["--app", "till"], environment: ["FLOWD_DEMO_VERSION": "2"], directory: directory)
        #expect(new.waitForLog("upgraded the app from version 1 to 2: carried the place the start + customer/pay, 1 of 1 memento"), "\(new.logText)")
        #expect(try flowctl(["where"], new).stdout == "main: -\ncustomer: customer/pay\n")
        let host = try RawClient(path: new.socketPath)
        try host.handshake(provides: kinds)
        let places = try host.settle().compactMap(\.place)
        let cashier = try #require(places.first { $0.kind == "till" })
        #expect((cashier.state.object["body"] as? String)?.contains("Waiting for the customer to pay 1.20") == true, "\(cashier.state.object)")
        let prompt = try #require(places.first { $0.kind == "customer-pay" })
        #expect(prompt.placement.path.first?.display == "customer" && prompt.placement.visible)
        try host.press(0, on: prompt.screenID)
        let paid = try #require(try host.settle().compactMap(\.update).last { $0.screenID == cashier.screenID })
        #expect((paid.state.object["body"] as? String)?.contains("Paid 1.20. Sale 1 done") == true, "\(paid.state.object)")
    }

    /// Sends `{"didEnterText":{"text":TEXT}}` for `screen`.
    static func enter(_ text: String, on screen: UInt64, _ host: RawClient) throws {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(Data(#"{"didEnterText":{"text":"\#(text)"}}"#.utf8))
        try host.send(.output(output))
    }

    /// The students' list as the list screen among `frames` shows it last (its buttons).
    static func studentButtons(_ frames: [Flowd_V1_Envelope]) throws -> [String] {
        let states = frames.compactMap { frame -> Flowd_V1_Payload? in
            switch frame.body {
            case .place(let place) where place.kind == StudentListScreen.kind: place.state
            default: nil
            }
        }
        return try CardState(binaryPayload: try #require(states.last).data).buttons
    }

    /// The demo's upgrade walk: an age edited, the launcher stopped and started as version 6 — the
    /// list keeps the age (the students flow's memento, carried), the upgrade says so in one info
    /// line, and a second upgrade (to 7) keeps one archive slot, the journal of version 6.
    @Test func theStudentsListSurvivesTwoUpgradesWithOneArchiveSlot() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["--app", "launcher"]
        do {
            let old = try DaemonProcess(arguments: arguments, environment: ["FLOWD_PYTHON_SCREENS": "0"], directory: directory)
            let host = try RawClient(path: old.socketPath)
            try host.handshake(provides: BuiltInApps.kinds)
            var screen = try #require(try host.settle().compactMap(\.place).first { $0.kind == MenuScreen.kind }).screenID
            for (index, kind) in [(4, StudentListScreen.kind), (1, NameEditorScreen.kind), (0, AgeEditorScreen.kind)] {
                _ = try host.press(index, on: screen)
                screen = try #require(try host.settle().compactMap(\.place).first { $0.kind == kind }).screenID
            }
            try Self.enter("30", on: screen, host)
            _ = try host.settle()
            _ = try host.press(0, on: screen)  // Done: back to Bob's editor
            _ = try host.settle()
            #expect(try flowctl(["where"], old).stdout == "students/Bob\n")
            old.signal(SIGTERM)
            #expect(old.waitForExit() == 0, "\(old.logText)")
        }
        for (version, before) in [("6", "5"), ("7", "6")] {
            let new = try DaemonProcess(arguments: arguments + ["--log-level", "info"],
                                        environment: ["FLOWD_PYTHON_SCREENS": "0", "FLOWD_DEMO_VERSION": version], directory: directory)
            #expect(new.waitForLog("upgraded the app from version \(before) to \(version)"), "\(new.logText)")
            let host = try RawClient(path: new.socketPath)
            try host.handshake(provides: BuiltInApps.kinds)
            let frames = try host.settle()
            #expect(try Self.studentButtons(frames) == ["Ann (20)", "Bob (30)", "Back to menu"], "the list kept Bob's age")
            #expect(try flowctl(["where"], new).stdout == "students/Bob\n")
            let lines = new.logText.split(separator: "\n").filter { $0.contains("upgraded the app") }
            #expect(lines.count == 1 && lines[0].contains(" info "), "one info line: \(lines)")
            #expect(lines.first?.contains("3 of 3 mementos") == true, "the launcher's, the list's and Bob's editor's: \(lines)")
            #expect(!new.logText.contains(" error ") && !new.logText.contains(" warning "), "\(new.logText)")
            new.signal(SIGTERM)
            #expect(new.waitForExit() == 0, "\(new.logText)")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory + "/state/flowd").filter { $0.contains(".journal.") && !$0.hasSuffix(".lock") }
        #expect(kept.count == 1 && kept[0].hasSuffix(".journal.previous"), "one archive slot after two upgrades: \(kept)")
    }
}
