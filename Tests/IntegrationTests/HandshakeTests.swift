import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real flowd binary, spoken to in raw bytes: handshake, bad input, limits.
@Suite("flowd over its socket")
struct HandshakeTests {
    @Test func handshakeThenPing() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socketPath)
        let welcome = try client.handshake(name: "handshake-test")
        #expect(welcome.version == 1)
        #expect(welcome.connectionID > 0)
        #expect(welcome.server.hasPrefix("flowd "))
        #expect(welcome.maxFrameSize == 1 << 20)
        let before = try client.ping(nonce: 42)
        #expect(before.isEmpty)
    }

    @Test func unsupportedVersionGetsFatalErrorNamingBothVersions() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socketPath)
        let seq = try client.send(RawClient.hello(versions: 7...9))
        let frames = try client.receiveUntilClosed()
        let error = try #require(frames.compactMap { frame -> Flowd_V1_Error? in
            if case .error(let error) = frame.body { return error } else { return nil }
        }.first)
        #expect(error.code == .unsupportedVersion)
        #expect(error.fatal)
        #expect(error.message.contains("7...9"))
        #expect(error.message.contains("1...1"))
        #expect(frames.first?.replyTo == seq)
    }

    @Test func garbageClosesOnlyThatClient() throws {
        let daemon = try DaemonProcess()
        let good = try RawClient(path: daemon.socketPath)
        try good.handshake(name: "good")
        let bad = try RawClient(path: daemon.socketPath)
        try bad.handshake(name: "bad")
        // A length of 16 followed by 16 bytes that are not a protobuf Envelope.
        try bad.sendBytes([16, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 16))
        let frames = try bad.receiveUntilClosed()
        let codes = frames.compactMap { frame -> Flowd_V1_ErrorCode? in
            if case .error(let error) = frame.body { return error.code } else { return nil }
        }
        #expect(codes == [.malformedFrame])
        for nonce in 1...20 { try good.ping(nonce: UInt64(nonce)) }
    }

    @Test func oversizedLengthIsRefusedBeforeTheBody() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socketPath)
        try client.handshake()
        // 2 GiB announced; the daemon must answer without waiting for the body.
        try client.sendBytes([0, 0, 0, 0x80])
        let frames = try client.receiveUntilClosed()
        guard case .error(let error) = frames.first?.body else {
            Issue.record("expected an Error frame, got \(frames)")
            return
        }
        #expect(error.code == .frameTooLarge)
        #expect(error.fatal)
    }

    @Test func messageNotAllowedInStateIsRefused() throws {
        let daemon = try DaemonProcess()
        // Before the handshake: anything but Hello.
        let early = try RawClient(path: daemon.socketPath)
        try early.send(.ping(Flowd_V1_Ping()))
        let earlyFrames = try early.receiveUntilClosed()
        guard case .error(let earlyError) = earlyFrames.first?.body else {
            Issue.record("expected an Error, got \(earlyFrames)")
            return
        }
        #expect(earlyError.code == .unexpectedMessage)

        // After it: a message only the daemon sends.
        let late = try RawClient(path: daemon.socketPath)
        try late.handshake()
        try late.send(.place(Flowd_V1_Place()))
        let lateFrames = try late.receiveUntilClosed()
        guard case .error(let lateError) = lateFrames.first?.body else {
            Issue.record("expected an Error, got \(lateFrames)")
            return
        }
        #expect(lateError.code == .unexpectedMessage)
        #expect(lateFrames.contains { if case .shutdown = $0.body { true } else { false } })

        // A screen host asking for the tree needs the debug role.
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake()
        try host.send(.getTree(Flowd_V1_GetTree()))
        let hostFrames = try host.receiveUntilClosed()
        guard case .error(let hostError) = hostFrames.first?.body else {
            Issue.record("expected an Error, got \(hostFrames)")
            return
        }
        #expect(hostError.code == .unexpectedMessage)
    }

    @Test func halfHeaderThenSilenceIsDroppedAfterTheHandshakeTimeout() throws {
        let daemon = try DaemonProcess(arguments: ["--handshake-timeout", "0.3"])
        let stalled = try RawClient(path: daemon.socketPath)
        try stalled.sendBytes([9, 0])
        let frames = try stalled.receiveUntilClosed()
        guard case .error(let error) = frames.first?.body else {
            Issue.record("expected an Error, got \(frames)")
            return
        }
        #expect(error.code == .handshakeTimeout)
        // The daemon is still there for others.
        let other = try RawClient(path: daemon.socketPath)
        try other.handshake()
        try other.ping()
    }

    @Test func peerLeavingMidFrameLeaksNothing() throws {
        // The tutorial: the launcher probes python3 in the background, which moves the descriptor count.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let watcher = try RawClient(path: daemon.socketPath)
        try watcher.handshake(role: .debug, name: "watcher")
        let baseline = try watcher.stats()
        for _ in 0..<20 {
            let client = try RawClient(path: daemon.socketPath)
            try client.handshake()
            try client.sendBytes([100, 0, 0, 0, 1, 2, 3])
            client.socket.close()
        }
        // Each close is processed before our ping: same loop, earlier events.
        // Poll a few barriers in case a close is still in flight in the kernel.
        var after = try watcher.stats()
        for _ in 0..<50 where after.connections != baseline.connections {
            after = try watcher.stats()
        }
        #expect(after.connections == baseline.connections)
        #expect(after.openDescriptors == baseline.openDescriptors)
        #expect(after.libuvHandles == baseline.libuvHandles)
        #expect(daemon.waitForLog("mid-frame"))
    }

    @Test func fiveHundredClientsConnectAtOnce() throws {
        let daemon = try DaemonProcess()
        let count = 500
        var clients: [RawClient] = []
        for _ in 0..<count {
            clients.append(try RawClient(path: daemon.socketPath))
        }
        for client in clients {
            try client.send(RawClient.hello())
        }
        var ids = Set<UInt64>()
        for client in clients {
            let reply = try #require(try client.receive())
            guard case .welcome(let welcome) = reply.body else {
                Issue.record("expected Welcome, got \(String(describing: reply.body))")
                return
            }
            ids.insert(welcome.connectionID)
        }
        #expect(ids.count == count)
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug)
        #expect(try debug.stats().connections == UInt64(count + 1))
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGQUIT])
    func aStopSignalSendsShutdownAndExitsZero(signum: Int32) throws {
        let daemon = try DaemonProcess()
        let clients = try (0..<3).map { _ in try RawClient(path: daemon.socketPath) }
        for client in clients { try client.handshake() }
        daemon.signal(signum)
        for client in clients {
            let frames = try client.receiveUntilClosed()
            guard case .shutdown(let shutdown) = frames.last?.body else {
                Issue.record("expected Shutdown, got \(frames)")
                return
            }
            #expect(shutdown.reason == .daemonExiting)
        }
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        let name = [SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"][signum] ?? "?"
        #expect(daemon.logText.contains("received \(name); shutting down"), "\(daemon.logText)")
        #expect(!daemon.logText.contains("crashed"))
    }

    @Test func underNohupSIGHUPStaysIgnored() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/flowd.sock"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        daemon.arguments = [productsDirectory.appendingPathComponent("flowd").path, "--socket", socket, "--no-state"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        var client: RawClient?
        for _ in 0..<500 where client == nil {
            client = try? RawClient(path: socket)
            if client == nil { usleep(20_000) }
        }
        let first = try #require(client, "flowd did not listen under nohup")
        try first.handshake()
        kill(daemon.processIdentifier, SIGHUP)
        // A handled SIGHUP would send Shutdown and exit within this time; an ignored one changes nothing.
        usleep(300_000)
        try first.ping()
        #expect(daemon.isRunning)
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
    }

    @Test func secondDaemonOnTheSameSocketIsRefused() throws {
        let first = try DaemonProcess()
        let second = try ProductRun.run("flowd", ["--socket", first.socketPath])
        #expect(second.status == 69)
        #expect(second.stderr.contains(first.socketPath))
        #expect(second.stderr.contains("already"))
        // The first one is unharmed.
        let client = try RawClient(path: first.socketPath)
        try client.handshake()
        try client.ping()
    }

    @Test func staleSocketFileIsReclaimed() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A daemon killed with SIGKILL leaves its socket file behind.
        do {
            let crashed = try DaemonProcess(directory: directory)
            crashed.signal(SIGKILL)
            #expect(crashed.waitForExit() != nil)
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/flowd.sock"))
        let daemon = try DaemonProcess(directory: directory)
        #expect(daemon.logText.contains("stale"))
        let client = try RawClient(path: daemon.socketPath)
        try client.handshake()
    }

    @Test func badArgumentsExitNonZeroWithTheReason() throws {
        let run = try ProductRun.run("flowd", ["--max-frame-size", "10"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--max-frame-size"))
        let tooLong = "/tmp/" + String(repeating: "x", count: 120) + "/flowd.sock"
        let long = try ProductRun.run("flowd", ["--socket", tooLong])
        #expect(long.status == 73)
        #expect(long.stderr.contains("107"))
    }
}

extension HandshakeTests {
    @Test func secondSignalExitsAtOnce() throws {
        // The first SIGTERM unwinds the tutorial, whose host never acks its Dismiss
        // (60 s ack timeout): only the second signal can end the daemon in time.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--ack-timeout", "60"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        _ = try host.settle()
        daemon.signal(SIGTERM)
        let dismiss = try #require(try host.receive())
        #expect(dismiss.dismiss?.reason == .shutdown)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 30) == 1)
        // The log reader may still be draining the pipe when the exit is seen: wait for the line.
        #expect(daemon.waitForLog("second signal; exiting at once", timeoutSeconds: 10), "\(daemon.logText)")
    }
}
