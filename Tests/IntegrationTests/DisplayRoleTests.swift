import FlowdTestSupport
import FlowWire
import Foundation
import Testing

/// The display role (flowd-shell's): the scene after Welcome and after each change of the model,
/// with the secrets the hosts were given in `Place`, the transition, user navigation on any screen,
/// and nothing else allowed.
@Suite("display role")
struct DisplayRoleTests {
    @Test func aDisplayFollowsPushAndPopWithTheHostsTokens() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        #expect(welcome.displayToken.count == 32 && welcome.displayToken.allSatisfy(\.isHexDigit))

        let display = try RawClient(path: daemon.socketPath)
        let welcomed = try display.handshake(role: .display, name: "shell")
        #expect(welcomed.resumeToken.isEmpty)
        let first = try display.nextScene()
        #expect(first.app == "tutorial")
        #expect(first.visibleScreen == welcome.screenID)
        #expect(first.transition.kind == .none)
        #expect(first.screens.map(\.id) == [welcome.screenID])
        #expect(first.screens.first?.displayToken == welcome.displayToken)
        #expect(first.screens.first?.screenKind == "tutorial" && first.screens.first?.visible == true)
        #expect(first.screens.first?.flowType == "OnboardingFlow")
        #expect(first.window.kind == .window && first.window.children.first?.kind == .stack)

        // Next pushes the second screen: one new scene, a push from the first to it.
        try host.press(1, on: welcome.screenID)
        let done = try #require(try host.settle().compactMap(\.place).first)
        let pushed = try #require(try display.scenesUntilPong().last)
        #expect(pushed.seq > first.seq)
        #expect(pushed.transition.kind == .push)
        #expect(pushed.transition.fromScreen == welcome.screenID && pushed.transition.toScreen == done.screenID)
        #expect(pushed.transition.animated == done.animated)
        #expect(pushed.visibleScreen == done.screenID)
        #expect(pushed.screens.map(\.id) == [welcome.screenID, done.screenID])
        #expect(pushed.screens.last?.displayToken == done.displayToken)
        #expect(done.displayToken != welcome.displayToken)

        // A back swipe that is let go early changes nothing: no scene.
        try display.navigate(.back, on: done.screenID, phase: .begin)
        try display.navigate(.back, on: done.screenID, phase: .cancel)
        #expect(try display.scenesUntilPong().isEmpty)
        #expect(try host.settle().isEmpty)

        // Back from the display pops the screen of the host: the host is told, the display gets a pop.
        // (The display's Pong first: the navigation was applied before the host's Ping is read.)
        try display.navigate(.back, on: done.screenID, phase: .immediate)
        let popped = try #require(try display.scenesUntilPong().last)
        let dismissed = try host.settle().compactMap(\.dismiss)
        #expect(dismissed.map(\.screenID) == [done.screenID])
        #expect(dismissed.first?.reason == .userNavigation)
        #expect(popped.transition.kind == .pop)
        #expect(popped.transition.fromScreen == done.screenID && popped.transition.toScreen == welcome.screenID)
        #expect(popped.visibleScreen == welcome.screenID)
        #expect(popped.screens.map(\.id) == [welcome.screenID])

        // The tree names the role.
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug)
        let tree = try debug.tree()
        #expect(tree.connections.filter { $0.role == "display" }.map(\.name) == ["shell"])
    }

    @Test func aModalPresentedAndClosedFromTheDisplay() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let display = try RawClient(path: daemon.socketPath)
        try display.handshake(role: .display)
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item"])
        let home = try #require(try host.settle().compactMap(\.place).first)
        #expect(try display.scenesUntilPong().last?.visibleScreen == home.screenID)

        try host.press(0, on: home.screenID)
        let detail = try #require(try host.settle().compactMap(\.place).first)
        let presented = try #require(try display.scenesUntilPong().last)
        #expect(presented.transition.kind == .present)
        #expect(presented.visibleScreen == detail.screenID)
        #expect(presented.screens.first { $0.id == home.screenID }?.visible == false)

        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = detail.screenID
        navigation.closeModal = Flowd_V1_CloseModal()
        try display.send(.userNavigation(navigation))
        let closed = try #require(try display.scenesUntilPong().last)
        _ = try host.settle()
        #expect(closed.transition.kind == .dismiss)
        #expect(closed.transition.fromScreen == detail.screenID && closed.transition.toScreen == home.screenID)
        #expect(closed.visibleScreen == home.screenID)
    }

    @Test func aTabSelectedFromTheDisplay() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "mirror"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item", "tutorial"])
        let places = try host.settle().compactMap(\.place)
        #expect(places.count == 2)
        let display = try RawClient(path: daemon.socketPath)
        try display.handshake(role: .display)
        let first = try display.nextScene()
        let visible = first.visibleScreen
        let other = try #require(places.first { $0.screenID != visible })
        #expect(Set(first.screens.map(\.displayToken)) == Set(places.map(\.displayToken)))

        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = other.screenID
        var select = Flowd_V1_SelectTab()
        select.index = 1
        navigation.selectTab = select
        try display.send(.userNavigation(navigation))
        let tabbed = try #require(try display.scenesUntilPong().last)
        _ = try host.settle()
        #expect(tabbed.transition.kind == .tab)
        #expect(tabbed.visibleScreen == other.screenID)
        #expect(tabbed.window.children.first?.selectedTab == 1)
    }

    /// A host that resumes after a drop gets its screens placed again, each with a new secret, and
    /// the display gets the new secrets: the old one no longer names the screen.
    @Test func aResumedHostsPlaceCarriesANewTokenTheDisplayLearns() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        let welcomed = try host.handshake(provides: ["tutorial"])
        let first = try #require(try host.settle().compactMap(\.place).first)
        let display = try RawClient(path: daemon.socketPath)
        try display.handshake(role: .display)
        #expect(try display.nextScene().screens.first?.displayToken == first.displayToken)
        host.socket.close()

        let again = try RawClient(path: daemon.socketPath)
        let resumed = try again.handshake(provides: ["tutorial"], resumeToken: welcomed.resumeToken)
        #expect(resumed.resumed)
        let replaced = try #require(try again.settle().compactMap(\.place).first)
        #expect(replaced.screenID == first.screenID)
        #expect(replaced.displayToken != first.displayToken)
        let scene = try #require(try display.scenesUntilPong().last)
        #expect(scene.screens.first?.displayToken == replaced.displayToken)
        #expect(scene.transition.kind == .none)
    }

    @Test(arguments: [
        Flowd_V1_Envelope.OneOf_Body.injectOutput(Flowd_V1_InjectOutput()),
        .terminateFlow(Flowd_V1_TerminateFlow()),
        .getTree(Flowd_V1_GetTree()),
        .openLink(Flowd_V1_OpenLink()),
        .output(Flowd_V1_Output()),
        .ack(Flowd_V1_Ack()),
    ])
    func aDisplaySendsNothingButNavigation(_ body: Flowd_V1_Envelope.OneOf_Body) throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let display = try RawClient(path: daemon.socketPath)
        try display.handshake(role: .display)
        let seq = try display.send(body)
        let frames = try display.receiveUntilClosed()
        let error = try #require(frames.compactMap(\.error).first)
        #expect(error.code == .unexpectedMessage && error.fatal)
        #expect(frames.last?.replyTo == seq || frames.contains { $0.replyTo == seq })
        #expect(error.message.contains(body.name), "\(error.message)")
    }

    @Test func thePolicyDecidesWhoMayDisplay() throws {
        let policy = PeerIdentityTests.writePolicy("display by exe=/usr/lib/flowd/flowd-shell\n")
        defer { try? FileManager.default.removeItem(atPath: (policy as NSString).deletingLastPathComponent) }
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--policy", policy])
        let display = try RawClient(path: daemon.socketPath)
        try display.send(RawClient.hello(role: .display))
        let error = try #require(try display.receiveUntilClosed().compactMap(\.error).first)
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message.contains(#"may not take the display role: policy rule "display by exe=/usr/lib/flowd/flowd-shell" (\#(policy):1)"#),
                "\(error.message)")
        // A screen host is not concerned by the rule.
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
    }
}

extension RawClient {
    enum DisplayNavigation { case back, closeModal }

    /// Receives frames until the next `DisplayScene`.
    func nextScene(sourceLocation: SourceLocation = #_sourceLocation) throws -> Flowd_V1_DisplayScene {
        while let frame = try receive() {
            if case .displayScene(let scene) = frame.body { return scene }
            Issue.record("expected DisplayScene, got \(frame.bodyName)", sourceLocation: sourceLocation)
        }
        Issue.record("the daemon closed before a scene", sourceLocation: sourceLocation)
        throw RawClientError.unexpected
    }

    /// The scenes that arrive before our Ping's Pong.
    func scenesUntilPong() throws -> [Flowd_V1_DisplayScene] {
        try ping().compactMap { if case .displayScene(let scene) = $0.body { scene } else { nil } }
    }

    /// Sends the user's navigation on `screen`.
    func navigate(_ action: DisplayNavigation, on screen: UInt64, phase: Flowd_V1_NavigationPhase) throws {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screen
        switch action {
        case .back:
            var back = Flowd_V1_Back()
            back.phase = phase
            navigation.back = back
        case .closeModal:
            var close = Flowd_V1_CloseModal()
            close.phase = phase
            navigation.closeModal = close
        }
        try send(.userNavigation(navigation))
    }
}

extension Flowd_V1_DisplayScene {
    /// Every screen of the scene, depth-first from the window (content before what is presented).
    var screens: [Flowd_V1_DisplayNode] {
        var found: [Flowd_V1_DisplayNode] = []
        func walk(_ node: Flowd_V1_DisplayNode) {
            if node.kind == .screen { found.append(node) }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        walk(window)
        return found
    }
}
