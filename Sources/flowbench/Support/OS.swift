import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Flushes the C standard output so a parent reading our pipe sees the line now.
func fflushStandardOutput() {
    fflush(nil)
}

/// Small facts about processes and the machine, read from /proc and getrlimit.
enum OS {
    /// Raises the soft open-file limit to the hard one: benchmarks open thousands of sockets.
    /// Returns the limit now in force.
    @discardableResult
    static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return UInt64(limit.rlim_cur)
    }

    /// The path of the running executable (children are this binary re-executed).
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Resident memory of `pid` in bytes (VmRSS of /proc/<pid>/status).
    static func residentBytes(pid: Int32) throws -> UInt64 {
        try statusField("VmRSS", pid: pid) * 1024
    }

    /// A `kB` field of /proc/<pid>/status, in kB.
    static func statusField(_ name: String, pid: Int32) throws -> UInt64 {
        let path = "/proc/\(pid)/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read \(path); is process \(pid) still running?")
        }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { UInt64($0) }
            if let number { return number }
        }
        throw BenchError("\(path) has no \(name) line")
    }

    /// Wall-clock time in nanoseconds since the Unix epoch: the clock of the daemon's events
    /// (`Event.time_unix_nanos`), so a time taken here lines up with theirs.
    static func wallClockNanos() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// A short scratch directory under /tmp (socket paths must stay under 108 bytes).
    static func makeScratchDirectory() throws -> String {
        var template = Array("/tmp/flowbench-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let path else {
            throw BenchError("cannot create a scratch directory in /tmp: \(String(cString: strerror(errno)))")
        }
        return String(cString: path)
    }

    /// Removes a scratch directory and everything in it.
    static func removeDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A description of this machine for the report: cores, CPU model, kernel.
    static var machineDescription: String {
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let modelLine = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        let model = modelLine?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(cores) cores, \(model ?? "unknown CPU"), Linux \(kernel)"
    }

    /// The CPUs this process may run on, as the kernel lists them (`Cpus_allowed_list`: "0", "0-1").
    static var allowedCPUs: String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
        return line.map { $0.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces) } ?? "?"
    }

    /// The 1-, 5- and 15-minute load averages (`/proc/loadavg`), to tell a quiet run from a busy one.
    static var loadAverage: [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }
}
