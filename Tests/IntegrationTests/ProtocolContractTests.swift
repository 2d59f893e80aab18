import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// Where docs/protocol.md and the daemon once disagreed, the page is held to its word at the socket:
/// frame-size floor, role violations, tab (de)selection, modal presenters, pings, stalled frames,
/// lost screens.
@Suite("flowd keeps docs/protocol.md's word")
struct ProtocolContractTests {
    /// §4: a `max_frame_size` from 1 to 4095 is refused; 4096 is the floor and is granted.
    @Test func aFrameSizeBelow4096IsRefusedAnd4096IsGranted() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let small = try RawClient(path: daemon.socketPath)
        var hello = Flowd_V1_Hello()
        hello.minVersion = 1
        hello.maxVersion = 1
        hello.role = .debug
        hello.maxFrameSize = 4095
        try small.send(.hello(hello))
        let refused = try small.receiveUntilClosed()
        #expect(refused.first?.error?.code == .unexpectedMessage)
        #expect(refused.first?.error?.fatal == true)
        #expect(refused.first?.error?.message.contains("4096") == true, "\(refused)")

        let floor = try RawClient(path: daemon.socketPath)
        hello.maxFrameSize = 4096
        try floor.send(.hello(hello))
        guard case .welcome(let welcome)? = try floor.receive()?.body else {
            Issue.record("expected Welcome for max_frame_size 4096")
            return
        }
        #expect(welcome.maxFrameSize == 4096)
    }

    /// §5: a message the role may not send is `UNEXPECTED_MESSAGE`, in both directions.
    @Test(arguments: [Flowd_V1_Role.screenHost, .debug])
    func aMessageForTheOtherRoleIsUnexpected(role: Flowd_V1_Role) throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let client = try RawClient(path: daemon.socketPath)
        try client.handshake(role: role)
        if role == .screenHost {
            try client.send(.getStats(Flowd_V1_GetStats()))
        } else {
            var output = Flowd_V1_Output()
            output.screenID = 2
            output.payload = .json(Data("{}".utf8))
            try client.send(.output(output))
        }
        let frames = try client.receiveUntilClosed()
        #expect(frames.first?.error?.code == .unexpectedMessage, "\(frames.map(\.bodyName))")
        #expect(frames.first?.error?.fatal == true)
    }

    /// §6/§9: selecting a tab tells the screens `CHANGE_TAB_SELECTED` / `CHANGE_TAB_DESELECTED`.
    @Test func selectingATabSaysTabSelectedAndDeselected() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "mirror"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item", "tutorial"])
        let placed = try host.settle().compactMap(\.place)
        let left = try #require(placed.first { $0.kind == "item" })
        let right = try #require(placed.first { $0.kind == "tutorial" })
        #expect(left.placement.visible && !right.placement.visible)

        var select = Flowd_V1_UserNavigation()
        select.screenID = left.screenID
        var tab = Flowd_V1_SelectTab()
        tab.index = 1
        select.selectTab = tab
        try host.send(.userNavigation(select))
        let changes = try host.settle().compactMap(\.placementChanged)
        #expect(changes.first { $0.screenID == left.screenID }?.change == .tabDeselected, "\(changes)")
        #expect(changes.first { $0.screenID == right.screenID }?.change == .tabSelected, "\(changes)")
        #expect(changes.first { $0.screenID == right.screenID }?.placement.visible == true)

        // A push or a modal is still covering; only a tab switch says tab.
        #expect(!changes.contains { $0.change == .covered || $0.change == .uncovered })
    }

    /// §7: a modal presented on a screen names that screen, as `flowctl tree` draws it under the screen.
    @Test func aModalOnAScreenNamesItsPresenter() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let (home, detail, _) = try RawClient(path: daemon.socketPath).walkModalAppToAPushInTheModal()
        let presented = try #require(detail.placement.path.first { $0.presented })
        #expect(presented.kind == .stack)
        #expect(presented.presenterID == home.screenID, "\(detail.placement.path)")
        // The presenting screen is not on the path; its stack is, before the presented one.
        #expect(detail.placement.path.map(\.kind) == [.window, .stack, .stack, .screen])
        #expect(detail.placement.path.filter { !$0.presented }.allSatisfy { $0.presenterID == 0 })

        let tree = try flowctl(["tree"], daemon).stdout.split(separator: "\n")
        let presenter = try #require(tree.firstIndex { $0.contains("screen \(home.screenID) item") }, "\(tree)")
        #expect(tree[presenter + 1].contains("presents stack \(detail.placement.path[2].id)"), "\(tree)")
    }

    /// §10/§19: a host that acknowledges at once is never pinged, and need not answer; one that
    /// leaves commands unacknowledged and its pings unanswered is hung and cut off.
    @Test func aHostThatAcksNeedNotAnswerPingsButOneThatDoesNeitherIsCutOff() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "mirror", "--stay-up", "--hang-timeout", "0.2", "--ack-timeout", "5"])
        let prompt = try RawClient(path: daemon.socketPath)
        try prompt.handshake(provides: ["item", "tutorial"])
        let item = try #require(try prompt.settle().compactMap(\.place).first { $0.kind == "item" })
        // Ack everything for a while; collect what comes besides our own Pongs.
        var daemonPings = 0
        let until = Date().addingTimeInterval(1)
        while Date() < until {
            let frames = try prompt.settle()
            daemonPings += frames.filter { if case .ping = $0.body { true } else { false } }.count
            usleep(50_000)
        }
        #expect(daemonPings == 0, "a host with nothing unacknowledged is not pinged")

        // Now stop acking: press Count (both tabs are updated) and only read, answering nothing.
        try prompt.press(0, on: item.screenID)
        var sawPing = false
        var shutdown: Flowd_V1_Shutdown?
        while let frame = try prompt.receive(timeoutMilliseconds: 5_000) {
            if case .ping = frame.body { sawPing = true }
            if let last = frame.shutdown { shutdown = last }
        }
        #expect(sawPing, "the watchdog pinged the host with unacknowledged commands")
        #expect(shutdown?.reason == .hung)
        #expect(daemon.waitForLog("screen host is hung"))
    }

    /// §2: a peer that begins a frame after the handshake and goes silent is cut off with FRAME_TIMEOUT;
    /// others are unaffected.
    @Test func aPeerSilentMidFrameIsCutOffAfterTheFrameTimeout() throws {
        // 1 s: ten times the slow sender's gap below, so a loaded machine does not stretch a gap past it.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--frame-timeout", "1"])
        let stalled = try RawClient(path: daemon.socketPath)
        try stalled.handshake(role: .debug)
        let other = try RawClient(path: daemon.socketPath)
        try other.handshake(role: .debug)
        try stalled.sendBytes([40, 0, 0, 0, 8, 1])
        let frames = try stalled.receiveUntilClosed()
        let error = try #require(frames.first?.error, "\(frames.map(\.bodyName))")
        #expect(error.code == .frameTimeout)
        #expect(error.fatal)
        #expect(error.message.contains("6 bytes"), "\(error.message)")
        _ = try other.ping()

        // A slow but steady sender is not cut off: its frame takes about the timeout in all, but a
        // byte comes every 0.1 s.
        let slow = try RawClient(path: daemon.socketPath)
        try slow.handshake(role: .debug)
        var ping = Flowd_V1_Envelope()
        ping.seq = 99
        ping.body = .ping(Flowd_V1_Ping())
        let bytes = try FrameEncoder.encode(ping)
        for byte in bytes {
            try slow.sendBytes([byte])
            usleep(100_000)
        }
        guard case .pong? = try slow.receive()?.body else {
            Issue.record("the slow sender's ping was not answered")
            return
        }
    }

    /// The debug stream says when a screen is lost and whether its flow carries on.
    @Test func aLostScreenIsAnEventThatSaysWhetherItsFlowCarriesOn() throws {
        // Screens lost with their host (the app's choice; by default they wait for the next host).
        let daemon = try DaemonProcess(arguments: ["--app", "mirror", "--stay-up", "--resume-grace", "0", "--lose-with-host", "all"])
        let watcher = try RawClient(path: daemon.socketPath)
        try watcher.handshake(role: .debug)
        var subscribe = Flowd_V1_Subscribe()
        subscribe.kinds = [.screenLost]
        try watcher.send(.subscribe(subscribe))
        _ = try watcher.ping()

        // The mirror app's tutorial tab is hosted alone; its host dies, and the flow carries on.
        let items = try RawClient(path: daemon.socketPath)
        try items.handshake(provides: ["item"])
        let mirrors = try RawClient(path: daemon.socketPath)
        try mirrors.handshake(provides: ["tutorial"])
        _ = try items.settle()
        let mirror = try #require(try mirrors.settle().compactMap(\.place).first)
        mirrors.socket.close()
        var lost: Flowd_V1_Event?
        while lost == nil, let frame = try watcher.receive() {
            if case .event(let event) = frame.body, event.kind == .screenLost { lost = event }
        }
        let event = try #require(lost)
        #expect(event.screenID == mirror.screenID)
        #expect(event.name == "tutorial")
        #expect(event.text.contains("carries on"), "\(event.text)")
    }
}
