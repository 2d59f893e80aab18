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

    private let pid: Int32
    private let kind: String
    /// Its screen (nil while its process waits in a warm pool).
    var screen: ScreenID?
    private let logger: Logger
    private let loop: UVLoop
    private let throttle = LogThrottle(burst: ChildOutputLog.burst, window: 1_000)
    private var streams: [(stream: Stream, pipe: UVPipe, lines: OutputLines)]

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
