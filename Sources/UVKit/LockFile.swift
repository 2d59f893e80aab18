#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on `<socket>.lock`, holding our pid, kept for the listener's lifetime.
struct LockFile {
    let path: String
    private let fd: Int32

    /// Takes the lock without waiting. Retries if the file it locked was unlinked meanwhile by a closing server.
    static func acquire(_ path: String, socketPath: String) throws(ListenerError) -> LockFile {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw ListenerError(.lockFailed(errno: errno), path: socketPath) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let failure = errno
                let holder = readPID(fd)
                Glibc.close(fd)
                guard failure == EWOULDBLOCK else { throw ListenerError(.lockFailed(errno: failure), path: socketPath) }
                throw ListenerError(.lockHeld(pid: holder), path: socketPath)
            }
            // The previous holder unlinks the file before unlocking: make sure we locked the file now at `path`.
            var opened = stat(), named = stat()
            guard fstat(fd, &opened) == 0, lstat(path, &named) == 0,
                  opened.st_dev == named.st_dev, opened.st_ino == named.st_ino else {
                Glibc.close(fd)
                continue
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            return LockFile(path: path, fd: fd)
        }
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return Int32(text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "")
    }

    /// Unlinks the lock file (it is ours while we hold the lock) and releases the lock.
    func release() {
        unlink(path)
        Glibc.close(fd)
    }
}
