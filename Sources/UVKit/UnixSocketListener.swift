import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// A server on a Unix-domain socket path (`uv_pipe_t` bound and listening), guarded by a lock file so two servers
/// never share a path, and cleaned up on close. Or a server on a listening socket the service manager passed
/// (`listen(loop:passed:onConnection:)`): no lock, and the socket file is left alone, since it is not ours.
public final class UnixSocketListener: UVHandle {
    /// The socket path served.
    public let path: String
    /// Whether the socket was passed by the service manager rather than bound here (then `close()` unlinks nothing).
    public private(set) var isPassed = false
    /// Whether a socket file left behind by a dead server was found and replaced (worth a log line).
    public private(set) var reclaimedStaleSocket = false
    /// Called when accepting a connection fails (e.g. `.tooManyOpenFiles`); the listener keeps listening.
    public var onAcceptError: ((UVError) -> Void)?

    private var onConnection: ((UVPipe) -> Void)?
    private var lock: LockFile?
    private var boundSocket: (device: UInt, inode: UInt)?

    private init(loop: UVLoop, path: String) {
        self.path = path
        super.init(loop: loop, type: UV_NAMED_PIPE)
        uvMust(uv_pipe_init(loop.raw, server, 0), "uv_pipe_init")
        didRegister()
    }

    private var server: UnsafeMutablePointer<uv_pipe_t> { rawHandle.assumingMemoryBound(to: uv_pipe_t.self) }

    /// Serves `path`: checks its length and directory (created 0700 if missing; must be ours and not writable by
    /// group/others), takes `<path>.lock`, replaces a stale socket file (one nobody answers on), binds, makes the
    /// socket 0600 and listens. Each accepted connection is handed to `onConnection` as a `UVPipe`, not yet reading.
    public static func listen(loop: UVLoop, path: String, backlog: Int32 = 511,
                              onConnection: @escaping (UVPipe) -> Void) throws(ListenerError) -> UnixSocketListener {
        loop.assertOnLoop()
        guard path.utf8.count <= UnixSocketPath.maxLength else {
            throw ListenerError(.pathTooLong(length: path.utf8.count), path: path)
        }
        try checkDirectory(of: path)
        let lock = try LockFile.acquire(path + ".lock", socketPath: path)
        let reclaimed: Bool
        do throws(ListenerError) {
            reclaimed = try removeStaleSocket(at: path)
        } catch {
            lock.release()
            throw error
        }
        var status = stat()

        let listener = UnixSocketListener(loop: loop, path: path)
        listener.lock = lock
        listener.reclaimedStaleSocket = reclaimed
        do throws(UVError) {
            try uvCheck(uv_pipe_bind(listener.server, path), "uv_pipe_bind")
            if lstat(path, &status) == 0 { listener.boundSocket = (UInt(status.st_dev), UInt(status.st_ino)) }
            guard chmod(path, 0o600) == 0 else { throw UVError.posix(errno, "chmod") }
            listener.onConnection = onConnection
            try uvCheck(uv_listen(listener.streamPointer, backlog) { server, status in
                owner(of: server!, as: UnixSocketListener.self).accept(status)
            }, "uv_listen")
        } catch {
            listener.close()
            throw ListenerError(.system(error), path: path)
        }
        return listener
    }

    /// Serves a listening socket the process was handed (systemd's socket activation): `uv_pipe_open` on its
    /// descriptor, then `uv_listen`. There is no lock (the service manager runs one instance) and `close()` closes
    /// our descriptor but never unlinks the socket file: the service manager created it and keeps it, so clients
    /// queue in its backlog while no server runs. The backlog is `SOMAXCONN`, so the listen(2) that libuv repeats
    /// does not shrink the one the service manager set.
    public static func listen(loop: UVLoop, passed socket: PassedSocket,
                              onConnection: @escaping (UVPipe) -> Void) throws(ListenerError) -> UnixSocketListener {
        loop.assertOnLoop()
        let listener = UnixSocketListener(loop: loop, path: socket.path)
        listener.isPassed = true
        do throws(UVError) {
            try uvCheck(uv_pipe_open(listener.server, socket.descriptor), "uv_pipe_open")
            listener.onConnection = onConnection
            try uvCheck(uv_listen(listener.streamPointer, SOMAXCONN) { server, status in
                owner(of: server!, as: UnixSocketListener.self).accept(status)
            }, "uv_listen")
        } catch {
            listener.close()
            throw ListenerError(.system(error), path: socket.path)
        }
        return listener
    }

    /// If a socket file exists at `path`, removes it when nobody answers on it (returns true), refuses otherwise.
    private static func removeStaleSocket(at path: String) throws(ListenerError) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return false }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw ListenerError(.notASocket, path: path) }
        switch UnixSocketPath.probe(path) {
        case .listening: throw ListenerError(.socketInUse, path: path)
        case .failed(let errnoValue): throw ListenerError(.staleCheckFailed(errno: errnoValue), path: path)
        case .stale:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw ListenerError(.staleCheckFailed(errno: errno), path: path)
            }
            return true
        }
    }

    private var streamPointer: UnsafeMutablePointer<uv_stream_t> { rawHandle.assumingMemoryBound(to: uv_stream_t.self) }

    private func accept(_ status: Int32) {
        guard status >= 0 else {
            onAcceptError?(UVError(status, function: "uv_listen"))
            return
        }
        let client = UVPipe(loop: loop)
        let rc = uv_accept(streamPointer, client.stream)
        guard rc == 0 else {
            client.close()
            onAcceptError?(UVError(rc, function: "uv_accept"))
            return
        }
        onConnection?(client)
    }

    /// Directory checks: create it 0700 if missing; otherwise a real directory, ours, not writable by others.
    private static func checkDirectory(of path: String) throws(ListenerError) {
        let directory = UnixSocketPath.parentDirectory(of: path)
        var status = stat()
        if lstat(directory, &status) != 0 {
            guard errno == ENOENT else { throw ListenerError(.directoryUnusable(errno: errno, creating: false), path: path) }
            if mkdir(directory, 0o700) != 0, errno != EEXIST {
                throw ListenerError(.directoryUnusable(errno: errno, creating: true), path: path)
            }
            guard lstat(directory, &status) == 0 else {
                throw ListenerError(.directoryUnusable(errno: errno, creating: false), path: path)
            }
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw ListenerError(.notADirectory, path: path) }
        guard status.st_uid == getuid() else { throw ListenerError(.directoryNotOwned(owner: status.st_uid), path: path) }
        guard status.st_mode & 0o022 == 0 else {
            throw ListenerError(.directoryWritableByOthers(mode: status.st_mode), path: path)
        }
    }

    override func willClose() {
        onConnection = nil
        onAcceptError = nil
        // Unlink only the socket we bound: a successor may already have replaced it.
        var status = stat()
        if let bound = boundSocket, lstat(path, &status) == 0,
           UInt(status.st_dev) == bound.device, UInt(status.st_ino) == bound.inode {
            unlink(path)
        }
        boundSocket = nil
        lock?.release()
        lock = nil
    }
}
