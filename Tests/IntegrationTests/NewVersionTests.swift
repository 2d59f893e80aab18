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
        #expect(new.waitForLog("the place it was at is open again in this version"), "\(new.logText)")
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

        // Back walks the real stack to the menu: each back uncovers the screen below.
        for (index, expected) in ["students/Bob", "students", "menu"].enumerated() {
            _ = try host.back(from: places[places.count - 1 - index].screenID)
            #expect(try flowctl(["where"], new).stdout == expected + "\n")
        }
    }
}
