#if canImport(Glibc)
import Glibc
#endif

/// Writes to the process's standard error, unbuffered: a `write(2)` on descriptor 2 until all is
/// written. Not `FileHandle.standardError` (full Foundation, and with it ICU's data, in a static
/// flowd; docs/performance.md, "On a device"), nor C's `stderr` (a global Swift 6 does not let
/// concurrent code touch).
package enum StandardError {
    package static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
