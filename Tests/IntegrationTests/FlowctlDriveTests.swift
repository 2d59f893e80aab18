import FlowWire
import Foundation
import Testing
import FlowdTestSupport

/// `flowctl inject`, `back` and `terminate` driving flows of a live daemon.
@Suite("flowctl drive")
struct FlowctlDriveTests {
    @Test func injectAndBackDriveTheTutorialToItsResult() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        let next = #"{"didPressButton":{"index":1}}"#

        // Inject "Next" with a process we know the pid of: the daemon logs it.
        let injector = try FlowctlProcess(["inject", "\(welcome.screenID)", next, "--socket", daemon.socketPath])
        #expect(injector.waitForExit() == 0)
        #expect(injector.stdout.contains("output delivered to the flow owning screen \(welcome.screenID)"))
        #expect(daemon.waitForLog("debug client injected an output"))
        #expect(daemon.logText.contains("pid=\(injector.process.processIdentifier)"), "\(daemon.logText)")
        let done = try #require(try host.settle().compactMap(\.place).first)

        // Back from "All set" pops it; Next pushes a new one.
        var run = try flowctl(["back", "\(done.screenID)"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "back(committed) applied on screen \(done.screenID)\n", "as docs/flowctl.md shows: \(run.stdout)")
        #expect(try host.settle().compactMap(\.dismiss).map(\.screenID) == [done.screenID])
        #expect(try flowctl(["back", "\(welcome.screenID)"], daemon).status == 1)  // the root of its stack
        #expect(try flowctl(["inject", "\(welcome.screenID)", next], daemon).status == 0)
        let again = try #require(try host.settle().compactMap(\.place).first)

        // Bad input is refused: not JSON (usage, 64), unknown screen (1).
        run = try flowctl(["inject", "\(again.screenID)", "{not json"], daemon)
        #expect(run.status == 64)
        #expect(run.stderr.contains("not valid JSON"))
        run = try flowctl(["inject", "999", next], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("screen 999 is not live"))

        // "Done" finishes the flow: the app unwinds and the daemon exits 0.
        #expect(try flowctl(["inject", "\(again.screenID)", #"{"didPressButton":{"index":0}}"#], daemon).status == 0)
        var dismissed: [UInt64] = []
        while let frame = try host.receive() {
            if let dismiss = frame.dismiss { dismissed.append(dismiss.screenID) }
            try host.ackAll([frame])
        }
        #expect(dismissed == [again.screenID, welcome.screenID])
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.logText.contains("app tutorial finished with completed"))
    }

    /// The README's tour works from wherever the user is: without an id, inject, back and close-modal
    /// act on the visible screen and terminate on the flow that shows it (never the root by default).
    @Test func withoutAnIdTheCommandsActOnTheVisibleScreen() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)

        // A button the screen does not show is refused with what it shows, and changes nothing.
        var run = try flowctl(["inject", #"{"didPressButton":{"index":99}}"#], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("shows 2 buttons (index 0 to 1: 'Skip', 'Next'); there is no button 99"), "\(run.stderr)")
        #expect(try host.settle().isEmpty)

        run = try flowctl(["inject", #"{"didPressButton":{"index":1}}"#], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("output delivered to the flow owning screen \(welcome.screenID)"), "\(run.stdout)")
        let done = try #require(try host.settle().compactMap(\.place).first)

        run = try flowctl(["back"], daemon)
        #expect(run.stdout == "back(committed) applied on screen \(done.screenID)\n", "\(run.stdout) \(run.stderr)")
        #expect(try host.settle().compactMap(\.dismiss).map(\.screenID) == [done.screenID])

        // The visible screen is the root flow's: terminate without an id refuses to end the app.
        run = try flowctl(["terminate"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("belongs to the app's root flow (") && run.stderr.contains("terminating it ends the app"), "\(run.stderr)")
        #expect(try flowctl(["ping"], daemon).status == 0)
        run = try flowctl(["inject", "x", "{}"], daemon)
        #expect(run.status == 64)
        #expect(run.stderr.contains("SCREEN must be a screen id"), "\(run.stderr)")
    }

    @Test func terminateWithoutAnIdEndsTheFlowShowingTheVisibleScreen() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let host = try RawClient(path: daemon.socketPath)
        let (_, detail, pushed) = try host.walkModalAppToAPushInTheModal()
        let terminator = try FlowctlProcess(["terminate", "--socket", daemon.socketPath])
        var dismissed: [UInt64] = []
        while dismissed.count < 2, let frame = try host.receive() {
            if let dismiss = frame.dismiss { dismissed.append(dismiss.screenID) }
            try host.ackAll([frame])
        }
        #expect(dismissed == [pushed.screenID, detail.screenID])
        #expect(terminator.waitForExit() == 0, "\(terminator.stderr)")
        #expect(terminator.stdout.contains("terminated ModalDetailFlow flow#2"), "\(terminator.stdout)")
    }

    @Test func terminateUnwindsASubtree() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let host = try RawClient(path: daemon.socketPath)
        let (home, detail, pushed) = try host.walkModalAppToAPushInTheModal()
        #expect(detail.flowID == 2 && pushed.flowID == 2)

        // flowctl waits for the unwinding: the host acks each Dismiss, top-most first.
        let terminator = try FlowctlProcess(["terminate", "2", "--socket", daemon.socketPath])
        var dismissed: [UInt64] = []
        while dismissed.count < 2, let frame = try host.receive() {
            if let dismiss = frame.dismiss {
                dismissed.append(dismiss.screenID)
                #expect(dismiss.reason == .flowTerminated)
            }
            try host.ackAll([frame])
        }
        #expect(dismissed == [pushed.screenID, detail.screenID])
        #expect(terminator.waitForExit() == 0, "\(terminator.stderr)")
        #expect(terminator.stdout.contains("terminated ModalDetailFlow flow#2; 2 screens unwound"), "\(terminator.stdout)")
        #expect(daemon.logText.contains("debug client terminates a flow"))
        #expect(daemon.logText.contains("pid=\(terminator.process.processIdentifier)"))

        let tree = try flowctl(["tree"], daemon).stdout
        #expect(tree.contains("flowd app modal: 1 flow, 1 screen,"), "\(tree)")
        #expect(!tree.contains("ModalDetailFlow"))
        #expect(try host.settle().compactMap(\.placementChanged).map(\.screenID) == [home.screenID])

        let run = try flowctl(["terminate", "2"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("no such flow is running"))
    }

    @Test func noDaemonEveryCommandExits69() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        for arguments in [["tree"], ["dot"], ["watch"], ["record", directory + "/r.rec"], ["inject", "1", "{}"], ["back", "1"],
                          ["select-tab", "1", "1"], ["close-modal", "1"], ["terminate", "1"], ["stats"]] {
            let run = try ProductRun.run("flowctl", arguments + ["--socket", path])
            #expect(run.status == 69, "\(arguments)")
            #expect(run.stderr.contains("no flowd at \(path): nothing is there; start one with"), "\(arguments): \(run.stderr)")
        }
        // Something else at the path: said, and never "start flowd on it".
        for (path, what) in [("/etc/passwd", "is not a socket but a file"), (directory, "is a directory, not a socket")] {
            let run = try ProductRun.run("flowctl", ["tree", "--socket", path])
            #expect(run.status == 69)
            #expect(run.stderr.contains("\(path) \(what)"), "\(run.stderr)")
            #expect(!run.stderr.contains("start one with"), "\(run.stderr)")
        }
    }

    @Test func everyCommandHasHelpWithExamples() throws {
        for command in ["ping", "stats", "tree", "dot", "watch", "record", "inject", "back", "select-tab", "close-modal", "terminate"] {
            let run = try ProductRun.run("flowctl", [command, "--help"])
            #expect(run.status == 0, "\(command)")
            #expect(run.stdout.contains("Examples:"), "\(command)")
            #expect(run.stdout.contains("--socket"), "\(command)")
        }
        let unknown = try ProductRun.run("flowctl", ["watch", "--kind", "nonsense"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown event kind 'nonsense'"))
    }
}
