import CLibUV

#if canImport(Glibc)
import Glibc
#endif

/// A connected byte stream on a Unix-domain socket (`uv_pipe_t`): accepted by `UnixSocketListener`, opened on an
/// inherited or socketpair descriptor, or connected to a path.
///
/// Reads land in the loop's shared buffer and are handed over as an `UnsafeRawBufferPointer` valid only during the
/// callback. Writes go out with `uv_try_write` at once when possible; only the remainder is copied and queued.
public final class UVPipe: UVHandle {
    private var onData: ((UnsafeRawBufferPointer) -> Void)?
    private var onEnd: ((UVError?) -> Void)?
    private var onConnect: ((UVError?) -> Void)?
    private var onShutdown: ((UVError?) -> Void)?
    /// Called at most once, on a later loop iteration than the `write` that failed (never from inside `write`,
    /// except on a pipe that was never opened or connected).
    /// Writes after a failure are dropped. A write cancelled because the pipe was closed is not reported.
    public var onWriteError: ((UVError) -> Void)?
    /// Number of `uv_write` requests in flight (each one owns a heap copy of its bytes).
    public internal(set) var pendingWriteRequests = 0
    private var hasEnded = false
    var writeFailed = false
    var isShutDown = false

    /// Creates an unconnected pipe (`uv_pipe_init`, not for passing handles).
    public init(loop: UVLoop) {
        super.init(loop: loop, type: UV_NAMED_PIPE)
        uvMust(uv_pipe_init(loop.raw, pipe, 0), "uv_pipe_init")
        didRegister()
    }

    @inline(__always)
    var pipe: UnsafeMutablePointer<uv_pipe_t> { rawHandle.assumingMemoryBound(to: uv_pipe_t.self) }
    @inline(__always)
    var stream: UnsafeMutablePointer<uv_stream_t> { rawHandle.assumingMemoryBound(to: uv_stream_t.self) }

    /// Wraps an open socket descriptor (`uv_pipe_open`); the pipe owns `fd` from now on and closes it in `close()`.
    public func open(fd: Int32) throws(UVError) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVPipe.open on a closed pipe")
        try uvCheck(uv_pipe_open(pipe, fd), "uv_pipe_open")
    }

    /// Connects to the socket at `path` (`uv_pipe_connect`). `completion` runs once, on a later iteration, with
    /// `nil` or the error (`.noEntry`, `.connectionRefused`, `.canceled` if the pipe was closed first).
    /// Throws `.nameTooLong` at once if `path` does not fit in `sun_path` (libuv 1.44 would silently truncate it).
    public func connect(path: String, _ completion: @escaping (UVError?) -> Void) throws(UVError) {
        loop.assertOnLoop()
        precondition(!isClosing && onConnect == nil, "UVPipe.connect on a closed or connecting pipe")
        guard path.utf8.count <= UnixSocketPath.maxLength else { throw UVError(UV_ENAMETOOLONG.rawValue, function: "uv_pipe_connect") }
        onConnect = completion
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        uv_pipe_connect(request, pipe, path) { request, status in
            let stream = request!.pointee.handle!
            request!.deallocate()
            let pipe = owner(of: stream, as: UVPipe.self)
            let completion = pipe.onConnect
            pipe.onConnect = nil
            completion?(status < 0 ? UVError(status, function: "uv_pipe_connect") : nil)
        }
    }

    /// Starts delivering data (`uv_read_start`). `onData` gets each chunk (valid only during the call);
    /// `onEnd` runs once: `nil` at end of stream, the error otherwise; reading stops then.
    /// Throws `.notConnected` if the stream is no longer readable.
    public func startReading(onData: @escaping (UnsafeRawBufferPointer) -> Void,
                             onEnd: @escaping (UVError?) -> Void) throws(UVError) {
        loop.assertOnLoop()
        precondition(!isClosing, "UVPipe.startReading on a closed pipe")
        guard !hasEnded else { throw UVError(UV_ENOTCONN.rawValue, function: "uv_read_start") }
        self.onData = onData
        self.onEnd = onEnd
        let rc = uv_read_start(stream, sharedReadBufferAlloc) { stream, nread, buf in
            let pipe = owner(of: stream!, as: UVPipe.self)
            if nread > 0 {
                pipe.onData?(UnsafeRawBufferPointer(start: buf!.pointee.base, count: nread))
            } else if nread < 0 {
                pipe.didEnd(Int32(nread))
            }
        }
        guard rc != UV_EALREADY.rawValue else { return }  // already reading: callbacks replaced
        try uvCheck(rc, "uv_read_start")
    }

    private func didEnd(_ status: Int32) {
        uv_read_stop(stream)
        hasEnded = true
        let onEnd = self.onEnd
        self.onEnd = nil
        onData = nil
        onEnd?(status == UV_EOF.rawValue ? nil : UVError(status, function: "read"))
    }

    /// Starts delivering data again after `stopReading`, to the callbacks given
    /// to `startReading`. Does nothing once the stream ended or is closing.
    public func resumeReading() {
        loop.assertOnLoop()
        guard !isClosing, !hasEnded, let onData, let onEnd else { return }
        try? startReading(onData: onData, onEnd: onEnd)
    }

    /// Reads what is already buffered, now, without waiting (`read(2)` on the non-blocking descriptor), at most
    /// `limit` bytes, handing each chunk to `body` (valid only during the call). For a stream whose writer is known
    /// to be gone (a child that exited) before the pipe is closed: what it wrote last is not lost to the close.
    /// Returns the bytes read. Does nothing before `open`/`connect`, after `close()` or once the stream ended.
    @discardableResult
    public func readAvailable(limit: Int, _ body: (UnsafeRawBufferPointer) -> Void) -> Int {
        loop.assertOnLoop()
        guard !hasEnded, let fd = fileDescriptor else { return 0 }
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while total < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - total)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }  // 0: end of stream; -1: EAGAIN (nothing more now) or an error
            total += count
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return total
    }

    /// Stops delivering data (`uv_read_stop`); `startReading` resumes.
    public func stopReading() {
        loop.assertOnLoop()
        guard !isClosing else { return }
        uv_read_stop(stream)
    }

    /// Bytes accepted by `write` but not yet handed to the kernel (`uv_stream_get_write_queue_size`).
    /// Grows when the peer does not read; 0 once everything went out. Bound it to detect a stalled reader.
    public var writeQueueSize: Int {
        isClosed ? 0 : Int(uv_stream_get_write_queue_size(stream))
    }

    /// Half-closes the writing side after the queued writes went out (`uv_shutdown`); the peer then reads EOF.
    /// `completion` runs once, with `nil` or the error. Writes after this are dropped. Idempotent.
    public func shutdown(_ completion: ((UVError?) -> Void)? = nil) {
        loop.assertOnLoop()
        guard !isClosing, !isShutDown else { return }
        isShutDown = true
        onShutdown = completion
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        let rc = uv_shutdown(request, stream) { request, status in
            let stream = request!.pointee.handle!
            request!.deallocate()
            let pipe = owner(of: stream, as: UVPipe.self)
            let completion = pipe.onShutdown
            pipe.onShutdown = nil
            completion?(status < 0 ? UVError(status, function: "uv_shutdown") : nil)
        }
        if rc < 0 {  // not connected/writable: report without a request in flight
            request.deallocate()
            onShutdown = nil
            completion?(UVError(rc, function: "uv_shutdown"))
        }
    }

    /// The socket descriptor (`uv_fileno`), or nil before `open`/`connect`/accept and after `close()`.
    public var fileDescriptor: Int32? {
        guard !isClosing else { return nil }
        var fd: uv_os_fd_t = -1
        return uv_fileno(handle, &fd) == 0 ? fd : nil
    }

    /// The peer's process id, user id and group id at connect time (`getsockopt(SO_PEERCRED)`), or nil if the
    /// pipe is not connected. On a socketpair these name the process that created the pair.
    public func peerCredentials() -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        guard let fd = fileDescriptor else { return nil }
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard clibuv_peercred(fd, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid, gid)
    }

    /// Who the peer is (`PeerProcess.read`): credentials, a pidfd, its executable and cgroup read from
    /// `/proc` through that pidfd's check, and its LSM label; nil if the pipe is not connected.
    public func peerProcess() -> PeerProcess? {
        guard let fd = fileDescriptor else { return nil }
        return PeerProcess.read(socket: fd)
    }

    override func willClose() {
        // Pending write, connect and shutdown requests complete with ECANCELED before the close callback.
        onData = nil
        onEnd = nil
        onWriteError = nil
    }

    override func didClose() {
        onConnect = nil
        onShutdown = nil
    }
}
