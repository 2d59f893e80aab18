import DemoApps
import FlowWire
import FlowdTestSupport
import Foundation
import Testing

/// Deep links into a live daemon (docs/flows.md "Links", docs/protocol.md §21): `flowctl open` and a
/// raw client's `OpenLink` on the launcher, and the real stack behind the opened screen.
@Suite("open links")
struct OpenLinkIntegrationTests {
    @Test func flowctlOpenStudentsBobAgeThenBackWalksTheRealStackToTheMenu() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        _ = try host.settle()
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "open-test")

        let run = try flowctl(["open", "students/Bob/age"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("opened students/Bob/age") && run.stdout.contains("started flows"), "\(run.stdout)")
        _ = try host.settle()
        var tree = try debug.tree()
        #expect(tree.flowTypes.suffix(3).map { $0.split(separator: ".").last.map(String.init) ?? $0 }
                    == ["StudentsFlow", "EditStudentFlow", "EditAgeFlow"], "\(tree.flowTypes)")
        let age = try #require(tree.visibleScreens.first)
        #expect(age.1 == AgeEditorScreen.kind, "\(tree.visibleScreens)")

        // Back from the age editor: Bob's name editor, then the list, then the menu.
        for expected in [NameEditorScreen.kind, StudentListScreen.kind, MenuScreen.kind] {
            let top = try #require(tree.visibleScreens.first)
            let back = try flowctl(["back", "\(top.0)"], daemon)
            #expect(back.status == 0, "\(back.stderr)")
            _ = try host.settle()
            tree = try debug.tree()
            #expect(tree.visibleScreens.first?.1 == expected, "\(tree.visibleScreens)")
        }

        // Errors are typed, change nothing, and say what was wrong.
        let before = try debug.tree()
        let unknown = try flowctl(["open", "students/Zed/age"], daemon)
        #expect(unknown.status != 0 && unknown.stderr.contains("UNKNOWN_LINK") || unknown.stderr.contains("Zed"), "\(unknown.stderr)")
        let bad = try flowctl(["open", "students//age"], daemon)
        #expect(bad.status != 0 && !bad.stderr.isEmpty)
        let after = try debug.tree()
        #expect(after.rootFlow == before.rootFlow && after.window == before.window)
    }

    @Test func aScreenHostOpensALinkAndGetsLinkOpened() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        _ = try host.settle()
        var request = Flowd_V1_OpenLink()
        request.link = "directory/events/Party"
        let seq = try host.send(.openLink(request))
        let frames = try host.settle()
        let answer = try #require(frames.first { $0.replyTo == seq })
        guard case .linkOpened(let opened) = answer.body else {
            Issue.record("expected LinkOpened, got \(String(describing: answer.body))")
            return
        }
        #expect(opened.link == "directory/events/Party")
        #expect(opened.visibleScreen != 0 && !opened.started.isEmpty)
        let placed = frames.compactMap(\.place)
        #expect(placed.contains { $0.screenID == opened.visibleScreen }, "the opened screen was placed on this host")
    }

    @Test func flowdOpenStartsInThePartyScreenAndClosingTheModalReportsAsAfterAWalk() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--open", "directory/events/Party"],
                                       environment: ["FLOWD_PYTHON_SCREENS": "0"])
        #expect(daemon.waitForLog("opened the link given with --open"), "\(daemon.logText)")
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        let placed = try host.settle().compactMap(\.place)
        let party = try #require(placed.first { $0.kind == DirectoryDetailScreen.kind && $0.placement.visible }, "\(placed.map(\.kind))")
        #expect(String(decoding: party.state.data, as: UTF8.self).contains("Party"))
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "open-test")
        #expect((try debug.tree()).flowTypes.contains { $0.hasSuffix("ContactsAndEventsFlow") })

        // Closing the modal returns to the menu, which shows the app's result as after a walk.
        let close = try flowctl(["close-modal", "\(party.screenID)"], daemon)
        #expect(close.status == 0, "\(close.stderr)")
        let after = try host.settle()
        let menuState = after.compactMap { frame -> String? in
            if case .update(let update)? = frame.body { return String(decoding: update.state.data, as: UTF8.self) }
            return nil
        }
        #expect(menuState.contains { $0.contains("Contacts and events: modal closed by the user") }, "\(menuState)")
        #expect((try debug.tree()).visibleScreens.first?.1 == MenuScreen.kind)
    }

    @Test func aLinkTheFlowsDoNotOpenLeavesTheAppAtItsStartAndSaysWhy() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher", "--open", "students/Zed/age"],
                                       environment: ["FLOWD_PYTHON_SCREENS": "0"])
        #expect(daemon.waitForLog("was not opened"), "\(daemon.logText)")
        #expect(daemon.logText.contains("Zed"))
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        #expect(try host.settle().compactMap(\.place).map(\.kind) == [MenuScreen.kind], "the menu, as on any start")
    }

    @Test func aRecordedLinkReplaysToTheSamePlacements() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
        let file = daemon.directory + "/links.rec"
        let recorder = try FlowctlProcess(["record", file, "--socket", daemon.socketPath])
        #expect(recorder.waitForStderr("recording flowd at"))
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: BuiltInApps.kinds)
        _ = try host.settle()
        #expect(try flowctl(["open", "students/Bob/age"], daemon).status == 0)
        _ = try host.settle()
        #expect(try flowctl(["open", "directory/events/Party"], daemon).status == 0, "from another place: unwound to the menu first")
        _ = try host.settle()
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit() == 0, "\(recorder.stderr)")
        let replay = try ProductRun.run("flowd", ["replay", file])
        #expect(replay.status == 0 && replay.stdout.contains("same placements ("), "\(replay.stdout) \(replay.stderr)")
    }

    @Test func theTreeAfterOpenIsTheTreeAfterWalkingThereByHand() throws {
        func launcher() throws -> (DaemonProcess, RawClient, RawClient, UInt64) {
            let daemon = try DaemonProcess(arguments: ["--app", "launcher"], environment: ["FLOWD_PYTHON_SCREENS": "0"])
            let host = try RawClient(path: daemon.socketPath)
            try host.handshake(provides: BuiltInApps.kinds)
            let menu = try #require(try host.settle().compactMap(\.place).first { $0.kind == MenuScreen.kind })
            let debug = try RawClient(path: daemon.socketPath)
            try debug.handshake(role: .debug, name: "tree")
            return (daemon, host, debug, menu.screenID)
        }
        // By hand: the menu's Student editor, Bob, Edit age.
        let (walked, walker, walkedDebug, walkedMenu) = try launcher()
        var screen = walkedMenu
        for (index, kind) in [(4, StudentListScreen.kind), (1, NameEditorScreen.kind), (0, AgeEditorScreen.kind)] {
            _ = try walker.press(index, on: screen)
            screen = try #require(try walker.settle().compactMap(\.place).first { $0.kind == kind }).screenID
        }
        // By link.
        let (linked, linker, linkedDebug, _) = try launcher()
        #expect(try flowctl(["open", "students/Bob/age"], linked).status == 0)
        _ = try linker.settle()
        #expect((try linkedDebug.tree()).shapeLines == (try walkedDebug.tree()).shapeLines, "the same flows and screens, id for id")
        // Where each is, as a link: the place walked to by hand, and the one opened, say the same.
        let walkedPlace = try flowctl(["where"], walked)
        #expect(walkedPlace.status == 0 && walkedPlace.stdout == "students/Bob/age\n", "\(walkedPlace.stdout) \(walkedPlace.stderr)")
        #expect(try flowctl(["where"], linked).stdout == "students/Bob/age\n")
        // Opening where the user is changes nothing.
        let before = try walkedDebug.tree().shapeLines
        #expect(try flowctl(["open", "students/Bob/age"], walked).status == 0)
        _ = try walker.settle()
        #expect(try walkedDebug.tree().shapeLines == before)
    }

    @Test func flowctlWhereWithoutALinkNamingThePlaceExitsOne() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item"])
        _ = try host.settle()
        let run = try flowctl(["where"], daemon)
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr.contains("no link names where the user is in app deep-stack"), "\(run.stderr)")
    }
}
