import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// The process on the other end of a Unix-domain socket, as the kernel knows it at connect time:
/// its credentials (`SO_PEERCRED`), a pidfd for it (`SO_PEERPIDFD`, or `pidfd_open` on a kernel
/// without it), what `/proc` says about that process (its executable and cgroup) and its LSM label
/// (`SO_PEERSEC`). Read with `UVPipe.peerProcess()`.
///
/// The pidfd is closed once the reads are proven (`proof`): the identity is a value fixed at
/// connect time, as dbus-daemon fixes a peer's credentials at its authentication, and nothing later
/// asks the process again. Keeping it would cost every connection a second descriptor, and the
/// daemon's connection limit is sized at one descriptor per connection below the open-file limit
/// (docs/daemon.md, "Limits and bad input").
public struct PeerProcess: Sendable {
    /// The peer's process id at connect time.
    public var pid: Int32
    /// The peer's user id.
    public var uid: UInt32
    /// The peer's group id.
    public var gid: UInt32
    /// The executable the process runs (`readlink /proc/PID/exe`), nil when it could not be read
    /// or the process could not be proven to be the one that connected.
    public var executable: String?
    /// The process's cgroup on the unified hierarchy (the `0::` line of `/proc/PID/cgroup`), nil
    /// when unknown (as `executable`).
    public var cgroup: String?
    /// The socket's LSM label (`SO_PEERSEC`), nil when no LSM labels sockets.
    public var securityLabel: String?
    /// How `executable` and `cgroup` were proven to be the peer's: `SO_PEERPIDFD`, or `pidfd_open`
    /// on a kernel before 6.5; nil when no pidfd could be had, and then they are nil too.
    public var proof: ProcessDescriptor.Source?

    /// Credentials alone (what a caller without a socket knows).
    public init(pid: Int32, uid: UInt32, gid: UInt32, executable: String? = nil, cgroup: String? = nil,
                securityLabel: String? = nil, proof: ProcessDescriptor.Source? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.executable = executable
        self.cgroup = cgroup
        self.securityLabel = securityLabel
        self.proof = proof
    }

    /// Reads who is connected on socket `fd`; nil when `SO_PEERCRED` fails (not a connected socket).
    static func read(socket fd: Int32) -> PeerProcess? {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard clibuv_peercred(fd, &pid, &uid, &gid) == 0 else { return nil }
        var peer = PeerProcess(pid: pid, uid: uid, gid: gid)
        peer.securityLabel = securityLabel(of: fd)
        guard pid > 0, let pidfd = ProcessDescriptor.forPeer(of: fd, pid: pid) else { return peer }
        defer { pidfd.close() }
        // /proc is named by pid, and a pid is recycled once its process is reaped. Read first, then
        // prove the pidfd's process still lives: while it does, its pid cannot name another process
        // (a zombie keeps its pid too), so what was read is the peer's. If it is gone, the reads may
        // describe a newcomer with the same pid and are dropped (polkit's CVE-2013-4288 and
        // CVE-2018-19788 trusted pids).
        let executable = readLink("/proc/\(pid)/exe")
        let cgroup = unifiedCgroup(readFile("/proc/\(pid)/cgroup"))
        guard pidfd.isAlive else { return peer }
        peer.executable = executable
        peer.cgroup = cgroup
        peer.proof = pidfd.source
        return peer
    }

    /// The path on the unified hierarchy (`0::/user.slice/...`) of a `/proc/PID/cgroup` file.
    public static func unifiedCgroup(_ text: String?) -> String? {
        guard let text else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3)
            return path.isEmpty ? nil : String(path)
        }
        return nil
    }

    private static func securityLabel(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBufferPointer { clibuv_peersec(fd, $0.baseAddress, UInt32($0.count)) }
        // ENOPROTOOPT (no LSM labels sockets), ERANGE, anything else: unknown; empty: none.
        guard length > 0 else { return nil }
        let label = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // AppArmor says `unconfined` for a process it does not confine: a label all the same.
        return label
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 64 << 10 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A pidfd: a descriptor that names one process for its whole life, never a later one with the
/// same pid. Closed by `close()` (once; later calls do nothing), never by deinit, so its owner says
/// when it ends.
public final class ProcessDescriptor: @unchecked Sendable {
    // Safe to send: one owner uses it on one thread at a time (`PeerProcess.read` holds it for the
    // call); `fd` changes only in `close()`.
    /// The descriptor, -1 once closed.
    public private(set) var fd: Int32
    /// How it was obtained: `SO_PEERPIDFD`, or `pidfd_open` (a kernel before 6.5, where the pid is
    /// trusted for the moment between the connect and the open).
    public let source: Source

    /// How a pidfd was obtained.
    public enum Source: String, Sendable {
        case peerPidfd = "SO_PEERPIDFD"
        case pidfdOpen = "pidfd_open"
    }

    init(fd: Int32, source: Source) {
        self.fd = fd
        self.source = source
    }

    /// A pidfd for the peer of socket `fd`: `SO_PEERPIDFD`, or `pidfd_open(pid)` where the kernel
    /// does not know the option (ENOPROTOOPT, before Linux 6.5); nil when neither works.
    static func forPeer(of socket: Int32, pid: Int32) -> ProcessDescriptor? {
        let peer = clibuv_peerpidfd(socket)
        if peer >= 0 { return ProcessDescriptor(fd: peer, source: .peerPidfd) }
        guard peer == -ENOPROTOOPT, pid > 0 else { return nil }
        let opened = clibuv_pidfd_open(pid)
        return opened >= 0 ? ProcessDescriptor(fd: opened, source: .pidfdOpen) : nil
    }

    /// Opens a pidfd for `pid` (`pidfd_open`): a process the caller knows, such as its own child.
    public static func open(pid: Int32) -> ProcessDescriptor? {
        let opened = clibuv_pidfd_open(pid)
        return opened >= 0 ? ProcessDescriptor(fd: opened, source: .pidfdOpen) : nil
    }

    /// Whether the process is still alive, not reaped (`pidfd_send_signal(pidfd, 0)`).
    public var isAlive: Bool { fd >= 0 && clibuv_pidfd_alive(fd) == 0 }

    /// Closes the descriptor.
    public func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }
}
