import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process started by a benchmark (this binary re-executed with a hidden
/// subcommand, or flowd), whose standard output is read line by line and whose
/// standard input stays open until `closeInput()`: children that hold
/// connections wait for that end of file. Killed when released.
final class ChildProcess {
    /// The child's process id.
    let pid: pid_t
    /// What was started, for messages.
    let label: String
    private var outputFD: Int32
    private var inputFD: Int32
    private var buffered: [UInt8] = []
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; its standard error goes to `errorPath` (nil: inherited).
    init(executable: String, arguments: [String], errorPath: String? = nil) throws {
        label = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(1)).joined(separator: " ")
        var output: [Int32] = [0, 0]
        var input: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&input) == 0 else {
            throw BenchError("cannot create pipes for \(label): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        for fd in [output[0], output[1], input[0], input[1]] {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        // A parent may run us with signals blocked (Foundation's Process does): the
        // child starts with none blocked and default handlers, so SIGTERM stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        close(output[1])
        close(input[0])
        guard rc == 0 else {
            close(output[0])
            close(input[1])
            throw BenchError("cannot start \(executable): \(String(cString: strerror(rc))); build it first (swift build --product flowbench --product flowd)")
        }
        _ = fcntl(output[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(input[1], F_SETFD, FD_CLOEXEC)
        pid = child
        outputFD = output[0]
        inputFD = input[1]
    }

    /// Starts this flowbench binary with a hidden subcommand.
    static func flowbench(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable: OS.executablePath, arguments: arguments)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if outputFD >= 0 { close(outputFD) }
        if inputFD >= 0 { close(inputFD) }
    }

    /// The next line the child printed, without its newline; nil at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                guard !buffered.isEmpty else { return nil }
                defer { buffered = [] }
                return String(decoding: buffered, as: UTF8.self)
            }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Reads lines until one tagged `tag`; throws with the child's exit if it ends first.
    func expect(_ tag: String) throws -> ResultLine {
        while let line = readLine() {
            if let parsed = ResultLine(parsing: line), parsed.tag == tag { return parsed }
        }
        let status = waitForExit()
        throw BenchError("\(label) (pid \(pid)) ended with status \(status) before printing '\(tag)'; its error is above")
    }

    /// Writes `line` and a newline to the child's standard input.
    func writeLine(_ line: String) throws {
        // A child that died must give EPIPE here, not end flowbench (children get SIGPIPE back at spawn).
        Glibc.signal(SIGPIPE, SIG_IGN)
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(inputFD, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchError("cannot write to \(label) (pid \(pid)): \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// Closes the child's standard input: children holding connections then let go and exit.
    func closeInput() {
        if inputFD >= 0 { close(inputFD) }
        inputFD = -1
    }

    /// Sends `signal` to the child.
    func signal(_ signal: Int32) {
        if exitStatus == nil { kill(pid, signal) }
    }

    /// Waits for the child to end; returns its exit code (128 + signal if killed).
    @discardableResult
    func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// The exit code if the child has ended, without waiting; nil while it runs.
    func exitCodeIfEnded() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Stops the child with SIGTERM and waits for it; SIGKILL if it is still there after `graceSeconds`.
    func stop(graceSeconds: Double = 5) {
        signal(SIGTERM)
        closeInput()
        let deadline = Date().addingTimeInterval(graceSeconds)
        while exitCodeIfEnded() == nil {
            if Date() > deadline {
                FileHandle.standardError.write(Data("flowbench: \(label) (pid \(pid)) ignored SIGTERM for \(graceSeconds) s; killing it\n".utf8))
                signal(SIGKILL)
                waitForExit()
                return
            }
            usleep(1000)
        }
    }
}
