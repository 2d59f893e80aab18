// Copied from Tests/IntegrationTests/Support/DaemonProcess.swift (test targets cannot share sources).
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The directory holding the built products (flowd, flowctl, ...): the test
/// bundle is built next to them.
let productsDirectory: URL = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.deletingLastPathComponent()
}()

/// A short temporary directory under /tmp (socket paths must stay under 107 bytes).
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/fdt-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(path != nil, "mkdtemp failed: \(errno)")
    return String(cString: path!)
}

/// A real `flowd` process on a socket in its own temporary directory. It is
/// killed and its directory removed when the value goes away, even if the
/// test failed.
final class DaemonProcess: @unchecked Sendable {
    // @unchecked: `log` is only touched under `condition`; the rest is set in init.
    let directory: String
    let socketPath: String
    let process = Process()
    private let condition = NSCondition()
    private var log = ""
    private var logClosed = false
    private let exited = DispatchSemaphore(value: 0)
    private let ownsDirectory: Bool

    /// Starts `flowd` with `arguments` (plus `--socket`) and waits until it listens.
    init(arguments: [String] = [], directory: String? = nil, waitUntilListening: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        self.ownsDirectory = directory == nil
        self.directory = directory ?? makeTemporaryDirectory()
        self.socketPath = self.directory + "/flowd.sock"
        process.executableURL = productsDirectory.appendingPathComponent("flowd")
        process.arguments = ["--socket", socketPath] + arguments
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
    var logText: String { condition.withLock { log } }

    /// Waits until the log contains `text`; woken by each write flowd makes
    /// to stderr, so no polling.
    func waitForLog(_ text: String, timeoutSeconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return condition.withLock {
            while !log.contains(text) {
                if logClosed || !condition.wait(until: deadline) { return log.contains(text) }
            }
            return true
        }
    }

    /// Sends a signal to the daemon.
    func signal(_ signum: Int32) {
        kill(process.processIdentifier, signum)
    }

    /// Waits for the daemon to exit; returns its exit status, or nil on timeout.
    func waitForExit(timeoutSeconds: Double = 20) -> Int32? {
        guard exited.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        exited.signal()
        return process.terminationStatus
    }
}
