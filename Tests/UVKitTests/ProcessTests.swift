import Foundation
import Testing
@testable import UVKit

@Suite struct ProcessTests {
    @Test func childWritesOnInheritedSocket() throws {
        let t = try TestLoop()
        let fds = try SocketPair.make()
        let parent = UVPipe(loop: t.loop)
        try parent.open(fd: fds.parent)
        var exit: (Int64, Int32)?
        let process = try UVProcess.spawn(
            loop: t.loop, executable: "/bin/sh", arguments: ["-c", "echo hello from $FLOWD_TEST >&3"],
            environment: ["FLOWD_TEST": "child"], inheritedDescriptors: [fds.child]
        ) { status, signal in exit = (status, signal) }
        #expect(process.pid > 0)
        var received: [UInt8] = []
        var end: UVError?? = .none
        try parent.startReading(onData: { received += $0 }, onEnd: { error in
            end = .some(error)
            parent.close()
        })
        t.run()
        #expect(String(decoding: received, as: UTF8.self) == "hello from child\n")
        #expect(end == .some(nil))  // EOF: spawn closed our copy of the child end, and the child is gone
        #expect(exit?.0 == 0 && exit?.1 == 0)
        #expect(process.hasExited)
        try t.finish(closing: [process])
    }

    @Test func exitStatusIsReported() throws {
        let t = try TestLoop()
        var exit: (Int64, Int32)?
        let process = try UVProcess.spawn(loop: t.loop, executable: "/bin/sh", arguments: ["-c", "exit 3"],
                                          standardIO: .ignore) { status, signal in exit = (status, signal) }
        t.run()
        #expect(exit?.0 == 3 && exit?.1 == 0)
        try t.finish(closing: [process])
    }

    @Test func terminatingSignalIsReported() throws {
        let t = try TestLoop()
        var exit: (Int64, Int32)?
        let process = try UVProcess.spawn(loop: t.loop, executable: "/bin/sleep", arguments: ["60"]) { status, signal in
            exit = (status, signal)
        }
        try process.kill(SIGKILL)
        t.run()
        #expect(exit?.1 == SIGKILL)
        #expect(throws: UVError.noSuchProcess) { try process.kill(SIGTERM) }
        try t.finish(closing: [process])
    }

    @Test func missingExecutableThrowsAndLeaksNothing() throws {
        let t = try TestLoop()
        let fds = try SocketPair.make()
        #expect(throws: UVError.noEntry) {
            try UVProcess.spawn(loop: t.loop, executable: "/nonexistent/flowd-test", inheritedDescriptors: [fds.child]) { _, _ in
                Issue.record("no exit expected")
            }
        }
        // spawn closed the child end on failure too: the parent end reads EOF.
        let parent = UVPipe(loop: t.loop)
        try parent.open(fd: fds.parent)
        var end: UVError?? = .none
        try parent.startReading(onData: { _ in }, onEnd: { error in
            end = .some(error)
            parent.close()
        })
        t.run()
        #expect(end == .some(nil))
        try t.finish()
    }
}
