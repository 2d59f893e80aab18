#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Descriptors a process inherited from whoever started it. libuv opens everything close-on-exec, but
/// what the parent left open without that flag (a shell's `exec 7<file`, a supervisor's pipe) would
/// pass on to every process this one spawns. `markCloseOnExec` sets the flag on each of them, so a
/// spawned child gets only what is handed to it on purpose (its standard streams and its socket).
public enum InheritedDescriptors {
    /// Sets `FD_CLOEXEC` on every open descriptor from `lowest` up (`/proc/self/fd`; where it cannot be
    /// listed, every number below the open-file limit). Returns how many lacked the flag.
    @discardableResult
    public static func markCloseOnExec(from lowest: Int32 = 3) -> Int {
        var marked = 0
        for fd in openDescriptors() where fd >= lowest {
            let flags = fcntl(fd, F_GETFD)
            guard flags >= 0, flags & FD_CLOEXEC == 0 else { continue }
            if fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 { marked += 1 }
        }
        return marked
    }

    /// The descriptors open now, read before any is changed (the listing's own descriptor included,
    /// harmlessly: it is closed, and close-on-exec, by then).
    private static func openDescriptors() -> [Int32] {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            return names.compactMap { Int32($0) }.sorted()
        }
        var limit = rlimit()
        let top = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? min(Int32(clamping: limit.rlim_cur), 65_536) : 1_024
        return Array(0..<top)
    }
}
