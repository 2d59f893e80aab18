@testable import FlowDaemon
import FlowWire
import Testing

/// The handshake and role rules, without a socket.
@Suite struct ConnectionStateMachineTests {
    private func machine(_ origin: ConnectionStateMachine.Origin = .namedSocket(uid: 1000)) -> ConnectionStateMachine {
        ConnectionStateMachine(origin: origin, supportedVersions: 1...1, maxFrameSize: 1 << 20)
    }

    private func hello(_ versions: ClosedRange<UInt32> = 1...1, role: Flowd_V1_Role = .screenHost, token: String = "", maxFrame: UInt32 = 0) -> Flowd_V1_Envelope.OneOf_Body {
        var hello = Flowd_V1_Hello()
        hello.minVersion = versions.lowerBound
        hello.maxVersion = versions.upperBound
        hello.role = role
        hello.token = token
        hello.name = "test"
        hello.maxFrameSize = maxFrame
        return .hello(hello)
    }

    private func rejection(_ action: ConnectionStateMachine.Action) -> ConnectionStateMachine.Violation? {
        if case .reject(let violation) = action { return violation }
        return nil
    }

    @Test func helloIsWelcomedWithTheHighestCommonVersion() {
        var m = machine()
        guard case .welcome(let agreement) = m.receive(hello(1...3)) else {
            Issue.record("expected welcome")
            return
        }
        #expect(agreement.version == 1)
        #expect(agreement.role == .screenHost)
        #expect(agreement.maxFrameSize == 1 << 20)
        #expect(m.receive(.ping(.init())) == .handle)
    }

    @Test func onlyNamedSocketScreenHostsMayPresentAResumeToken() {
        func withResume(_ body: Flowd_V1_Envelope.OneOf_Body) -> Flowd_V1_Envelope.OneOf_Body {
            guard case .hello(var hello) = body else { return body }
            hello.resumeToken = "run.token"
            return .hello(hello)
        }
        var host = machine()
        guard case .welcome(let agreement) = host.receive(withResume(hello())) else {
            Issue.record("a screen host on the named socket may resume")
            return
        }
        #expect(agreement.resumeToken == "run.token", "the daemon checks the token itself")
        var debug = machine()
        #expect(rejection(debug.receive(withResume(hello(role: .debug))))?.code == .unexpectedMessage)
        var spawned = machine(.spawned(token: "t"))
        #expect(rejection(spawned.receive(withResume(hello(token: "t"))))?.code == .unexpectedMessage)
    }

    @Test func versionMismatchNamesBothRanges() {
        var m = machine()
        let violation = rejection(m.receive(hello(2...5)))
        #expect(violation?.code == .unsupportedVersion)
        #expect(violation?.message.contains("2...5") == true)
        #expect(violation?.message.contains("1...1") == true)
        #expect(m.state == .closed)
    }

    @Test func invertedVersionRangeIsRefused() {
        var m = machine()
        #expect(rejection(m.receive(hello(1...1).withVersions(min: 3, max: 1)))?.code == .unsupportedVersion)
    }

    @Test func anythingBeforeHelloIsRefused() {
        var m = machine()
        #expect(rejection(m.receive(.ping(.init())))?.code == .unexpectedMessage)
    }

    @Test func unsetRoleIsRefused() {
        var m = machine()
        #expect(rejection(m.receive(hello(role: .unspecified)))?.code == .unexpectedMessage)
    }

    @Test func frameSizeIsTheSmallerOfBoth() {
        var m = machine()
        guard case .welcome(let agreement) = m.receive(hello(maxFrame: 65_536)) else {
            Issue.record("expected welcome")
            return
        }
        #expect(agreement.maxFrameSize == 65_536)
        var tiny = machine()
        #expect(rejection(tiny.receive(hello(maxFrame: 100))) != nil)
    }

    @Test func secondHelloAndDaemonOnlyMessagesAreRefused() {
        for body: Flowd_V1_Envelope.OneOf_Body in [hello(), .place(.init()), .welcome(.init()), .event(.init()), .tree(.init())] {
            var m = machine()
            _ = m.receive(hello())
            #expect(rejection(m.receive(body))?.code == .unexpectedMessage, "\(body.name)")
        }
    }

    @Test func rolesGateTheirMessages() {
        var host = machine()
        _ = host.receive(hello(role: .screenHost))
        #expect(rejection(host.receive(.getTree(.init())))?.code == .unexpectedMessage)

        var debug = machine()
        _ = debug.receive(hello(role: .debug))
        #expect(debug.receive(.getTree(.init())) == .handle)
        var debug2 = machine()
        _ = debug2.receive(hello(role: .debug))
        #expect(rejection(debug2.receive(.output(.init())))?.code == .unexpectedMessage)
    }

    @Test func spawnedPeersMustPresentTheirToken() {
        var wrong = machine(.spawned(token: "secret"))
        #expect(rejection(wrong.receive(hello(token: "guess")))?.code == .unauthorized)
        var right = machine(.spawned(token: "secret"))
        guard case .welcome = right.receive(hello(token: "secret")) else {
            Issue.record("expected welcome")
            return
        }
        var debug = machine(.spawned(token: "secret"))
        #expect(rejection(debug.receive(hello(role: .debug, token: "secret")))?.code == .unauthorized)
    }

    @Test func admissionChecksTheUID() {
        #expect(ConnectionStateMachine.admit(.namedSocket(uid: 1000), allowedUID: 1000) == nil)
        #expect(ConnectionStateMachine.admit(.namedSocket(uid: 0), allowedUID: 1000)?.code == .unauthorized)
        #expect(ConnectionStateMachine.admit(.namedSocket(uid: nil), allowedUID: 1000)?.code == .unauthorized)
        #expect(ConnectionStateMachine.admit(.spawned(token: "t"), allowedUID: 1000) == nil)
    }

    @Test func handshakeTimeoutOnlyBeforeHello() {
        var waiting = machine()
        #expect(rejection(waiting.handshakeTimedOut(afterMilliseconds: 5)!)?.code == .handshakeTimeout)
        var done = machine()
        _ = done.receive(hello())
        #expect(done.handshakeTimedOut(afterMilliseconds: 5) == nil)
    }

    @Test func shutdownFromThePeerCloses() {
        var m = machine()
        _ = m.receive(hello())
        #expect(m.receive(.shutdown(.init())) == .close)
        #expect(m.state == .closed)
    }
}

extension Flowd_V1_Envelope.OneOf_Body {
    fileprivate func withVersions(min: UInt32, max: UInt32) -> Self {
        guard case .hello(var hello) = self else { return self }
        hello.minVersion = min
        hello.maxVersion = max
        return .hello(hello)
    }
}

extension ConnectionStateMachineTests {
    @Test func aTokenOnTheNamedSocketIsRefused() {
        var m = ConnectionStateMachine(origin: .namedSocket(uid: 1), supportedVersions: 1...1, maxFrameSize: 1 << 20)
        var hello = Flowd_V1_Hello()
        hello.minVersion = 1
        hello.maxVersion = 1
        hello.role = .screenHost
        hello.token = "stolen"
        guard case .reject(let violation) = m.receive(.hello(hello)) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(violation.code == .unauthorized)
    }
}
