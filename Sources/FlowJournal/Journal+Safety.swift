import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What keeps another user out of a journal (docs/journal.md, "Who can change it"): its directory
/// must be private to this user or root, and flowd follows no symbolic link where it opens or creates
/// a file there — the lock, `PATH.new`, the journal itself.
extension Journal {
    /// Refuses the journal at `path` when another user could write its directory: they could replace
    /// the journal with inputs the next start replays, or plant a link that makes flowd write over the
    /// file it points to. The directory (a link to one is followed) must belong to this user or root
    /// and be writable by neither group nor others, as the socket's directory must; a missing one is
    /// left to the open that follows, which says it is missing.
    static func checkDirectory(of path: String) throws(JournalError) {
        let directory = directory(of: path)
        var status = stat()
        guard stat(directory, &status) == 0 else { return }
        let me = getuid()
        guard status.st_uid == me || status.st_uid == 0 else {
            throw .unsafe(path: path, reason: """
                its directory \(directory) belongs to uid \(status.st_uid), not to this user (uid \(me)) or root: \
                that user could replace the journal with inputs the next start replays; keep the journal in a \
                directory of your own (mkdir -m 700 DIR)
                """)
        }
        guard status.st_mode & 0o022 == 0 else {
            throw .unsafe(path: path, reason: """
                its directory \(directory) has mode \(String(status.st_mode & 0o7777, radix: 8)) and is writable by \
                group or others, who could replace the journal with inputs the next start replays; run \
                `chmod go-w \(directory)` or keep the journal in a directory of your own
                """)
        }
    }

    /// The directory part of `path`: `.` for a bare name, `/` for a file in the root.
    package static func directory(of path: String) -> String {
        // As NSString's deletingLastPathComponent, without bridging to it (full Foundation).
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        var directory = trimmed[..<slash]
        while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The refusal of a symbolic link found at `file` where flowd opens or creates `what` next to the
    /// journal at `path`: it never follows one there, and leaves the link for the user to look at.
    static func plantedLink(_ file: String, what: String, journal path: String) -> JournalError {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: file)).map { " (to \($0))" } ?? ""
        return .unsafe(path: path, reason: """
            \(what) \(file) is a symbolic link\(target); flowd follows no link next to its journal (one another \
            user planted would make it write over the file it points to): remove the link (rm \(file))
            """)
    }

    /// Why a journal that is a symbolic link is refused: a new journal and every compaction are
    /// renamed over its path, which would replace the link with a file and leave its target behind.
    static func linkedJournal(_ path: String) -> String {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " to \($0)" } ?? ""
        return """
            it is a symbolic link\(target), which flowd does not follow: a new journal and every compaction are \
            renamed over its path, which would replace the link; give the path it points to
            """
    }

    /// True if `file` is a symbolic link.
    static func isLink(_ file: String) -> Bool {
        var status = stat()
        return lstat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }
}
