/// Why a journal could not be opened, read or written. Each says what was found and what to do;
/// the daemon turns them into a message and an exit code or a fresh start (docs/journal.md).
public enum JournalError: Error, Equatable, CustomStringConvertible {
    /// The file or its directory cannot be opened or created (permissions, a directory in the way).
    case cannotOpen(path: String, reason: String)
    /// The file is not a flowd journal: neither a log nor SQLite, or another program's database.
    case notAJournal(path: String, reason: String)
    /// The file is damaged: a bad batch with good ones after it, a header that fails its checksum, or
    /// an older SQLite journal SQLite found damaged.
    case corrupt(path: String, reason: String)
    /// The journal belongs to another app.
    case otherApp(path: String, found: String, expected: String)
    /// The journal was written by another version of the app (its inputs may not replay the same).
    case otherAppVersion(path: String, found: String, expected: String)
    /// The journal uses another schema version of flowd's journal.
    case otherSchema(path: String, found: Int32, expected: Int32)
    /// Another process has the journal open.
    case locked(path: String, holder: String)
    /// Another user could change the journal: its directory is not private to this user (or root), or
    /// a symbolic link is planted where flowd creates a file next to it. `reason` names what and the fix.
    case unsafe(path: String, reason: String)
    /// The disk is full: the last transaction was not written.
    case diskFull(path: String)
    /// The journal reached the process's file size limit (`ulimit -f`, RLIMIT_FSIZE): the last
    /// transaction was not written.
    case fileTooLarge(path: String)
    /// Any other failure to read or write the file, with the system's reason.
    case io(path: String, doing: String, reason: String)
    /// Any other SQLite failure (reading an older journal), with SQLite's message.
    case sqlite(path: String, doing: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the journal \(path): \(reason)"
        case .notAJournal(let path, let reason): "\(path) is not a flowd journal (\(reason))"
        case .corrupt(let path, let reason): "the journal \(path) is damaged (\(reason))"
        case .otherApp(let path, let found, let expected): "the journal \(path) belongs to app \(found), not \(expected)"
        case .otherAppVersion(let path, let found, let expected):
            "the journal \(path) was written by version \(found) of the app, this is \(expected)"
        case .otherSchema(let path, let found, let expected):
            "the journal \(path) has schema \(found); this flowd reads schema \(expected)"
        case .locked(let path, let holder): "the journal \(path) is in use by \(holder); one daemon per journal"
        case .unsafe(let path, let reason): "refusing the journal \(path): \(reason)"
        case .diskFull(let path): "the disk holding the journal \(path) is full; the last inputs were not journaled"
        case .fileTooLarge(let path):
            "the journal \(path) reached the file size limit of this process (ulimit -f); the last inputs were not journaled"
        case .io(let path, let doing, let reason): "error \(doing) \(path): \(reason)"
        case .sqlite(let path, let doing, let code, let message): "SQLite error \(code) \(doing) \(path): \(message)"
        }
    }
}
