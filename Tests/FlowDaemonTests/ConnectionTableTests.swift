@testable import FlowDaemon
import FlowWire
import Foundation
import Logging
import Testing
import UVKit

/// The connection table alone: who may stay, what it sends in place of a frame too large, how its
/// refusals read. A fake pipe keeps what the table writes.
@Suite struct ConnectionTableTests {
    /// Keeps what is written; closes at once.
    final class Pipe: ConnectionPipe {
        var written: [UInt8] = []
        var closed = false
        var shutDown = false
        func startReading(onData: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping (UVError?) -> Void) throws(UVError) {}
        func stopReading() {}
        func resumeReading() {}
        func write(_ bytes: [UInt8]) { written += bytes }
        var writeQueueSize: Int { 0 }
        func shutdown(_ completion: ((UVError?) -> Void)?) { shutDown = true }
        func close(_ done: (() -> Void)?) { closed = true }

        /// The frames written so far, decoded.
        func frames() throws -> [Flowd_V1_Envelope] {
            var decoder = FrameDecoder()
            decoder.append(written)
            var frames: [Flowd_V1_Envelope] = []
            while let frame = try decoder.nextEnvelope() { frames.append(frame) }
            return frames
        }
    }

    static func table(_ configure: (inout DaemonConfiguration) -> Void = { _ in }) -> ConnectionTable {
        var configuration = DaemonConfiguration(socketPath: "/tmp/unused")
        configure(&configuration)
        return ConnectionTable(configuration: configuration, logger: Logger(label: "connection-table-tests"), throttle: LogThrottle())
    }

    static func errors(_ pipe: Pipe) throws -> [Flowd_V1_Error] {
        try pipe.frames().compactMap { if case .error(let error)? = $0.body { error } else { nil } }
    }

    @Test func anotherUidIsRefusedWithTheExactError() throws {
        var table = Self.table()
        let pipe = Pipe()
        let connection = table.add(pipe, origin: .namedSocket(uid: 4242), peerPID: 7, now: 0)
        table.admit(connection, running: true, allowedUID: 1000, now: 0)
        #expect(connection.isClosing && pipe.shutDown)
        let error = try #require(try Self.errors(pipe).first)
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message == "peer uid 4242 is not the daemon's uid 1000; only the daemon's user may connect")
        #expect(!connection.mayResume)
    }

    @Test func whileStoppingEveryoneIsToldToComeBackLater() throws {
        var table = Self.table()
        let pipe = Pipe()
        let connection = table.add(pipe, origin: .namedSocket(uid: 1000), peerPID: 7, now: 0)
        table.admit(connection, running: false, allowedUID: 1000, now: 0)
        #expect(try Self.errors(pipe).map(\.code) == [.shuttingDown])
    }

    @Test func theConnectionOverTheLimitIsRefusedAndTheOthersStay() throws {
        var table = Self.table { $0.maxConnections = 2 }
        var pipes: [Pipe] = []
        var connections: [Connection] = []
        for pid in [Int32(10), 11, 12] {
            let pipe = Pipe()
            let connection = table.add(pipe, origin: .namedSocket(uid: 1000), peerPID: pid, now: 0)
            table.admit(connection, running: true, allowedUID: 1000, now: 0)
            pipes.append(pipe)
            connections.append(connection)
        }
        #expect(connections.map(\.isClosing) == [false, false, true])
        let error = try #require(try Self.errors(pipes[2]).first)
        #expect(error.code == .limitExceeded && error.message.contains("--max-connections 2"), "\(error.message)")
    }

    @Test func oneProcessHoldsAtMostItsShare() throws {
        var table = Self.table { $0.maxConnections = 100; $0.maxConnectionsPerProcess = 2 }
        var refused: [Bool] = []
        for _ in 0..<3 {
            let connection = table.add(Pipe(), origin: .namedSocket(uid: 1000), peerPID: 42, now: 0)
            table.admit(connection, running: true, allowedUID: 1000, now: 0)
            refused.append(connection.isClosing)
        }
        #expect(refused == [false, false, true])
    }

    /// The count per process follows the table: a refused connection that leaves, and one of the
    /// process's own that closes, make room again; another process and spawned screens do not count.
    @Test func aProcessGetsItsShareBackAsItsConnectionsLeave() throws {
        var table = Self.table { $0.maxConnections = 100; $0.maxConnectionsPerProcess = 2 }
        func connect(_ pid: Int32) -> Connection {
            let connection = table.add(Pipe(), origin: .namedSocket(uid: 1000), peerPID: pid, now: 0)
            table.admit(connection, running: true, allowedUID: 1000, now: 0)
            return connection
        }
        let first = connect(42), second = connect(42)
        let refused = connect(42)
        #expect(!first.isClosing && !second.isClosing && refused.isClosing)
        table.remove(refused.id)
        table.remove(refused.id)  // twice: nothing more leaves
        let again = connect(42)
        #expect(again.isClosing, "still two of its own")
        table.remove(again.id)  // a refused connection counts until it has left, as any closing one
        #expect(!connect(43).isClosing, "another process has its own share")
        let spawned = table.add(Pipe(), origin: .spawned(token: "t"), peerPID: 0, now: 0)
        table.setPeerPID(42, of: spawned.id)
        table.remove(first.id)
        #expect(!connect(42).isClosing, "one of its own left: room for one, the spawned screen not counted")
        #expect(connect(42).isClosing)
    }

    @Test func aFrameTooLargeForThePeerIsAnsweredWithAnErrorInItsPlace() throws {
        var table = Self.table()
        let pipe = Pipe()
        let connection = table.add(pipe, origin: .namedSocket(uid: 1000), peerPID: 7, now: 0)
        table.agreed(.init(version: 1, maxFrameSize: 1_024, role: .debug, name: "t", provides: [], pid: 7), on: connection)
        var stats = Flowd_V1_Stats()
        stats.lastCheckpointRefusal = String(repeating: "x", count: 4_096)
        table.send(.stats(stats), to: connection, replyTo: 9, now: 0)
        connection.flush()
        let frames = try pipe.frames()
        guard case .error(let error)? = frames.first?.body else { Issue.record("no error frame: \(frames)"); return }
        #expect(frames.first?.replyTo == 9)
        #expect(error.code == .limitExceeded && !error.fatal)
        #expect(error.message.contains("over this connection's maximum frame size of 1024 bytes"), "\(error.message)")
    }

    @Test func aToldDisconnectSendsItsShutdownFirst() throws {
        var table = Self.table()
        let pipe = Pipe()
        let connection = table.add(pipe, origin: .namedSocket(uid: 1000), peerPID: 7, now: 0)
        table.disconnectNow(connection.id, telling: .init(reason: .hung, message: "no Pong"))
        #expect(pipe.closed)
        guard case .shutdown(let shutdown)? = try pipe.frames().first?.body else { Issue.record("no Shutdown"); return }
        #expect(shutdown.reason == .hung && shutdown.message == "no Pong")
    }
}
