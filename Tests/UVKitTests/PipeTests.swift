import Foundation
import Testing
@testable import UVKit

@Suite struct PipeTests {
    /// Two pipes joined by a socketpair.
    func pair(_ t: TestLoop) throws -> (UVPipe, UVPipe) {
        let fds = try SocketPair.make()
        let a = UVPipe(loop: t.loop), b = UVPipe(loop: t.loop)
        try a.open(fd: fds.parent)
        try b.open(fd: fds.child)
        return (a, b)
    }

    @Test func listenConnectAndEchoInChunks() throws {
        let t = try TestLoop()
        let path = t.path("s")
        let message = pattern(100_000)
        var serverReceived: [UInt8] = []
        var serverEnd: UVError?? = .none
        var listener: UnixSocketListener?
        listener = try UnixSocketListener.listen(loop: t.loop, path: path) { server in
            record {
                try server.startReading(onData: { chunk in
                    serverReceived += chunk
                    server.write(chunk)  // echo
                }, onEnd: { error in
                    serverEnd = .some(error)
                    server.close()
                })
            }
        }
        #expect(listener?.reclaimedStaleSocket == false)
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))

        let client = UVPipe(loop: t.loop)
        var clientReceived: [UInt8] = []
        var connected = false
        try client.connect(path: path) { error in
            #expect(error == nil)
            connected = true
            // Three writes of odd sizes; the reads arrive in whatever chunks the kernel makes.
            client.write(message[0..<7].map { $0 })
            message[7..<40_000].withUnsafeBytes { client.write($0) }
            client.write(Array(message[40_000...]))
        }
        try client.startReading(onData: { chunk in
            clientReceived += chunk
            if clientReceived.count == message.count { client.shutdown() }
        }, onEnd: { error in
            #expect(error == nil)
            client.close()
            listener?.close()
        })
        t.run()
        #expect(connected)
        #expect(serverReceived == message)
        #expect(clientReceived == message)
        #expect(serverEnd == .some(nil))
        // Closing the listener removed what it created.
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        try t.finish()
    }

    @Test func largeWriteQueuesThenDrains() throws {
        let t = try TestLoop()
        let (writer, reader) = try pair(t)
        let message = pattern(2 << 20)
        writer.write(message)
        // The kernel buffer is far smaller than 2 MiB: the rest waits in the write queue.
        #expect(writer.writeQueueSize > 0)
        #expect(writer.writeQueueSize < message.count)
        #expect(writer.pendingWriteRequests == 1)
        var received: [UInt8] = []
        received.reserveCapacity(message.count)
        var queueAtEnd = -1
        try reader.startReading(onData: { chunk in
            #expect(chunk.count <= UVLoop.readBufferSize)
            received += chunk
            if received.count == message.count {
                queueAtEnd = writer.writeQueueSize
                reader.close()
                writer.close()
            }
        }, onEnd: { error in Issue.record("unexpected end: \(String(describing: error))") })
        t.run()
        #expect(received == message)
        #expect(queueAtEnd == 0)
        try t.finish()
    }

    @Test func writesKeepOrderBehindAQueuedWrite() throws {
        let t = try TestLoop()
        let (writer, reader) = try pair(t)
        let big = pattern(1 << 20), small: [UInt8] = [1, 2, 3]
        writer.write(big)
        writer.write(small)  // must not overtake the queued remainder of `big`
        #expect(writer.pendingWriteRequests == 2)
        var received: [UInt8] = []
        try reader.startReading(onData: { chunk in
            received += chunk
            if received.count == big.count + small.count { reader.close() }
        }, onEnd: { _ in })
        t.run()
        #expect(received == big + small)
        try t.finish(closing: [writer])
    }

    @Test func endOfStreamIsReportedOnce() throws {
        let t = try TestLoop()
        let (a, b) = try pair(t)
        var ends: [UVError?] = []
        try b.startReading(onData: { _ in }, onEnd: { error in
            ends.append(error)
            b.close()
        })
        a.write([42])
        a.close()
        t.run()
        #expect(ends.count == 1)
        #expect(ends.first == .some(nil))
        try t.finish()
    }

    @Test func writeToClosedPeerIsReportedNotFatal() throws {
        let t = try TestLoop()
        let (a, b) = try pair(t)
        b.close()
        t.run()
        var errors: [UVError] = []
        a.onWriteError = { error in
            errors.append(error)
            a.close()
        }
        a.write([1, 2, 3])
        #expect(errors.isEmpty)  // never reported from inside write()
        a.write([4])  // dropped after the failure, reported at most once
        t.run()
        #expect(errors.count == 1)
        #expect(errors.first == .brokenPipe || errors.first == .connectionReset)
        try t.finish()
    }

    @Test func closingCancelsQueuedWritesSilently() throws {
        let t = try TestLoop()
        let (a, b) = try pair(t)
        var errors: [UVError] = []
        a.onWriteError = { errors.append($0) }
        a.write(pattern(1 << 20))
        #expect(a.pendingWriteRequests == 1)
        a.close()
        b.close()
        t.run()
        #expect(errors.isEmpty)
        try t.finish()
    }

    /// A client connected to a listener in this process: the loop, the client and the server's side.
    private static func connectedToThisProcess() throws -> (TestLoop, UVPipe, UVPipe?) {
        let t = try TestLoop()
        let path = t.path("s")
        var serverSide: UVPipe?
        var listener: UnixSocketListener?
        listener = try UnixSocketListener.listen(loop: t.loop, path: path) { server in
            serverSide = server
            listener?.close()
        }
        let client = UVPipe(loop: t.loop)
        try client.connect(path: path) { error in #expect(error == nil) }
        t.run()
        return (t, client, serverSide)
    }

    @Test func peerCredentialsNameThisProcess() throws {
        let (t, client, serverSide) = try Self.connectedToThisProcess()
        let credentials = try #require(serverSide?.peerCredentials())
        #expect(credentials.pid == getpid())
        #expect(credentials.uid == getuid())
        #expect(credentials.gid == getgid())
        #expect(client.peerCredentials()?.pid == getpid())
        #expect(client.fileDescriptor != nil)
        try t.finish(closing: [client, serverSide])
        #expect(serverSide?.fileDescriptor == nil)
    }

    /// Who the peer is, proven through a pidfd: this process's executable and cgroup, as /proc says.
    @Test func peerProcessNamesThisProcessThroughItsPidfd() throws {
        let (t, client, serverSide) = try Self.connectedToThisProcess()
        let peer = try #require(serverSide?.peerProcess())
        #expect(peer.pid == getpid() && peer.uid == getuid() && peer.gid == getgid())
        #expect(peer.proof == .peerPidfd, "Linux 6.5 and later give SO_PEERPIDFD")
        #expect(peer.executable == URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
        let cgroup = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        #expect(peer.cgroup == PeerProcess.unifiedCgroup(cgroup))
        #expect(peer.cgroup?.hasPrefix("/") == true)
        try t.finish(closing: [client, serverSide])
    }

    /// What keeps a recycled pid from being trusted: a pidfd says when its process is gone.
    @Test func aPidfdSaysWhenItsProcessIsGone() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        let pidfd = try #require(ProcessDescriptor.open(pid: child.processIdentifier))
        #expect(pidfd.isAlive)
        // SIGKILL, not `terminate()`: the child inherits the spawning thread's signal mask, and in the
        // whole suite a thread with SIGTERM blocked left `sleep` its full 30 s.
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(!pidfd.isAlive, "reaped: its pid may name another process now")
        pidfd.close()
        #expect(pidfd.fd == -1 && !pidfd.isAlive)
    }

    @Test func theUnifiedCgroupIsTheZeroLine() {
        #expect(PeerProcess.unifiedCgroup("12:cpu:/x\n0::/user.slice/session-2.scope\n") == "/user.slice/session-2.scope")
        #expect(PeerProcess.unifiedCgroup("12:cpu:/x\n") == nil)
        #expect(PeerProcess.unifiedCgroup(nil) == nil)
    }

    @Test func connectToMissingSocketFails() throws {
        let t = try TestLoop()
        let client = UVPipe(loop: t.loop)
        var result: UVError?
        try client.connect(path: t.path("nothing")) { result = $0 }
        t.run()
        #expect(result == .noEntry)
        #expect(result?.function == "uv_pipe_connect")
        try t.finish(closing: [client])
    }

    @Test func connectWithTooLongPathThrows() throws {
        let t = try TestLoop()
        let client = UVPipe(loop: t.loop)
        #expect(throws: UVError.nameTooLong) {
            try client.connect(path: "/tmp/" + String(repeating: "x", count: 200)) { _ in }
        }
        try t.finish(closing: [client])
    }
}
