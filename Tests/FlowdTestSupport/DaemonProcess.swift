import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The directory holding the built products (flowd, flowctl, ...): the test
/// bundle is built next to them.
public let productsDirectory: URL = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.deletingLastPathComponent()
}()

/// A short temporary directory under /tmp (socket paths must stay under 107 bytes).
public func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/fdt-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(path != nil, "mkdtemp failed: \(errno)")
    return String(cString: path!)
}

/// A real `flowd` process on a socket in its own temporary directory. It is
/// killed and its directory removed when the value goes away, even if the
/// test failed. Ready once it logs "listening on": the rule of every test's
/// flowd (the Python and browser tests start theirs with scripts/lib/flowd_process.py).
public final class DaemonProcess: @unchecked Sendable {
    // @unchecked: `log` is only touched under `condition`; the rest is set in init.
    public let directory: String
    public let socketPath: String
    public let process = Process()
    private let condition = NSCondition()
    private var log = ""
    private var logClosed = false
    private let exited = DispatchSemaphore(value: 0)
    private let ownsDirectory: Bool

    /// Starts `flowd` with `arguments` (plus `--socket`) and waits until it listens. `launcher` runs it
    /// through a program that execs it (`["/usr/bin/prlimit", "--nofile=64:64", "--"]`): the process
    /// is flowd's all the same.
    public init(
        arguments: [String] = [], environment: [String: String] = [:], directory: String? = nil, waitUntilListening: Bool = true,
        launcher: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        self.ownsDirectory = directory == nil
        self.directory = directory ?? makeTemporaryDirectory()
        self.socketPath = self.directory + "/flowd.sock"
        let flowd = productsDirectory.appendingPathComponent("flowd")
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [flowd.path, "--socket", socketPath] + arguments
        } else {
            process.executableURL = flowd
            process.arguments = ["--socket", socketPath] + arguments
        }
        // Each daemon journals into its own directory (removed with it): tests never restore each
        // other's state nor meet each other's journal lock.
        var environment = environment
        if environment["XDG_STATE_HOME"] == nil { environment["XDG_STATE_HOME"] = self.directory + "/state" }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            condition.withLock {
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    logClosed = true
                } else {
                    log += String(decoding: data, as: UTF8.self)
                }
                condition.broadcast()
            }
        }
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        if waitUntilListening {
            try #require(waitForLog("listening on", timeoutSeconds: 30), "flowd did not start: \(logText)", sourceLocation: sourceLocation)
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ownsDirectory {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Everything flowd wrote to stderr so far.
    public var logText: String { condition.withLock { log } }

    /// Waits until the log contains `text`; woken by each write flowd makes
    /// to stderr, so no polling.
    public func waitForLog(_ text: String, timeoutSeconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return condition.withLock {
            while !log.contains(text) {
                if logClosed || !condition.wait(until: deadline) { return log.contains(text) }
            }
            return true
        }
    }

    /// Sends a signal to the daemon.
    public func signal(_ signum: Int32) {
        kill(process.processIdentifier, signum)
    }

    /// Waits for the daemon to exit; returns its exit status, or nil on timeout.
    public func waitForExit(timeoutSeconds: Double = 20) -> Int32? {
        guard exited.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        exited.signal()
        // The exit can be seen before the last writes to stderr are read: wait for its end too, so
        // that `logText` is complete once this returns. A screen process flowd started may hold
        // stderr open a little longer; that wait is bounded.
        let deadline = Date().addingTimeInterval(2)
        condition.withLock {
            while !logClosed { if !condition.wait(until: deadline) { break } }
        }
        return process.terminationStatus
    }
}

/// Runs a product (flowctl, flowd) to completion and captures its output.
public struct ProductRun {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public static func run(_ product: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProductRun {
        try run(executable: productsDirectory.appendingPathComponent(product), arguments, environment: environment)
    }

    /// Runs any executable (e.g. `/usr/bin/ldd` on a product) to completion and captures its output.
    public static func run(executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> ProductRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        // Files, not pipes: a pipe's end is never seen while a process started
        // by another test in parallel (a daemon, a tmux server) holds its write end.
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outPath = directory + "/stdout", errPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = FileHandle(forWritingAtPath: outPath)!
        let err = FileHandle(forWritingAtPath: errPath)!
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        return ProductRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

