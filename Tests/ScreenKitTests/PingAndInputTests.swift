import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Ping barrier, the daemon's pings, and extra inputs")
struct PingAndInputTests {
    @Test("ping() handles every frame that arrived before the Pong")
    func pingIsABarrier() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        let seen = Recorder<UInt64>()
        host.register(Tutorial.self) { seen.append($0.id) }
        try daemon.place(1, state: Tutorial.State.welcome)
        try daemon.place(2, state: Tutorial.State.welcome)
        try daemon.pong(1, replyTo: 2)  // nonces count from 1; the Ping is the host's frame 2
        try host.ping()
        #expect(seen.values == [1, 2])

        let frames = try daemon.receiveAvailable()
        #expect(frames.map(\.bodyName) == ["Ping", "Ack", "Ack"])
        guard case .ping(let ping) = frames.first?.body else { return }
        #expect(ping.nonce == 1)
        #expect(frames.first?.seq == 2)
    }

    @Test("ping() throws .closed when the session ends before the Pong, and run() then returns the reason")
    func pingInterruptedByShutdown() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        try daemon.shutdown(.daemonExiting)
        #expect { try host.ping() } throws: { ($0 as? ScreenKitError)?.code == .closed }
        #expect(try host.run() == .shutdown(.daemonExiting))
    }

    @Test("the daemon's Ping is answered with a Pong carrying its nonce and reply_to")
    func answersPing() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        var ping = Flowd_V1_Ping()
        ping.nonce = 42
        try daemon.send(.ping(ping))  // the daemon's seq 2 (Welcome was 1)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
        let frames = try daemon.receiveAvailable()
        guard case .pong(let pong) = frames.first?.body else {
            Issue.record("expected Pong, got \(frames.map(\.bodyName))")
            return
        }
        #expect(pong.nonce == 42)
        #expect(frames.first?.replyTo == 2)
    }

    @Test("an input descriptor is polled alongside the socket; its handler can stop the host")
    func extraInput() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let read = Recorder<UInt8>()
        host.addInput(descriptor: fds[0]) {
            var byte: UInt8 = 0
            if Glibc.read(fds[0], &byte, 1) == 1 { read.append(byte) }
            if byte == UInt8(ascii: "q") { host.stop() }
        }
        var keys: [UInt8] = Array("aq".utf8)
        #expect(Glibc.write(fds[1], &keys, 2) == 2)
        #expect(try host.run() == .stopped)
        #expect(read.values == Array("aq".utf8))
    }

    @Test("removeInput stops polling a descriptor")
    func removeInput() throws {
        let daemon = try FakeDaemon()
        let (host, _) = try daemon.connectHost()
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let id = host.addInput(descriptor: fds[0]) { Issue.record("a removed input must not fire") }
        host.removeInput(id)
        var byte: UInt8 = 1
        #expect(Glibc.write(fds[1], &byte, 1) == 1)
        #expect(try host.pollOnce(timeoutMilliseconds: 0) == nil)
    }
}
