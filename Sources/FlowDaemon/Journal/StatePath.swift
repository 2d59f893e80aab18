import FlowJournal
import FlowWire
import Foundation

/// Where the journal lives when `--state` is not given, and making its directory.
public enum StatePath {
    /// `$XDG_STATE_HOME/flowd/APP.journal`, `$XDG_STATE_HOME` defaulting to `~/.local/state` (the XDG
    /// base directory rules), for a daemon on the user's default socket. A daemon on another socket
    /// (`--socket`, `$FLOWD_SOCKET`) keeps its own, `APP@NAME-HASH.journal` (`NAME`: the socket's file
    /// name, `HASH`: 8 hex digits of its whole path): a daemon is its app on its socket, so two
    /// daemons of one app on two sockets both just work, and a restart on the same socket restores.
    public static func `default`(app: String, socketPath: String? = nil, environment: [String: String], uid: UInt32 = getuid()) -> String {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? passwordHome()
            base = home + "/.local/state"
        }
        var userDefault = environment
        userDefault[WireProtocol.socketPathEnvironmentVariable] = nil
        // Absolute and standard: `./s.sock` here and the same file named from elsewhere are one socket.
        let socketPath = socketPath.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        guard let socketPath, socketPath != WireProtocol.defaultSocketPath(environment: userDefault, uid: uid) else {
            return "\(base)/flowd/\(app).journal"
        }
        return "\(base)/flowd/\(app)@\(fileNamePart(of: socketPath))-\(hash8(socketPath)).journal"
    }

    /// The user's home from the password database (`NSHomeDirectory()` without full Foundation): `/` if none.
    private static func passwordHome() -> String {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let home = entry.pw_dir else { return "/" }
        return String(cString: home)
    }

    /// The socket's file name, in letters, digits, `.`, `_` and `-` only, at most 32 of them.
    private static func fileNamePart(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let kept = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        }
        return String(kept.prefix(32))
    }

    /// 8 hex digits of FNV-1a over the path's UTF-8: the same in every process (Swift's `Hasher` is not).
    private static func hash8(_ text: String) -> String {
        var fnv = FNV1a()
        for byte in text.utf8 { fnv.mix(byte) }
        let hash = fnv.value
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Creates the journal's directory (and its parents, mode 0700) if it is missing.
    public static func createDirectory(of path: String) throws(DaemonError) {
        guard path.contains(Character("/")) else { return }
        let directory = Journal.directory(of: path)
        var status = stat()
        if stat(directory, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw .state(.cannotOpen(path: path, reason: "\(directory) is not a directory"))
            }
            return
        }
        // Each missing parent in turn, mode 0700 (POSIX calls: no full Foundation in a static flowd).
        var made = directory.hasPrefix("/") ? "/" : ""
        for part in directory.split(separator: "/") {
            made += (made.isEmpty || made.hasSuffix("/") ? "" : "/") + part
            guard mkdir(made, 0o700) != 0, errno != EEXIST else { continue }
            throw .state(.cannotOpen(path: path, reason: "cannot create its directory \(directory): \(String(cString: strerror(errno)))"))
        }
    }
}
