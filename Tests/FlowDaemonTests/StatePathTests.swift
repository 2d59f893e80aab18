import FlowDaemon
import FlowWire
import Foundation
import Testing

/// Where a daemon journals when it is not told: its app on its socket.
@Suite("The default journal path")
struct StatePathTests {
    let environment = ["XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/user/7"]

    @Test func onTheUsersDefaultSocketItIsTheAppsJournal() {
        let socket = WireProtocol.defaultSocketPath(environment: environment, uid: 7)
        #expect(StatePath.default(app: "tutorial", socketPath: socket, environment: environment, uid: 7) == "/s/flowd/tutorial.journal")
        #expect(StatePath.default(app: "tutorial", environment: environment, uid: 7) == "/s/flowd/tutorial.journal")
        // $FLOWD_SOCKET naming the default path is the default socket too.
        var pointing = environment
        pointing[WireProtocol.socketPathEnvironmentVariable] = socket
        #expect(StatePath.default(app: "tutorial", socketPath: socket, environment: pointing, uid: 7) == "/s/flowd/tutorial.journal")
    }

    @Test func onAnotherSocketItIsItsOwnAndTheSameOnEveryStart() {
        let one = StatePath.default(app: "tutorial", socketPath: "/tmp/a/t1.sock", environment: environment, uid: 7)
        let two = StatePath.default(app: "tutorial", socketPath: "/tmp/b/t1.sock", environment: environment, uid: 7)
        #expect(one.hasPrefix("/s/flowd/tutorial@t1.sock-") && one.hasSuffix(".journal"), "\(one)")
        #expect(one != two, "the same file name in two folders is two sockets")
        #expect(one == StatePath.default(app: "tutorial", socketPath: "/tmp/a/t1.sock", environment: environment, uid: 7))
        // The hash is fixed (FNV-1a), not Swift's per-process Hasher: a restart finds its journal.
        #expect(one == "/s/flowd/tutorial@t1.sock-\(Self.expectedHash("/tmp/a/t1.sock")).journal")
    }

    @Test func aRelativeSocketPathIsTheSocketItNames() {
        let here = FileManager.default.currentDirectoryPath
        let relative = StatePath.default(app: "x", socketPath: "./a/../s.sock", environment: environment, uid: 7)
        #expect(relative == StatePath.default(app: "x", socketPath: here + "/s.sock", environment: environment, uid: 7))
    }

    @Test func aSocketNameIsKeptToSafeCharacters() {
        let path = StatePath.default(app: "x", socketPath: "/tmp/my socket;rm -rf.sock", environment: environment, uid: 7)
        let name = (path as NSString).lastPathComponent
        #expect(name.hasPrefix("x@my_socket_rm_-rf.sock-"), "\(name)")
        #expect(!name.contains(" ") && !name.contains(";"))
    }

    /// FNV-1a 64 folded to 32 bits, written out here to pin the file names of journals in use.
    static func expectedHash(_ text: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        return String(format: "%08x", folded)
    }
}
