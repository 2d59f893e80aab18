import FlowdTestSupport
import FlowWire
import Foundation
import ScreenKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("ScreenHost against the real flowd")
struct RealDaemonTests {
    @Test("handshake, ping, then SIGTERM: run() returns .shutdown(.daemonExiting)")
    func handshakePingShutdown() throws {
        let flowd = productsDirectory.appendingPathComponent("flowd").path
        try #require(FileManager.default.isExecutableFile(atPath: flowd), "build flowd first: swift build")
        let daemon = try DaemonProcess()
        let host = try ScreenHost.connect(path: daemon.socketPath, name: "screenkit-test", provides: [])
        #expect(host.daemon.version == 1)
        #expect(host.daemon.server.hasPrefix("flowd"))
        #expect(host.daemon.connectionID > 0)
        #expect(!host.isSpawned)
        try host.ping()
        try host.ping()

        daemon.signal(SIGTERM)
        #expect(try host.run() == .shutdown(.daemonExiting))
        #expect(daemon.waitForExit() == 0)
    }

    /// The refusal ScreenKitTests' fake daemon imitates (ScreenHostTests' handshakeRefused), from flowd
    /// itself: a spawn token on the named socket is a fatal UNAUTHORIZED that says why.
    @Test("a token on the named socket fails connect with flowd's fatal UNAUTHORIZED")
    func tokenRefused() throws {
        let daemon = try DaemonProcess()
        let descriptor = try connectToUnixSocket(path: daemon.socketPath)
        #expect {
            _ = try ScreenHost.connect(descriptor: descriptor, name: "x", token: "wrong")
        } throws: { error in
            let error = try #require(error as? ScreenKitError)
            return error.code == .daemon && error.daemonCode == .unauthorized && error.isFatal
                && error.message.contains("token is only valid on the socket flowd spawned")
        }
        #expect(daemon.process.isRunning, "one refused connection leaves flowd serving")
    }

    @Test("connecting where no daemon listens gives a .connect error that says what to do")
    func noDaemon() {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect {
            _ = try ScreenHost.connect(path: directory + "/none.sock", name: "x", provides: [])
        } throws: { error in
            guard let error = error as? ScreenKitError else { return false }
            return error.code == .connect && error.message.contains("is flowd running?")
        }
    }
}
