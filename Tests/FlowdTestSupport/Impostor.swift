import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A socket served by another user: a listener run as nobody (uid 65534, through util-linux's setpriv,
/// so the tests must be root) in a directory nobody owns — what a client finds when another user
/// created its socket's directory first (`/tmp/flowd-<uid>/` without `XDG_RUNTIME_DIR`). It accepts
/// every connection and, when the client closes it, logs `received N bytes`: a client that checks who
/// serves the socket sends nothing (docs/protocol.md §1). Stopped and removed when the value goes away.
public final class Impostor {
    public static let setpriv = "/usr/bin/setpriv"
    /// A python3 that nobody can run (a pyenv shim under /root is not).
    public static let python = "/usr/bin/python3"
    public static let possible = getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
        && FileManager.default.isExecutableFile(atPath: python)
    public static let reason: Comment = "needs root, \(setpriv) and \(python): the impostor runs as another user"
    public static let uid: UInt32 = 65534

    /// A directory others can enter; `directory` in it is the impostor's own.
    public let base: String
    /// The impostor's directory (mode 0700, owned by nobody) and its socket.
    public let directory: String
    public let socketPath: String
    private let process: SpawnedProcess

    private static let script = """
        import socket, sys
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(sys.argv[1])
        server.listen(8)
        print("listening", file=sys.stderr, flush=True)
        while True:
            client, _ = server.accept()
            count = 0
            while True:
                data = client.recv(65536)
                if not data:
                    break
                count += len(data)
            client.close()
            print(f"received {count} bytes", file=sys.stderr, flush=True)
        """

    public init() throws {
        base = makeTemporaryDirectory()
        chmod(base, 0o755)
        directory = base + "/imp"
        socketPath = directory + "/flowd.sock"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o700)
        chown(directory, Self.uid, Self.uid)
        process = try SpawnedProcess(
            executable: Self.setpriv,
            arguments: ["--reuid=\(Self.uid)", "--regid=\(Self.uid)", "--clear-groups", Self.python, "-c", Self.script, socketPath],
            environment: ["PATH": "/usr/bin:/bin"])
        guard process.waitForLog("listening") else {
            throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: "the impostor did not start: \(process.logText)"])
        }
    }

    deinit {
        process.signal(SIGKILL)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(atPath: base)
    }

    /// Waits until a client closed its connection, and returns what each connection sent, in bytes.
    public func waitForClose() -> [Int] {
        _ = process.waitForLog("received ")
        return received
    }

    /// What each connection closed so far sent, in bytes.
    public var received: [Int] {
        process.logText.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("received ") else { return nil }
            return Int(line.split(separator: " ")[1])
        }
    }

    /// The words every refusal says: the socket, the impostor's uid, and the directory's owner.
    public var refusal: [String] {
        ["refusing the server at \(socketPath): it runs as uid \(Self.uid), not as this user (uid 0) or root",
         "its directory \(directory) belongs to uid \(Self.uid)", "nothing was sent"]
    }
}
