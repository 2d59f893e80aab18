import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler for a standard error that systemd's journal reads: every line starts with its
/// sd-daemon priority prefix (`<3>` error, `<4>` warning, `<5>` notice, `<6>` info, `<7>` debug and
/// trace, `<2>` critical), so `journalctl -p warning` filters flowd's lines; no timestamp, since the
/// journal adds its own; no label, since the journal names the unit. The message comes first, then the
/// metadata as `key=value`. A message of several lines gets the prefix on each, or the journal would
/// file the rest as info. `standardError(label:)` picks this handler or swift-log's usual one.
public struct JournalLogHandler: LogHandler {
    /// The lowest level written.
    public var logLevel: Logger.Level = .info
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]
    /// Adds metadata from the task or the system.
    public var metadataProvider: Logger.MetadataProvider?
    private let write: @Sendable (String) -> Void

    /// A handler that hands each finished line (or group of lines) to `write`.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Writes to standard error in one `write(2)` per message.
    public static func standardError() -> JournalLogHandler {
        JournalLogHandler { text in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// The handler for `label` on standard error: this one when the journal reads standard error
    /// (`isJournalStandardError`), swift-log's `StreamLogHandler` (timestamps, levels in words) otherwise.
    public static func standardError(label: String) -> any LogHandler {
        isJournalStandardError() ? standardError() : StreamLogHandler.standardError(label: label)
    }

    /// Whether standard error is connected to systemd's journal: `$JOURNAL_STREAM` (`DEVICE:INODE`, set by
    /// systemd for a service whose output goes to the journal) names the file standard error is. A copy of the
    /// variable inherited by a terminal (a shell started from a service) names another file, so a person running
    /// flowd there still gets the usual format. (`$INVOCATION_ID` is no test: a terminal started as a user service
    /// passes it to every shell in it.)
    public static func isJournalStandardError(environmentValue: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) -> Bool {
        guard let value = environmentValue else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// The sd-daemon prefix for `level` (`sd-daemon.h`: `SD_ERR` is `<3>`...).
    public static func prefix(for level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "<7>"
        case .info: "<6>"
        case .notice: "<5>"
        case .warning: "<4>"
        case .error: "<3>"
        case .critical: "<2>"
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        if let error = event.error { all["error"] = "\(error)" }
        let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let prefix = Self.prefix(for: event.level)
        let lines = "\(event.message)\(fields)".split(separator: "\n", omittingEmptySubsequences: false)
        write(lines.map { prefix + $0 + "\n" }.joined())
    }
}
