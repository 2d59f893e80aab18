import FlowJournal

extension JournalError {
    /// What the user can do about a journal refused with this error, now moved aside to `kept` while
    /// `app` starts fresh (docs/restore.md, "Bad state files").
    func advice(kept: String, app: String) -> String {
        switch self {
        case .otherApp(_, let found, _): "to restore it, run flowd --app \(found) --state \(kept)"
        case .otherAppVersion(_, let found, _): "version \(found) of \(app) can restore it: run it with --state \(kept)"
        case .otherSchema(_, let found, _): "a flowd that reads schema \(found) can restore it: run it with --state \(kept)"
        case .notAJournal: "flowd cannot restore it; if it belongs to another program, move it back and give flowd another --state"
        default: "flowd cannot restore it; it is kept for inspection and may be deleted"
        }
    }

    /// What to do while writes fail with this error (the inputs wait in memory).
    var adviceWhileWritesFail: String {
        switch self {
        case .diskFull: "free space on its disk"
        case .fileTooLarge: "raise flowd's file size limit (ulimit -f)"
        default: "check the disk and the file"
        }
    }
}
