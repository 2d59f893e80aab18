import FlowWire
import FlowdTestSupport
import Foundation
import ScreenKit
import Testing

@Suite("ScreenHost errors, refusals and manual acks")
struct ScreenHostErrorTests {
    @Test("a socket another user serves is refused before Hello, naming its uid and the directory's owner",
          .enabled(if: Impostor.possible, Impostor.reason))
    func untrustedServer() throws {
        let impostor = try Impostor()
        #expect {
            _ = try ScreenHost.connect(path: impostor.socketPath, name: "victim", provides: ["login"], timeoutMilliseconds: 2000)
        } throws: { error in
            let error = try #require(error as? ScreenKitError)
            let message = "\(error)"
            return error.code == .untrustedServer && error.isFatal && impostor.refusal.allSatisfy { message.contains($0) }
        }
        #expect(impostor.waitForClose() == [0], "nothing was sent to it: \(impostor.received)")
    }

    @Test("a non-fatal daemon Error reaches onError typed, and the session goes on")
    func nonFatalError() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let errors = Recorder<ScreenKitError>()
        host.onError = { errors.append($0) }
        try daemon.send(.error(Flowd_V1_Error(code: .invalidNavigation, message: "back on a stack root", screenID: 4)))
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        let error = try #require(errors.values.first)
        #expect(error.code == .daemon)
        #expect(error.daemonCode == .invalidNavigation)
        #expect(!error.isFatal)
        #expect(error.screenID == 4)
        #expect(error.serial == nil)
        #expect("\(error)".contains("back on a stack root"))
    }

    @Test("a fatal daemon Error ends run() by throwing it")
    func fatalError() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        try daemon.send(.error(Flowd_V1_Error(code: .unexpectedMessage, message: "no", fatal: true)))
        try daemon.shutdown(.protocolError)
        #expect {
            _ = try host.run()
        } throws: { error in
            let error = try #require(error as? ScreenKitError)
            return error.code == .daemon && error.daemonCode == .unexpectedMessage && error.isFatal
        }
        #expect(try daemon.hostClosed())
    }

    @Test("a Place of an unregistered kind is refused with UNKNOWN_KIND, not acked; its Dismiss is acked")
    func unknownKind() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let errors = Recorder<ScreenKitError>()
        host.onError = { errors.append($0) }
        host.register(Tutorial.self) { _ in Issue.record("the tutorial handler must not run") }
        try daemon.place(8, kind: "settings", state: Menu.State(items: []))
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)

        let frames = try daemon.receiveAvailable()
        #expect(acks(in: frames).isEmpty)
        guard case .error(let sent) = frames.first?.body else {
            Issue.record("expected an Error frame, got \(frames.map(\.bodyName))")
            return
        }
        #expect(sent.code == .unknownKind && !sent.fatal && sent.screenID == 8 && sent.serial == 1)
        #expect(errors.values.map(\.code) == [.unknownKind])
        #expect(host.liveScreenCount == 0)

        try daemon.dismiss(8, serial: 2)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(acks(in: try daemon.receiveAvailable()) == [AckPair(screen: 8, serial: 2)])
    }

    @Test("a state that does not decode is refused with BAD_PAYLOAD")
    func badState() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let errors = Recorder<ScreenKitError>()
        host.onError = { errors.append($0) }
        host.register(Tutorial.self) { _ in Issue.record("the handler must not run") }
        try daemon.place(8, state: Menu.State(items: []))
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        let frames = try daemon.receiveAvailable()
        #expect(acks(in: frames).isEmpty)
        guard case .error(let sent) = frames.first?.body else {
            Issue.record("expected an Error frame, got \(frames.map(\.bodyName))")
            return
        }
        #expect(sent.code == .badPayload && sent.screenID == 8)
        #expect(sent.message.hasPrefix(#"kind "tutorial": the state of screen 8 does not decode as Tutorial.State: field "title" is missing"#),
                "the error names the kind and the field: \(sent.message)")
        #expect(errors.values.map(\.code) == [.badState])
    }

    @Test("a field of the wrong type is named with its path")
    func badStateField() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        host.register(Tutorial.self) { _ in Issue.record("the handler must not run") }
        struct Wrong: Encodable { var title = "t"; var buttons: [Int] = [1] }
        try daemon.place(8, state: Wrong())
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        guard case .error(let sent)? = try daemon.receiveAvailable().first?.body else {
            Issue.record("expected an Error frame")
            return
        }
        #expect(sent.message.contains(#"kind "tutorial""#) && sent.message.contains(#"field "buttons.0": expected String"#), "\(sent.message)")
    }

    @Test("with autoAck off nothing is acked until the test acks; ack() acks the last serial")
    func manualAcks() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        host.autoAck = false
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { seen.append($0) }
        try daemon.place(3, state: Tutorial.State.welcome)
        try daemon.update(3, serial: 2, state: Tutorial.State(title: "t", buttons: []))
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(acks(in: try daemon.receiveAvailable()).isEmpty)

        let screen = try #require(seen.values.first)
        try screen.ack()
        try host.ack(screenID: 3, serial: 99)
        #expect(acks(in: try daemon.receiveAvailable()) == [AckPair(screen: 3, serial: 2), AckPair(screen: 3, serial: 99)])
    }

    @Test("ACK_TIMEOUT removes the screen by force: onDismiss(.ackTimeout), then onError")
    func ackTimeout() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        host.autoAck = false
        let events = Recorder<String>()
        host.onError = { events.append("error \($0.daemonCode.map { "\($0)" } ?? "-")") }
        host.register(Tutorial.self) { screen in
            screen.onDismiss { events.append("dismiss \($0.reason)") }
        }
        try daemon.place(3, state: Tutorial.State.welcome)
        try daemon.send(.error(Flowd_V1_Error(code: .ackTimeout, message: "no ack in 2000 ms", screenID: 3, serial: 1)))
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(events.values == ["dismiss ackTimeout", "error ackTimeout"])
        #expect(host.liveScreenCount == 0)
    }

    @Test("commands for screens never placed are reported as the daemon's protocol slips and ignored")
    func commandForUnknownScreen() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let errors = Recorder<ScreenKitError>()
        host.onError = { errors.append($0) }
        try daemon.update(77, serial: 2, state: Tutorial.State.welcome)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        #expect(errors.values.map(\.code) == [.protocolViolation])
        #expect(errors.values.first?.screenID == 77)
        #expect(try daemon.receiveAvailable().isEmpty)
    }

    @Test("a malformed frame from the daemon ends run() with a fatal protocol error sent back")
    func malformedFrame() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        try daemon.socket.write([3, 0, 0, 0, 0xff, 0xff, 0xff])
        #expect {
            _ = try host.run()
        } throws: { error in
            (error as? ScreenKitError)?.code == .protocolViolation
        }
        let frames = try daemon.receiveAvailable()
        #expect(frames.map(\.bodyName) == ["Error", "Shutdown"])
    }

    @Test("sending after the session ended throws .closed")
    func sendAfterEnd() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let seen = Recorder<HostedScreen<Tutorial>>()
        host.register(Tutorial.self) { seen.append($0) }
        try daemon.place(3, state: Tutorial.State.welcome)
        try daemon.shutdown(.appFinished)
        #expect(try host.run() == .shutdown(.appFinished))
        let screen = try #require(seen.values.first)
        #expect { try screen.send(.didPressSkip) } throws: { ($0 as? ScreenKitError)?.code == .closed }
    }
}
