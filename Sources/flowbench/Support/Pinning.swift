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
    /// Set (and inherited by the children) once this run pins.
    private static let variable = "FLOWBENCH_PINNED"
    static let loadCPU = 0

    /// The server's CPU: the last one.
    static var serverCPU: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1) }

    /// Whether this run pins.
    static var isOn: Bool { getenv(variable) != nil }

    /// What the report's header says of it.
    static var description: String? {
        isOn ? "pinned: the server under test on CPU \(serverCPU), flowbench and its load on CPU \(loadCPU)" : nil
    }

    /// Pins this process (and so every child it starts) to the load CPU.
    static func pinLoad() throws {
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2 else {
            throw BenchError("--pin needs 2 CPUs or more (one for the server, one for its load); this machine has 1")
        }
        try pin(to: loadCPU)
        setenv(variable, "1", 1)
    }

    /// Runs `spawn`, which starts a server process, with this thread on the server's CPU when the run pins.
    static func startingServer<T>(_ spawn: () throws -> T) throws -> T {
        guard isOn else { return try spawn() }
        try pin(to: serverCPU)
        defer { try? pin(to: loadCPU) }
        return try spawn()
    }

    private static func pin(to cpu: Int) throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_pin_to_cpu(Int32(cpu), &error) == 0 else { throw BenchError(context: "--pin", cError: error) }
    }
}
