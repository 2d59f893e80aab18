import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("ScreenHost.fromEnvironment")
struct EnvironmentTests {
    @Test("a spawned host handshakes on the inherited descriptor with the token and marks it close-on-exec")
    func inheritedDescriptor() throws {
        let daemon = try FakeDaemon()
        // The descriptor is inherited in the sense that matters: created before, named by number.
        var welcome = Flowd_V1_Welcome()
        welcome.version = 1
        welcome.connectionID = 3
        try daemon.send(.welcome(welcome), replyTo: 1)
        let environment = ["FLOWD_SOCKET_FD": "\(daemon.hostDescriptor)", "FLOWD_TOKEN": "one-time"]
        #expect(ScreenHost.isSpawned(environment: environment))
        let host = try ScreenHost.fromEnvironment(name: "spawned", environment: environment)
        #expect(host.isSpawned)
        #expect(host.endsWhenLastScreenDismissed)
        #expect(host.daemon.connectionID == 3)
        #expect(fcntl(daemon.hostDescriptor, F_GETFD) & FD_CLOEXEC != 0)

        let hello = try daemon.receive()
        guard case .hello(let body) = hello.body else {
            Issue.record("expected Hello, got \(hello.bodyName)")
            return
        }
        #expect(body.token == "one-time")
        #expect(body.name == "spawned")
        #expect(body.role == .screenHost)
        #expect(body.provides.isEmpty)
    }

    @Test("missing FLOWD_SOCKET_FD says the process was not spawned by flowd")
    func missingDescriptor() {
        #expect(!ScreenHost.isSpawned(environment: [:]))
        expectEnvironmentError([:], mentioning: "FLOWD_SOCKET_FD is not set")
        expectEnvironmentError(["FLOWD_TOKEN": "t"], mentioning: "FLOWD_SOCKET_FD is not set")
    }

    @Test("a FLOWD_SOCKET_FD that is not a number is rejected")
    func malformedDescriptor() {
        expectEnvironmentError(["FLOWD_SOCKET_FD": "three", "FLOWD_TOKEN": "t"], mentioning: "is not a file descriptor number")
        expectEnvironmentError(["FLOWD_SOCKET_FD": "-1", "FLOWD_TOKEN": "t"], mentioning: "is not a file descriptor number")
    }

    @Test("a missing FLOWD_TOKEN is rejected")
    func missingToken() {
        expectEnvironmentError(["FLOWD_SOCKET_FD": "3"], mentioning: "FLOWD_TOKEN is not set")
        expectEnvironmentError(["FLOWD_SOCKET_FD": "3", "FLOWD_TOKEN": ""], mentioning: "FLOWD_TOKEN is not set")
    }

    @Test("a descriptor that is closed, or not a socket, is rejected")
    func badDescriptor() throws {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        // A number above the descriptor limit is never open; a number we close
        // ourselves could be reused at once by a test running in parallel.
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let neverOpen = Int32(min(UInt64(limit.rlim_cur), UInt64(Int32.max - 1)) + 1)
        expectEnvironmentError(["FLOWD_SOCKET_FD": "\(neverOpen)", "FLOWD_TOKEN": "t"], mentioning: "names no open file descriptor")
        expectEnvironmentError(["FLOWD_SOCKET_FD": "\(fds[0])", "FLOWD_TOKEN": "t"], mentioning: "is not a socket")
    }

    private func expectEnvironmentError(
        _ environment: [String: String], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            _ = try ScreenHost.fromEnvironment(name: "x", environment: environment)
        } throws: { error in
            guard let error = error as? ScreenKitError else { return false }
            return error.code == .environment && error.message.contains(text)
        }
    }
}
