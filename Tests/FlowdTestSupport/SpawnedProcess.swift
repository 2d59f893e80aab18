import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process started with `posix_spawn`, for what Foundation's `Process` cannot do: hand it open
/// descriptors at chosen numbers (a listening socket at fd 3, as systemd does; `Process` closes
/// everything above 2). Standard error is captured like `DaemonProcess`'s; standard input and output
/// are /dev/null. The process is killed and reaped when the value goes away, even if the test failed.
public final class SpawnedProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    private let state = State()

    /// What the reader and reaper threads share with the test (they must not keep the process value alive).
    private final class State: @unchecked Sendable {
        // @unchecked: every field is only touched under `condition`.
        let condition = NSCondition()
        var log = ""
        var logClosed = false
        var status: Int32?
    }

    /// Spawns `executable` with `arguments` and exactly `environment`; `descriptors` maps each child descriptor
    /// number to the parent's descriptor that becomes it (the parent keeps its own copy).
    public init(executable: String, arguments: [String], environment: [String: String], descriptors: [Int32: Int32] = [:]) throws {
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&errorPipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in errorPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Move every source above the targets first, so no dup2 overwrites a descriptor a later one reads.
        var moved: [(target: Int32, source: Int32)] = []
        defer { for (_, source) in moved { close(source) } }
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            let high = fcntl(source, F_DUPFD_CLOEXEC, 100)
            guard high >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            moved.append((target, high))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        for (target, source) in moved { posix_spawn_file_actions_adddup2(&actions, source, target) }

        // A clean signal state: test runners block and ignore signals, and both survive exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(errorPipe[1])
        guard rc == 0 else {
            close(errorPipe[0])
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
        }
        pid = child
        let spawned = child

        let reader = errorPipe[0]
        let state = self.state
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                state.condition.withLock {
                    if count > 0 {
                        state.log += String(decoding: buffer[..<count], as: UTF8.self)
                    } else {
                        state.logClosed = true
                    }
                    state.condition.broadcast()
                }
                if count <= 0 { break }
            }
            close(reader)
        }
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(spawned, &raw, 0) < 0 && errno == EINTR {}
            state.condition.withLock {
                state.status = raw
                state.condition.broadcast()
            }
        }
    }

    deinit {
        // Not reaped yet, so the pid is still ours.
        if state.condition.withLock({ state.status == nil }) { kill(pid, SIGKILL) }
        _ = waitForExit(timeoutSeconds: 20)
    }

    /// Everything the process wrote to stderr so far.
    public var logText: String { state.condition.withLock { state.log } }

    /// Waits until the log contains `text`; woken by each write, so no polling.
    public func waitForLog(_ text: String, timeoutSeconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return state.condition.withLock {
            while !state.log.contains(text) {
                if state.logClosed || !state.condition.wait(until: deadline) { return state.log.contains(text) }
            }
            return true
        }
    }

    /// Sends a signal to the process.
    public func signal(_ signum: Int32) {
        kill(pid, signum)
    }

    /// Waits for the process to exit: its exit status, 128 + the signal that killed it, or nil on timeout.
    public func waitForExit(timeoutSeconds: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return state.condition.withLock {
            while state.status == nil {
                if !state.condition.wait(until: deadline) { break }
            }
            guard let status = state.status else { return nil }
            return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }

    /// Waits until stderr reached its end (every process holding it exited), so `logText` is complete.
    public func waitForLogEnd(timeoutSeconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        return state.condition.withLock {
            while !state.logClosed {
                if !state.condition.wait(until: deadline) { return state.logClosed }
            }
            return true
        }
    }
}
