import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// A child process (`uv_process_t`). Close it after `onExit` ran: libuv reaps the child, closing frees the handle.
public final class UVProcess: UVHandle {
    /// What the child's standard input, output and error are.
    public enum StandardIO: Sendable {
        /// The child shares the parent's fds 0, 1 and 2.
        case inherit
        /// The child gets `/dev/null`.
        case ignore
        /// The child's standard input is `/dev/null`; its standard output and error are pipes the parent
        /// reads (`standardOutput`, `standardError`; `UV_CREATE_PIPE`), so its output can be labelled.
        case pipes
    }

    private var onExit: ((Int64, Int32) -> Void)?
    /// The child's process id, kept after exit.
    public private(set) var pid: Int32 = 0
    /// Whether `onExit` ran.
    public private(set) var hasExited = false
    /// The read end of the child's standard output, with `StandardIO.pipes` (nil otherwise). The caller reads
    /// and closes it; it is apart from the process handle and may outlive it.
    public private(set) var standardOutput: UVPipe?
    /// The read end of the child's standard error, with `StandardIO.pipes` (nil otherwise); as `standardOutput`.
    public private(set) var standardError: UVPipe?

    private init(loop: UVLoop) {
        super.init(loop: loop, type: UV_PROCESS)
    }

    private var process: UnsafeMutablePointer<uv_process_t> { rawHandle.assumingMemoryBound(to: uv_process_t.self) }

    /// Starts `executable` (searched in `PATH` if it has no slash) with `arguments` (argv[1...]; argv[0] is
    /// `executable`) and exactly `environment` (`uv_spawn`).
    ///
    /// `inheritedDescriptors` appear in the child as fds 3, 4, ... in order. Ownership: when
    /// `closeInheritedDescriptors` is true (the default), spawn closes the parent's copies, whether it succeeds or
    /// throws, so that the parent holds no reference to the child's end (EOF then means the child is gone).
    /// `onExit(exitStatus, termSignal)` runs once on the loop thread; close the process then.
    ///
    /// `noNewPrivileges` sets `PR_SET_NO_NEW_PRIVS` (`clibuv_set_no_new_privs`) on the calling thread before
    /// the fork, since libuv runs nothing of ours between fork and exec: the child inherits it, so it cannot gain
    /// privileges through a set-user-id executable or file capabilities. The calling thread (the loop's) keeps it
    /// for good, and so do the processes it forks later.
    public static func spawn(loop: UVLoop, executable: String, arguments: [String] = [],
                             environment: [String: String] = [:], inheritedDescriptors: [Int32] = [],
                             closeInheritedDescriptors: Bool = true, standardIO: StandardIO = .inherit,
                             noNewPrivileges: Bool = false, workingDirectory: String? = nil,
                             onExit: @escaping (_ exitStatus: Int64, _ termSignal: Int32) -> Void) throws(UVError) -> UVProcess {
        defer {
            if closeInheritedDescriptors { for fd in inheritedDescriptors { Glibc.close(fd) } }
        }
        if noNewPrivileges {
            let rc = clibuv_set_no_new_privs()
            guard rc == 0 else { throw UVError(rc, function: "prctl(PR_SET_NO_NEW_PRIVS)") }
        }
        let process = UVProcess(loop: loop)
        process.onExit = onExit
        let argv = CStringArray([executable] + arguments)
        let envp = CStringArray(environment.map { "\($0.key)=\($0.value)" })
        var stdio = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 3 + inheritedDescriptors.count)
        for index in 0..<3 {
            stdio[index].flags = standardIO == .inherit ? UV_INHERIT_FD : UV_IGNORE
            stdio[index].data.fd = Int32(index)
        }
        if standardIO == .pipes {
            let output = UVPipe(loop: loop), error = UVPipe(loop: loop)
            process.standardOutput = output
            process.standardError = error
            for (index, pipe) in [(1, output), (2, error)] {
                stdio[index].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
                stdio[index].data.stream = pipe.stream
            }
        }
        for (index, fd) in inheritedDescriptors.enumerated() {
            stdio[3 + index].flags = UV_INHERIT_FD
            stdio[3 + index].data.fd = fd
        }
        let rc = withExtendedLifetime((argv, envp)) { executable.withCString { file in
            workingDirectory.withOptionalCString { cwd in
                stdio.withUnsafeMutableBufferPointer { stdio in
                    var options = uv_process_options_t()
                    options.exit_cb = { process, exitStatus, termSignal in
                        owner(of: process!, as: UVProcess.self).exited(exitStatus, termSignal)
                    }
                    options.file = file
                    options.args = argv.pointers
                    options.env = envp.pointers
                    options.cwd = cwd
                    options.stdio_count = Int32(stdio.count)
                    options.stdio = stdio.baseAddress
                    return uv_spawn(loop.raw, process.process, &options)
                }
            }
        } }
        // uv_spawn registers the handle even when it fails: it must be closed either way.
        process.didRegister()
        guard rc == 0 else {
            process.close()
            process.standardOutput?.close()
            process.standardError?.close()
            throw UVError(rc, function: "uv_spawn(\(executable))")
        }
        process.pid = process.process.pointee.pid
        return process
    }

    private func exited(_ exitStatus: Int64, _ termSignal: Int32) {
        hasExited = true
        let onExit = self.onExit
        self.onExit = nil
        onExit?(exitStatus, termSignal)
    }

    /// Sends `signum` to the child (`uv_process_kill`). Throws `.noSuchProcess` once it was reaped.
    public func kill(_ signum: Int32) throws(UVError) {
        loop.assertOnLoop()
        guard !isClosing, !hasExited else { throw UVError(UV_ESRCH.rawValue, function: "uv_process_kill") }
        try uvCheck(uv_process_kill(process, signum), "uv_process_kill")
    }

    override func didClose() { onExit = nil }
}

/// A NULL-terminated `char*[]` that owns its strings until deinit.
private final class CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    deinit {
        var index = 0
        while let string = pointers[index] {
            free(string)
            index += 1
        }
        pointers.deallocate()
    }
}

extension Optional where Wrapped == String {
    fileprivate func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let string): string.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
