import FlowKit
import Logging
import UVKit

/// Reads a spawned screen's standard output and error (pipes, `UVProcess.StandardIO.pipes`) on the
/// loop and logs each line as the child's: message `KIND[PID] STREAM: TEXT`, with `pid`, `kind`,
/// `screen` and `stream` as metadata, the text bounded and escaped (`OutputLines`), at most `burst`
/// lines a second per child (`LogThrottle`; the lines left out are counted in the next one, or in a
/// last line at exit). So a child cannot write a line that passes for the daemon's, nor flood its log.
/// Loop thread only.
final class ChildOutputLog {
    /// A child's output stream, as the log names it.
    enum Stream: String {
        case stdout, stderr
    }

    /// Lines logged per child per second of the loop's clock before the rest are only counted.
    static let burst = 100
    /// The longest line logged, in bytes of the child's output.
    static let lineLimit = 1_024
    /// At most this much is read at the child's exit, of what it wrote last (the pipe's buffer holds less).
    static let drainLimit = 1 << 20
    /// Bytes of output read per child per second of the loop's clock; past it, reading pauses until
    /// the second ends and the child waits on its writes. What is read past the lines logged is only
    /// counted, but reading it costs the loop: without this bound a child writing as fast as it can
    /// kept flowd's loop busy (a debug build at 99% of a core under `yes`).
    static let bytesPerSecond = 1 << 20

    private let pid: Int32
    private let kind: String
    /// Its screen (nil while its process waits in a warm pool).
    var screen: ScreenID?
    private let logger: Logger
    private let loop: UVLoop
    private let throttle = LogThrottle(burst: ChildOutputLog.burst, window: 1_000)
    private var streams: [(stream: Stream, pipe: UVPipe, lines: OutputLines)]
    /// The second of the loop's clock the bytes read are counted in, and the count.
    private var windowStart: UInt64 = 0
    private var bytesThisWindow = 0
    /// Resumes reading when the second ends (made at the first pause).
    private var resumeTimer: UVTimer?
    private var isPaused = false
    /// Set by `finish`: nothing is read or paused any more.
    private var isFinished = false

    /// Logs what `output` and `error` carry, for the process `pid` of `kind`; nothing is read until `start()`.
    init(pid: Int32, kind: String, screen: ScreenID?, output: UVPipe, error: UVPipe, loop: UVLoop, logger: Logger) {
        self.pid = pid
        self.kind = kind
        self.screen = screen
        self.loop = loop
        self.logger = logger
        streams = [(.stdout, output, OutputLines(limit: Self.lineLimit)), (.stderr, error, OutputLines(limit: Self.lineLimit))]
    }

    /// Starts reading both streams. A stream that cannot be read is closed (its child's writes then fail).
    func start() {
        for index in streams.indices {
            let pipe = streams[index].pipe
            do {
                try pipe.startReading(
                    onData: { [unowned self] bytes in received(bytes, on: index) },
                    onEnd: { [unowned self] _ in ended(index) })
            } catch {
                logger.warning("cannot read a screen process's output", metadata: metadata(streams[index].stream).merging(["error": "\(error)"]) { $1 })
                pipe.close()
            }
        }
    }

    /// The child exited: reads what it wrote last, logs the lines left, closes both pipes and runs `done`
    /// once they are closed. Output written after this by a process it left behind is not read.
    func finish(_ done: @escaping () -> Void) {
        isFinished = true
        var open = 0
        for index in streams.indices where !streams[index].pipe.isClosing {
            streams[index].pipe.readAvailable(limit: Self.drainLimit) { received($0, on: index) }
            ended(index)
            open += 1
        }
        let leftOut = throttle.takeSuppressed("output")
        if leftOut > 0 {
            logger.info("\(kind)[\(pid)]: \(leftOut) lines of output left out (over \(Self.burst) a second)", metadata: metadata(nil))
        }
        if let timer = resumeTimer {
            resumeTimer = nil
            open += 1
            timer.close {
                open -= 1
                if open == 0 { done() }
            }
        }
        guard open > 0 else { return done() }
        for index in streams.indices where !streams[index].pipe.isClosing {
            streams[index].pipe.close {
                open -= 1
                if open == 0 { done() }
            }
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer, on index: Int) {
        for line in streams[index].lines.append(bytes) { log(line, streams[index].stream) }
        count(bytes.count)
    }

    /// Counts what was read in this second; past `bytesPerSecond`, reading pauses until it ends.
    private func count(_ read: Int) {
        let now = loop.now
        if now >= windowStart + 1_000 {
            windowStart = now
            bytesThisWindow = 0
        }
        bytesThisWindow += read
        guard bytesThisWindow >= Self.bytesPerSecond, !isPaused, !isFinished else { return }
        isPaused = true
        for entry in streams where !entry.pipe.isClosing { entry.pipe.stopReading() }
        throttle.log(logger, .notice, "paused", "\(kind)[\(pid)] writes more than \(Self.bytesPerSecond >> 20) MiB of output a second; reading it pauses until the second ends", metadata(nil), now: now)
        let timer = resumeTimer ?? UVTimer(loop: loop)
        resumeTimer = timer
        timer.start(after: max(1, windowStart + 1_000 - now)) { [unowned self] in resume() }
    }

    private func resume() {
        isPaused = false
        windowStart = loop.now
        bytesThisWindow = 0
        for entry in streams where !entry.pipe.isClosing { entry.pipe.resumeReading() }
    }

    /// The stream ended (the child closed it, or exited): its last line, if it had no newline.
    private func ended(_ index: Int) {
        if let line = streams[index].lines.finish() { log(line, streams[index].stream) }
    }

    private func log(_ line: OutputLines.Line, _ stream: Stream) {
        let note = line.cut ? " … (cut: longer than \(Self.lineLimit) bytes)" : line.unterminated ? " (no newline at its end)" : ""
        throttle.log(logger, .info, "output", "\(kind)[\(pid)] \(stream.rawValue): \(line.text)\(note)", metadata(stream), now: loop.now)
    }

    private func metadata(_ stream: Stream?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["pid": "\(pid)", "kind": "\(kind)", "screen": "\(screen.map { "\($0)" } ?? "none (pooled)")"]
        if let stream { metadata["stream"] = "\(stream.rawValue)" }
        return metadata
    }
}
