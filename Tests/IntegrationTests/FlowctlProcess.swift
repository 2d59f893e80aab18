import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A long-running flowctl (watch, record), or another program (a Python screen host), with its
/// stdout and stderr read on background threads; tests wait for lines, never for time.
final class FlowctlProcess: @unchecked Sendable {
    // @unchecked: `out`, `err` and `closed` are only touched under `condition`.
    let process = Process()
    private let condition = NSCondition()
    private var out = ""
    private var err = ""
    private var closed = 0
    /// Reads taken from a pipe and not yet appended (see the readability handler).
    private var reading = 0
    private let exited = DispatchSemaphore(value: 0)
    private var readers: [Int32] = []

    /// Runs flowctl with `arguments`.
    convenience init(_ arguments: [String]) throws {
        try self.init(executable: productsDirectory.appendingPathComponent("flowctl"), arguments)
    }

    /// Runs `executable` with `arguments`, with `environment` added to the test's.
    init(executable: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                // Counted while the bytes are out of the pipe but not yet in `out`/`err`, so that
                // `waitForExit` cannot see an empty pipe and an empty buffer in between.
                self?.condition.withLock { self?.reading += 1 }
                let data = handle.availableData
                guard let self else { return }
                condition.withLock {
                    reading -= 1
                    if data.isEmpty {
                        handle.readabilityHandler = nil
                        closed += 1
                    } else if isOut {
                        out += String(decoding: data, as: UTF8.self)
                    } else {
                        err += String(decoding: data, as: UTF8.self)
                    }
                    condition.broadcast()
                }
            }
        }
        readers = [outPipe.fileHandleForReading.fileDescriptor, errPipe.fileHandleForReading.fileDescriptor]
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stdout: String { condition.withLock { out } }
    var stderr: String { condition.withLock { err } }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Waits until stdout (or stderr) satisfies `predicate`; woken by every write.
    func wait(stderr onStderr: Bool = false, timeoutSeconds: Double = 20, until predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return condition.withLock {
            while !predicate(onStderr ? err : out) {
                if closed == 2 || !condition.wait(until: deadline) { return predicate(onStderr ? err : out) }
            }
            return true
        }
    }

    /// Waits until stderr contains `text`.
    func waitForStderr(_ text: String) -> Bool { wait(stderr: true) { $0.contains(text) } }

    /// Sends a signal.
    func signal(_ signum: Int32) { kill(process.processIdentifier, signum) }

    /// Waits for the exit, then until everything it wrote was read; returns
    /// the status or nil on timeout. (Pipe EOF is not awaited: a process
    /// spawned meanwhile by a parallel test may hold an inherited copy.)
    func waitForExit(timeoutSeconds: Double = 20) -> Int32? {
        guard exited.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        exited.signal()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        condition.withLock {
            while closed < 2 && (reading > 0 || readers.contains(where: { Self.unread($0) > 0 })) {
                if !condition.wait(until: min(deadline, Date().addingTimeInterval(0.05))) && Date() >= deadline { break }
            }
        }
        return process.terminationStatus
    }

    /// Bytes waiting in a pipe (FIONREAD).
    private static func unread(_ descriptor: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? count : 0
    }
}

/// Runs flowctl to completion against `daemon`.
func flowctl(_ arguments: [String], _ daemon: DaemonProcess) throws -> ProductRun {
    try ProductRun.run("flowctl", arguments + ["--socket", daemon.socketPath])
}

/// One JSON object per line.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}
