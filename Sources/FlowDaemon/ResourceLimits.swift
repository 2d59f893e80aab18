#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-wide limits the daemon needs; executables call these from `main`.
public enum ResourceLimits {
    /// Raises the soft limit on open descriptors to the hard limit, because
    /// every client costs one descriptor. Returns the new soft limit.
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return UInt64(limit.rlim_cur)
    }

    /// This process's soft limit on open descriptors (`RLIMIT_NOFILE`); 1,024 when it cannot be read,
    /// and at most `Int32.max` when unlimited.
    public static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// The number of descriptors this process has open (entries of /proc/self/fd).
    public static func openDescriptorCount() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(2)) }
            if name.first != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1  // the directory stream itself
    }
}
