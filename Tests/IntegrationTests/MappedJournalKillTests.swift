import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's commits are memory copies into a mapped segment of the journal allocated ahead
/// (docs/journal.md, "A commit is a memory copy"): what a host was answered is in the file after a
/// SIGKILL (no msync; the pages belong to the kernel), the next start reads the zeros after the frames
/// as the end and goes on right after the frames, and a stop cuts the zeros away.
@Suite(.serialized) struct MappedJournalKillTests {
    typealias Host = BadStateTests.Host

    @Test func whatWasAnsweredOutlivesASIGKILLAndTheNextStartGoesOnAfterIt() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/deep-stack.journal"
        try BadStateTests.makeJournal(at: path, presses: 5, end: .kill)
        let killed = try #require(BadStateTests.bytes(path))
        let offsets = try BadStateTests.frameOffsets(killed)
        #expect(offsets.count == 6, "a frame per press: \(offsets.count - 1)")
        #expect(killed.count > offsets.last!, "the daemon had allocated ahead of its frames")
        #expect(onlyZeros(killed, from: offsets.last!))

        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(daemon.waitForLog("restored the app from its journal"), "\(daemon.logText)")
        #expect(try BadStateTests.stats(daemon.socketPath).restoredInputs == 5)
        #expect(daemon.logText.contains("zero bytes after its last batch"), "\(daemon.logText)")
        #expect(!daemon.logText.contains("torn write"), "zeros allocated ahead are not a torn write: \(daemon.logText)")
        let host = try Host(socket: daemon.socketPath)
        try #require(try host.push() != nil)
        daemon.signal(SIGTERM)
        while let frame = try host.client.receive() { try host.client.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0, "\(daemon.logText)")

        let stopped = try #require(BadStateTests.bytes(path))
        let frames = try BadStateTests.frameOffsets(stopped)
        #expect(frames.count == 8, "the new press right after the five, then the record a stop leaves for a new version (kind 68)")
        #expect(frames.last == stopped.count, "a stop cuts the zeros allocated ahead away")
        #expect(Array(stopped.prefix(offsets.last!)) == Array(killed.prefix(offsets.last!)), "the frames before are as they were")
        let again = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", path], directory: directory)
        #expect(try BadStateTests.stats(again.socketPath).restoredInputs == 6)
    }

    /// A burst of commits leaves a flush due a second after the last one (`DaemonJournal.syncDueAt`),
    /// which the loop's deadline timer asks for. A deadline that the timer's own callback did not clear
    /// was re-armed for the past, and libuv 1.44 ran it again in the same phase forever: a daemon
    /// spinning at 100% of a CPU, answering nothing. Idle after the burst, it must use next to no CPU
    /// and still answer.
    @Test func anIdleDaemonAfterABurstOfCommitsDoesNotSpinOnTheFlushDeadline() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack", "--state", directory + "/deep-stack.journal"], directory: directory)
        let host = try Host(socket: daemon.socketPath)
        for _ in 0..<5 { try #require(try host.push() != nil) }
        let before = try #require(Self.cpuTicks(of: daemon.process.processIdentifier))
        Thread.sleep(forTimeInterval: 2.5)
        let after = try #require(Self.cpuTicks(of: daemon.process.processIdentifier))
        let hertz = Int(sysconf(Int32(_SC_CLK_TCK)))
        #expect(after - before < hertz / 2, "flowd used \(after - before) ticks of CPU (\(hertz) a second) in 2.5 s idle")
        #expect(try BadStateTests.stats(daemon.socketPath).restoredInputs == 0, "it still answers")
        daemon.signal(SIGTERM)
        while let frame = try host.client.receive() { try host.client.ackAll([frame]) }
        #expect(daemon.waitForExit() == 0, "\(daemon.logText)")
    }

    /// User and system CPU of a process, in clock ticks (`/proc/PID/stat`, fields 14 and 15).
    static func cpuTicks(of pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
