import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `--pin`: every process on one vCPU, so the scheduler neither moves nor shares it between the
/// server and its load (docs/performance.md, "A pinned run"). The server under test (a C server,
/// flowd with its flush thread, dbus-daemon) runs on the last CPU; flowbench and every load process
/// on the first. A process inherits its parent's CPUs at spawn: pinning flowbench pins each load
/// child, and a server is spawned with this thread moved to the server's CPU for the spawn.
enum Pinning {
    /// Set (and inherited by the children) once this run pins: the two CPUs, "LOAD,SERVER".
    private static let variable = "FLOWBENCH_PINNED"

    /// The load's and the server's CPUs once this run pins (nil: it does not).
    private static var cpus: (load: Int, server: Int)? {
        guard let value = getenv(variable) else { return nil }
        let parts = String(cString: value).split(separator: ",").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// Whether this run pins.
    static var isOn: Bool { cpus != nil }

    /// What the report's header says of it.
    static var description: String? {
        cpus.map { "pinned: the server under test on CPU \($0.server), flowbench and its load on CPU \($0.load)" }
    }

    /// Pins this process (and so every child it starts) to the first CPU it may run on; the server
    /// gets the last (a cgroup's cpuset or offline CPUs may leave gaps in the numbers).
    static func pinLoad() throws {
        var first: Int32 = -1, last: Int32 = -1
        let allowed = cbr_allowed_cpus(&first, &last)
        guard allowed >= 2 else {
            throw BenchError("--pin needs 2 CPUs or more (one for the server, one for its load); this process may run on \(max(allowed, 0))")
        }
        try pin(to: Int(first))
        setenv(variable, "\(first),\(last)", 1)
    }

    /// Runs `spawn`, which starts a server process, with this thread on the server's CPU when the
    /// run pins, then back on the load's (a failure to go back is an error: the load would run beside
    /// the server).
    static func startingServer<T>(_ spawn: () throws -> T) throws -> T {
        guard let cpus else { return try spawn() }
        try pin(to: cpus.server)
        let started = Result { try spawn() }
        try pin(to: cpus.load)
        return try started.get()
    }

    private static func pin(to cpu: Int) throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_pin_to_cpu(Int32(cpu), &error) == 0 else { throw BenchError(context: "--pin", cError: error) }
    }
}
