import CBenchRelay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A server process a benchmark loads: the C baseline (echo or relay mode) or
/// a real flowd, listening on a socket in its own scratch directory. Stopped and
/// cleaned up when released.
final class ServerUnderTest {
    /// The server process.
    let process: ChildProcess
    /// Where it listens.
    let socketPath: String
    /// Which bytes its clients speak.
    let target: WireTarget
    /// Seconds from launching the process to its first accepted connection (0 when not waited for).
    let startupSeconds: Double
    /// When the process was launched (`cbr_now_ns`, just before posix_spawn).
    let launchedAt: UInt64
    private let directory: String

    /// The server's process id, for /proc readings.
    var pid: Int32 { process.pid }
    /// Where a flowd writes its log (standard error).
    var logPath: String { directory + "/flowd.log" }

    private init(process: ChildProcess, directory: String, socketPath: String, target: WireTarget, startupSeconds: Double,
                 launchedAt: UInt64) {
        self.process = process
        self.directory = directory
        self.socketPath = socketPath
        self.target = target
        self.startupSeconds = startupSeconds
        self.launchedAt = launchedAt
    }

    deinit {
        process.stop()
        OS.removeDirectory(directory)
    }

    /// Starts the C baseline server in `mode` ("echo" or "relay") and waits until it listens.
    static func baseline(mode: String) throws -> ServerUnderTest {
        let directory = try OS.makeScratchDirectory()
        let socketPath = directory + "/baseline.sock"
        let start = cbr_now_ns()
        let process = try Pinning.startingServer { try ChildProcess.flowbench(["_server", "--socket", socketPath, "--mode", mode]) }
        _ = try process.expect("ready")
        let seconds = Double(cbr_now_ns() - start) / 1e9
        return ServerUnderTest(
            process: process, directory: directory, socketPath: socketPath, target: .baseline, startupSeconds: seconds, launchedAt: start)
    }

    /// Starts `flowd` at `executable` on a fresh socket and measures the time until
    /// it accepts a connection: connect is retried every 100 µs from the moment of launch.
    /// `app` and `arguments` go to flowd (a later `--log-level` wins); `environment` is added to the
    /// inherited one. Without `waitForAccept` it returns at once after the launch.
    static func flowd(executable: String, app: String? = nil, arguments extra: [String] = [],
                      environment: [String: String] = [:], waitForAccept: Bool = true) throws -> ServerUnderTest {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("no flowd executable at \(executable); build it (swift build --product flowd) or pass --flowd PATH")
        }
        let directory = try OS.makeScratchDirectory()
        let socketPath = directory + "/flowd.sock"
        for (name, value) in environment { setenv(name, value, 1) }
        defer { for name in environment.keys { unsetenv(name) } }
        let start = cbr_now_ns()
        let process = try Pinning.startingServer { try ChildProcess(
            executable: executable,
            // Its own journal in the scratch directory: journaling is on, as by default.
            arguments: ["--socket", socketPath, "--log-level", "warning"] + (app.map { ["--app", $0, "--stay-up"] } ?? [])
                + (extra.contains { $0.hasPrefix("--state") || $0 == "--no-state" } ? [] : ["--state", directory + "/state.journal"]) + extra,
            errorPath: directory + "/flowd.log") }
        guard waitForAccept else {
            return ServerUnderTest(
                process: process, directory: directory, socketPath: socketPath, target: .flowd, startupSeconds: 0, launchedAt: start)
        }
        let deadline = start + 30_000_000_000
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        while true {
            let fd = cbr_connect(socketPath, &error)
            if fd >= 0 {
                close(fd)
                break
            }
            if let status = process.exitCodeIfEnded() {
                let log = (try? String(contentsOfFile: directory + "/flowd.log", encoding: .utf8)) ?? ""
                OS.removeDirectory(directory)
                throw BenchError("flowd exited during start-up (status \(status)): \(log)")
            }
            guard cbr_now_ns() < deadline else {
                OS.removeDirectory(directory)
                throw BenchError("flowd did not accept a connection on \(socketPath) within 30 s")
            }
            usleep(100)
        }
        let seconds = Double(cbr_now_ns() - start) / 1e9
        return ServerUnderTest(
            process: process, directory: directory, socketPath: socketPath, target: .flowd, startupSeconds: seconds, launchedAt: start)
    }
}
