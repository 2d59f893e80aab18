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
    @Test func outputOnPipesIsTheParentsToReadAndTheChildCannotGainPrivileges() throws {
        let t = try TestLoop()
        var exit: (Int64, Int32)?
        let process = try UVProcess.spawn(
            loop: t.loop, executable: "/bin/sh",
            arguments: ["-c", "grep NoNewPrivs /proc/$$/status; echo on stderr >&2; printf 'last'; read line; echo \"stdin: [$line]\""],
            standardIO: .pipes, noNewPrivileges: true
        ) { status, signal in exit = (status, signal) }
        let output = try #require(process.standardOutput), error = try #require(process.standardError)
        var out: [UInt8] = [], err: [UInt8] = []
        try output.startReading(onData: { out += $0 }, onEnd: { _ in output.close() })
        try error.startReading(onData: { err += $0 }, onEnd: { _ in error.close() })
        t.run()
        #expect(String(decoding: out, as: UTF8.self) == "NoNewPrivs:\t1\nlaststdin: []\n", "stdin is /dev/null")
        #expect(String(decoding: err, as: UTF8.self) == "on stderr\n")
        #expect(exit?.0 == 0)
        try t.finish(closing: [process])
    }

    @Test func whatAChildWroteBeforeItExitedIsReadWithoutWaiting() throws {
        let t = try TestLoop()
        var exit: (Int64, Int32)?
        var drained: [UInt8] = []
        var process: UVProcess?
        process = try UVProcess.spawn(loop: t.loop, executable: "/bin/sh", arguments: ["-c", "printf 'written before exit'"],
                                      standardIO: .pipes) { status, signal in
            exit = (status, signal)
            // Not read on the loop yet: taken at once, then the pipes and the process are closed.
            process?.standardOutput?.readAvailable(limit: 1 << 20) { drained += $0 }
            process?.standardOutput?.close()
            process?.standardError?.close()
        }
        t.run()
        #expect(String(decoding: drained, as: UTF8.self) == "written before exit")
        #expect(exit?.0 == 0)
        try t.finish(closing: [process!])
    }

    @Test func aMissingExecutableWithPipesThrowsAndLeaksNothing() throws {
        let t = try TestLoop()
        #expect(throws: UVError.noEntry) {
            try UVProcess.spawn(loop: t.loop, executable: "/nonexistent/flowd-test", standardIO: .pipes) { _, _ in
                Issue.record("no exit expected")
            }
        }
        t.run()
        try t.finish()
    }
}
