import Logging

/// Bounds how many log lines of one kind a peer can cause: at most `burst` lines per kind in each
/// `window` of the loop's clock; the lines left out are counted and said with the next line let
/// through (`suppressed` in its metadata). For what a client can repeat at will (refused
/// connections, frames over a limit, injections): 75,000 injections in 3 s are a few lines, not
/// 75,000. Loop thread only; shared by the daemon's two halves like `EventBus`.
final class LogThrottle {
    private struct Bucket {
        var windowStart: UInt64
        var lines: Int
        var suppressed: Int
    }

    /// Lines of one kind let through per window.
    let burst: Int
    /// The window, in milliseconds of the loop's clock.
    let window: UInt64
    private var buckets: [String: Bucket] = [:]

    init(burst: Int = 10, window: UInt64 = 1_000) {
        self.burst = burst
        self.window = window
    }

    /// Logs `message` at `level` unless `key`'s lines this window are spent (then it is counted).
    func log(_ logger: Logger, _ level: Logger.Level, _ key: String, _ message: @autoclosure () -> String,
             _ metadata: @autoclosure () -> Logger.Metadata = [:], now: UInt64) {
        guard logger.logLevel <= level else { return }
        var bucket = buckets[key] ?? Bucket(windowStart: now, lines: 0, suppressed: 0)
        if now >= bucket.windowStart + window {
            bucket.windowStart = now
            bucket.lines = 0
        }
        guard bucket.lines < burst else {
            bucket.suppressed += 1
            buckets[key] = bucket
            return
        }
        bucket.lines += 1
        var said = metadata()
        if bucket.suppressed > 0 {
            said["suppressed"] = "\(bucket.suppressed) similar lines left out since the last one"
            bucket.suppressed = 0
        }
        buckets[key] = bucket
        logger.log(level: level, "\(message())", metadata: said.isEmpty ? nil : said)
    }

    /// The lines of `key` left out since the last one let through, now forgotten: for a last word when
    /// what caused them is gone (a child's output at its exit).
    func takeSuppressed(_ key: String) -> Int {
        guard let bucket = buckets.removeValue(forKey: key) else { return 0 }
        return bucket.suppressed
    }
}

extension String {
    /// At most `limit` UTF-8 bytes of the string, cut at a character boundary, with how much was left
    /// out: what a log line or an error quotes from a peer (a name, a list of kinds) is bounded, so
    /// that one `Hello` cannot write a line of a megabyte.
    func bounded(_ limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        while end > startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        let kept = String(self[..<end])
        return kept + "… (\(utf8.count - kept.utf8.count) more bytes)"
    }
}
