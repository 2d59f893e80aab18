import FlowKit
import FlowWire
import Foundation
import ScreenKit
import Testing

@Suite("ScreenHost against a fake daemon")
struct ScreenHostTests {
    @Test("the handshake sends Hello with role, name, provides, token and pid, and reads Welcome")
    func handshake() throws {
        let daemon = try FakeDaemon()
        let (host, hello) = try daemon.connectHost(token: "t0k3n", provides: ["tutorial", "menu"], name: "demo")
        #expect(hello.minVersion == 1 && hello.maxVersion == 1)
        #expect(hello.role == .screenHost)
        #expect(hello.name == "demo")
        #expect(hello.provides == ["tutorial", "menu"])
        #expect(hello.token == "t0k3n")
        #expect(hello.pid == getpid())
        #expect(host.daemon.connectionID == 7)
        #expect(host.daemon.server == "fake flowd")
        #expect(host.daemon.app == "tests")
        #expect(host.daemon.maxFrameSize == WireProtocol.defaultMaxFrameSize)
        #expect(host.isSpawned)
        #expect(host.endsWhenLastScreenDismissed)
    }

    /// As flowd refuses a wrong spawn token (docs/protocol.md §13): the fatal `Error`, then
    /// `Shutdown(PROTOCOL_ERROR)`, with flowd's own message.
    @Test("a fatal Error instead of Welcome fails connect with the daemon's code")
    func handshakeRefused() throws {
        let daemon = try FakeDaemon()
        let message = "spawned screen presented a wrong or reused token; use the FLOWD_TOKEN given at spawn"
        try daemon.send(.error(Flowd_V1_Error(code: .unauthorized, message: message, fatal: true)), replyTo: 1)
        try daemon.shutdown(.protocolError, message: message)
        #expect {
            _ = try ScreenHost.connect(descriptor: daemon.hostDescriptor, name: "x", token: "wrong")
        } throws: { error in
            let error = try #require(error as? ScreenKitError)
            return error.code == .daemon && error.daemonCode == .unauthorized && error.isFatal
                && error.message == message
        }
    }

    @Test("a Place reaches the handler with the decoded state and placement, then is acked")
    func place() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { seen.append($0) }
        try daemon.place(9, state: Tutorial.State.welcome)

        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        let screen = try #require(seen.values.first)
        #expect(screen.id == 9)
        #expect(screen.kind == "tutorial")
        #expect(screen.state == .welcome)
        #expect(screen.placement == .sample)
        #expect(screen.placement.stack == NodeID(rawValue: 6))
        #expect(screen.animated && screen.flowID == 3 && screen.flowType == "TutorialFlow")
        #expect(host.liveScreenCount == 1)
        #expect(acks(in: try daemon.receiveAvailable()) == [AckPair(screen: 9, serial: 1)])
    }

    @Test("a Place's saved state reaches the screen; saveState sends SaveState, refuses more than 16 KiB")
    func savedState() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { seen.append($0) }
        try daemon.place(9, state: Tutorial.State.welcome, savedState: Data("half a na".utf8))
        try daemon.place(10, state: Tutorial.State.welcome, serial: 1)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        let screens = seen.values
        #expect(screens.map { String(decoding: $0.savedState, as: UTF8.self) } == ["half a na", ""])
        try screens[0].saveState(Data("half a name".utf8))
        #expect {
            try screens[0].saveState(Data(count: WireProtocol.maxSavedStateBytes + 1))
        } throws: { ($0 as? ScreenKitError)?.code == .usage }
        let saves = try daemon.receiveAvailable().compactMap { if case .saveState(let s) = $0.body { s } else { nil } }
        #expect(saves.map { "\($0.screenID) \(String(decoding: $0.data, as: UTF8.self))" } == ["9 half a name"])
    }

    @Test("Update and PlacementChanged update the screen, call back, and are acked in order")
    func updateAndPlacementChanged() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let states = Recorder<Tutorial.State>()
        let changes = Recorder<PlacementChange>()
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { screen in
            seen.append(screen)
            screen.onUpdate { states.append($0) }
            screen.onPlacementChanged { changes.append($0) }
        }
        var covered = Placement.sample
        covered.isVisible = false
        let next = Tutorial.State(title: "Done", buttons: ["OK"], subtitle: "all set")
        try daemon.place(9, state: Tutorial.State.welcome)
        try daemon.update(9, serial: 2, state: next)
        try daemon.placementChanged(9, serial: 3, change: .covered, placement: covered)

        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(states.values == [next])
        #expect(changes.values == [.covered])
        let screen = try #require(seen.values.first)
        #expect(screen.state == next)
        #expect(screen.placement == covered)
        #expect(screen.previousPlacement == .sample)
        #expect(screen.lastSerial == 3)
        #expect(acks(in: try daemon.receiveAvailable()) == [
            AckPair(screen: 9, serial: 1), AckPair(screen: 9, serial: 2), AckPair(screen: 9, serial: 3),
        ])
    }

    @Test("a spawned host acks the dismissal of its only screen, then ends on Shutdown(SCREEN_DISMISSED)")
    func spawnedHostEndsWithItsScreen() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost(token: "secret", provides: [])
        let dismissals = Recorder<Dismissal>()
        host.register(Tutorial.self) { screen in screen.onDismiss { dismissals.append($0) } }
        try daemon.place(5, state: Tutorial.State.welcome)
        try daemon.dismiss(5, serial: 2, reason: .flowFinished, animated: true)

        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(dismissals.values == [Dismissal(reason: .flowFinished, animated: true)])
        #expect(host.liveScreenCount == 0)
        #expect(acks(in: try daemon.receiveAvailable()) == [AckPair(screen: 5, serial: 1), AckPair(screen: 5, serial: 2)])
        // Still waiting for the daemon's word.
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)

        try daemon.shutdown(.screenDismissed)
        #expect(try host.run() == .onlyScreenDismissed)
        #expect(host.shutdownMessage == "bye")
        #expect(try daemon.hostClosed())
    }

    @Test("a dismissed screen lets go of its handlers: a screen they capture strongly is freed")
    func dismissedScreenReleasesItsHandlers() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        weak var placed: HostedScreen<Tutorial>?
        host.register(Tutorial.self) { screen in
            placed = screen
            // Strong captures of the screen in its own handlers: no [weak]/[unowned] needed.
            screen.onUpdate { _ in _ = screen.state }
            screen.onPlacementChanged { _ in _ = screen.placement }
            screen.onDismiss { _ in _ = screen.id }
        }
        try daemon.place(5, state: Tutorial.State.welcome)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(placed != nil)
        try daemon.dismiss(5, serial: 2)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(placed == nil, "the screen and its handlers were released at its dismissal")
    }

    @Test("a spawned host whose daemon stays silent after the last dismissal ends after the grace period")
    func spawnedHostGrace() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost(token: "secret", provides: [])
        host.shutdownGraceMilliseconds = 0
        host.register(Tutorial.self) { _ in }
        try daemon.place(5, state: Tutorial.State.welcome)
        try daemon.dismiss(5, serial: 2)
        #expect(try host.run() == .onlyScreenDismissed)
    }

    @Test("a host that connected on its own keeps running with no screens, and ends on Shutdown")
    func connectedHostOutlivesScreens() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        #expect(!host.isSpawned)
        host.register(Tutorial.self) { _ in }
        try daemon.place(5, state: Tutorial.State.welcome)
        try daemon.dismiss(5, serial: 2, reason: .userNavigation, animated: false)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        try daemon.shutdown(.daemonExiting, message: "flowd received a signal and is exiting")
        #expect(try host.run() == .shutdown(.daemonExiting))
        #expect(host.shutdownMessage == "flowd received a signal and is exiting")
    }

    @Test("end of stream without Shutdown ends run() with .connectionClosed")
    func endOfStream() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        daemon.socket.close()
        #expect(try host.run() == .connectionClosed)
        #expect(host.exitReason == .connectionClosed)
    }

    @Test("a write that finds flowd gone still reads the Shutdown it wrote before going: run() returns its reason")
    func shutdownBeforeAFailedWrite() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        try daemon.shutdown(.appFinished, message: "the app finished")
        daemon.socket.close()
        // The Ping's write fails (EPIPE); the session ends by what flowd said, not as a drop.
        #expect(throws: ScreenKitError.self) { try host.ping(timeoutMilliseconds: 5_000) }
        #expect(try host.run() == .shutdown(.appFinished))
        #expect(host.shutdownMessage == "the app finished")
    }

    @Test("a write that finds flowd gone without a word ends the session as a drop once the stream ends")
    func silentPeerBeforeAFailedWrite() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        daemon.socket.close()
        #expect(throws: ScreenKitError.self) { try host.ping(timeoutMilliseconds: 5_000) }
        #expect(host.exitReason == .connectionClosed)
        #expect(try host.run() == .connectionClosed)
    }

    @Test("outputs are sent as the documented JSON")
    func outputs() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        host.register(Tutorial.self) { screen in
            try? screen.send(.didPressButton(index: 1))
            try? screen.send(.didPressSkip)
            try? screen.send(.selected("x"))
        }
        try daemon.place(4, state: Tutorial.State.welcome)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)

        let outputs = try daemon.receiveAvailable().compactMap { frame -> Flowd_V1_Output? in
            guard case .output(let output) = frame.body else { return nil }
            return output
        }
        #expect(outputs.map(\.screenID) == [4, 4, 4])
        #expect(outputs.allSatisfy { $0.payload.contentType == "application/json" })
        #expect(outputs.map { String(decoding: $0.payload.data, as: UTF8.self) } == [
            #"{"didPressButton":{"index":1}}"#, #"{"didPressSkip":{}}"#, #"{"selected":{"_0":"x"}}"#,
        ])
    }

    @Test("user navigation is sent as UserNavigation frames with the right action and phase")
    func userNavigation() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        host.register(Tutorial.self) { screen in
            try? screen.back(phase: .begin)
            try? screen.back(phase: .cancel)
            try? screen.back()
            try? screen.selectTab(2)
            try? screen.closeModal(phase: .commit)
        }
        try daemon.place(4, state: Tutorial.State.welcome)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)

        let navigations = try daemon.receiveAvailable().compactMap { frame -> Flowd_V1_UserNavigation? in
            guard case .userNavigation(let navigation) = frame.body else { return nil }
            return navigation
        }
        #expect(navigations.allSatisfy { $0.screenID == 4 })
        #expect(navigations.map(\.action) == [
            .back(.with { $0.phase = .begin }), .back(.with { $0.phase = .cancel }),
            .back(.with { $0.phase = .immediate }), .selectTab(.with { $0.index = 2 }),
            .closeModal(.with { $0.phase = .commit }),
        ])
    }

    @Test("outputs and navigation of a dismissed screen are dropped")
    func dismissedScreenIsSilent() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { seen.append($0) }
        try daemon.place(4, state: Tutorial.State.welcome)
        try daemon.dismiss(4, serial: 2)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        _ = try daemon.receiveAvailable()
        let screen = try #require(seen.values.first)
        #expect(screen.isDismissed)
        try screen.send(.didPressSkip)
        try screen.back()
        #expect(try daemon.receiveAvailable().isEmpty)
    }

    @Test("handlers are chosen by kind")
    func handlersPerKind() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost(provides: ["tutorial", "menu"])
        let menus = Recorder<Menu.State>()
        let tutorials = Recorder<Tutorial.State>()
        host.register(Tutorial.self) { tutorials.append($0.state) }
        host.register(Menu.self) { menus.append($0.state) }
        #expect(host.registeredKinds == ["menu", "tutorial"])
        try daemon.place(1, kind: "menu", state: Menu.State(items: ["a", "b"]))
        try daemon.place(2, state: Tutorial.State.welcome)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(menus.values == [Menu.State(items: ["a", "b"])])
        #expect(tutorials.values == [.welcome])
    }
}
