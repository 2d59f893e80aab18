import Foundation
import Testing
@testable import UVKit

/// A listening socket handed over by a service manager (systemd's socket activation): what is accepted,
/// what is refused and why, and that the socket file is never ours to remove.
@Suite struct PassedSocketTests {
    /// A Unix stream socket bound at `path` (if given), listening if asked; not close-on-exec, as passed sockets are.
    func makeSocket(type: Int32 = Int32(SOCK_STREAM.rawValue), at path: String? = nil, listening: Bool = true) -> Int32 {
        let fd = socket(AF_UNIX, type, 0)
        #expect(fd >= 0)
        if let path {
            #expect(UnixSocketPath.withSocketAddress(path) { bind(fd, $0, $1) } == 0)
        }
        if listening { #expect(Glibc.listen(fd, 8) == 0) }
        return fd
    }

    @Test func aListeningUnixStreamSocketIsServedAndItsFileLeftInPlace() throws {
        let t = try TestLoop()
        let path = t.path("s")
        let fd = makeSocket(at: path)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC == 0)
        let passed = try PassedSocket.inspect(descriptor: fd)
        #expect(passed.path == path)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "children must not inherit it")

        var accepted = 0
        let listener = try UnixSocketListener.listen(loop: t.loop, passed: passed) { pipe in
            accepted += 1
            pipe.close()
        }
        #expect(listener.isPassed)
        #expect(listener.path == path)
        let client = UVPipe(loop: t.loop)
        var result: UVError?? = .none
        try client.connect(path: path) { error in
            result = .some(error)
            client.close()
            listener.close()
        }
        t.run()
        #expect(result == .some(nil))
        #expect(accepted == 1)
        // Closed: the file stays (the service manager's), no lock was taken, and our descriptor is closed.
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        #expect(fcntl(fd, F_GETFD) == -1)
        try t.finish()
    }

    @Test func anAbstractSocketIsNamedWithAnAt() throws {
        let name = "@uvkit-passed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [0] + Array(name.utf8.dropFirst())
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(bound == 0)
        #expect(Glibc.listen(fd, 1) == 0)
        #expect(try PassedSocket.inspect(descriptor: fd).path == name)
    }

    @Test func whatIsNotAListeningUnixStreamSocketIsRefusedByName() throws {
        let t = try TestLoop()
        defer { try? t.finish() }
        let file = open(t.path("file"), O_RDWR | O_CREAT, 0o600)
        let connected = makeSocket(listening: false)
        let datagram = makeSocket(type: Int32(SOCK_DGRAM.rawValue), listening: false)
        let inet = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        defer { for fd in [file, connected, datagram, inet] + pipeEnds { close(fd) } }
        let cases: [(Int32, String)] = [
            (file, "is a regular file, not a socket"),
            (pipeEnds[0], "is a pipe, not a socket"),
            (connected, "is a Unix stream socket that is not listening (a connection, or listen(2) was never called)"),
            (datagram, "is a datagram (SOCK_DGRAM) socket, not a stream (SOCK_STREAM) one"),
            (inet, "is an AF_INET socket, not a Unix-domain (AF_UNIX) one"),
            (999, "is not open"),
        ]
        for (fd, problem) in cases {
            let error = try #require(throws: ListenerError.self) { try PassedSocket.inspect(descriptor: fd) }
            #expect(error.isPassedSocketUnusable)
            #expect(!error.isAlreadyRunning)
            #expect(error.description.hasPrefix("descriptor \(fd), passed by the service manager (LISTEN_FDS), \(problem); "),
                    "\(error.description)")
        }
    }

    @Test func datagramsReachAPathAndAnAbstractName() throws {
        let t = try TestLoop()
        defer { try? t.finish() }
        for address in [t.path("notify"), "@uvkit-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"] {
            let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(receiver) }
            var bytes = Array(address.utf8)
            let abstract = bytes.first == UInt8(ascii: "@")
            if abstract { bytes[0] = 0 }
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) }
            }
            #expect(bound == 0)

            let sender = try UnixDatagramSender(address: address)
            try sender.send("READY=1\nSTATUS=hello")
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            #expect(count > 0)
            #expect(String(decoding: buffer[..<max(0, count)], as: UTF8.self) == "READY=1\nSTATUS=hello")
            sender.close()
            #expect(throws: UVError.self) { try sender.send("WATCHDOG=1") }
        }
        // Nobody there: an error, not a crash or a hang.
        let nobody = try UnixDatagramSender(address: t.path("nobody"))
        let error = try #require(throws: UVError.self) { try nobody.send("READY=1") }
        #expect(error == .noEntry)
        #expect(throws: UVError.self) { try UnixDatagramSender(address: "/" + String(repeating: "x", count: 200)) }
    }
}
