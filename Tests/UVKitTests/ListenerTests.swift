import Foundation
import Testing
@testable import UVKit

@Suite struct ListenerTests {
    /// Leaves a socket file nobody listens on, as a crashed server would: bind with plain POSIX, close, no unlink.
    /// With `listening`, keeps it open and listening instead and returns the descriptor.
    func makeSocketFile(at path: String, listening: Bool = false) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(fd >= 0)
        let rc = UnixSocketPath.withSocketAddress(path) { bind(fd, $0, $1) }
        #expect(rc == 0)
        if listening {
            #expect(Glibc.listen(fd, 1) == 0)
            return fd
        }
        close(fd)
        return -1
    }

    func listenUntilClosed(_ t: TestLoop, _ path: String) throws -> UnixSocketListener {
        try UnixSocketListener.listen(loop: t.loop, path: path) { $0.close() }
    }

    @Test func staleSocketIsReclaimed() throws {
        let t = try TestLoop()
        let path = t.path("s")
        _ = makeSocketFile(at: path)
        let listener = try listenUntilClosed(t, path)
        #expect(listener.reclaimedStaleSocket)
        // It really serves the path now.
        let client = UVPipe(loop: t.loop)
        var result: UVError?? = .none
        try client.connect(path: path) { error in
            result = .some(error)
            client.close()
            listener.close()
        }
        t.run()
        #expect(result == .some(nil))
        try t.finish()
    }

    @Test func heldLockRefusesASecondServer() throws {
        let t = try TestLoop()
        let path = t.path("s")
        let first = try listenUntilClosed(t, path)
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, path) }
        #expect(error.isAlreadyRunning)
        #expect(error.lockHolderPID == getpid())
        #expect(error.description.contains("another flowd is already serving \(path)"))
        #expect(error.description.contains("\(path).lock held by pid \(getpid())"))
        // The refused attempt touched nothing: the first server still owns its files.
        #expect(FileManager.default.fileExists(atPath: path))
        first.close()
        t.run()
        // Once the first is gone, the path can be served again.
        let second = try listenUntilClosed(t, path)
        #expect(!second.reclaimedStaleSocket)
        try t.finish(closing: [second])
    }

    @Test func liveSocketWithoutLockIsNotStolen() throws {
        let t = try TestLoop()
        let path = t.path("s")
        let fd = makeSocketFile(at: path, listening: true)
        defer { close(fd) }
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, path) }
        #expect(error.isAlreadyRunning)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))  // our lock was released
        try t.finish()
    }

    @Test func tooLongPathIsAClearError() throws {
        let t = try TestLoop()
        let path = t.path(String(repeating: "x", count: 120))
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, path) }
        #expect(error.isPathTooLong)
        #expect(error.description.contains("longer than the 107 bytes"))
        #expect(UnixSocketPath.maxLength == 107)
        try t.finish()
    }

    @Test func missingDirectoryIsCreatedPrivate() throws {
        let t = try TestLoop()
        let path = t.path("run/s")
        let listener = try listenUntilClosed(t, path)
        var status = stat()
        #expect(stat(t.path("run"), &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        try t.finish(closing: [listener])
    }

    @Test func directoryWritableByOthersIsRefused() throws {
        let t = try TestLoop()
        let directory = t.path("open")
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chmod(directory, 0o777) == 0)
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, directory + "/s") }
        #expect(error.isUnsafeDirectory)
        // The advice names a private subdirectory; a chmod of a shared directory (/tmp) would break it for everyone.
        #expect(error.description.contains("use a private subdirectory, e.g. \(directory)/flowd-\(getuid())/s (created with mode 0700)"))
        #expect(!error.description.contains("chmod"))
        try t.finish()
    }

    /// A socket directly in /tmp (sticky, writable by all, root's): refused, with a private subdirectory as
    /// the way out, never a chmod of /tmp.
    @Test func socketDirectlyInTmpIsRefusedWithAPrivateSubdirectoryAsAdvice() throws {
        let t = try TestLoop()
        let path = "/tmp/flowd-listener-test-\(getpid()).sock"
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, path) }
        #expect(error.isUnsafeDirectory)
        #expect(error.description.contains("e.g. /tmp/flowd-\(getuid())/flowd-listener-test-\(getpid()).sock (created with mode 0700)"), "\(error)")
        #expect(!error.description.contains("chmod"), "\(error)")
        #expect(access(path, F_OK) != 0, "nothing was created in /tmp")
        try t.finish()
    }

    @Test func parentThatIsAFileIsRefused() throws {
        let t = try TestLoop()
        let file = t.path("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, file + "/s") }
        #expect(error.isUnsafeDirectory)
        try t.finish()
    }

    @Test func regularFileAtSocketPathIsNotDeleted() throws {
        let t = try TestLoop()
        let path = t.path("s")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        let error = try #require(throws: ListenerError.self) { try listenUntilClosed(t, path) }
        #expect(!error.isAlreadyRunning)
        #expect(error.description.contains("is not a socket"))
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
        _ = try listenUntilClosed(t, t.path("other")).close()  // the lock taken meanwhile was released
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        try t.finish()
    }
}
