import FlowWireFuzzing
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A folder of one execution's own for its journal: on a tmpfs when the machine has one
/// (`/dev/shm`: a journal's writes cost a system call, no disk), else in the temporary directory.
/// `remove()` deletes it with everything in it.
struct ScratchFolder {
    let path: String

    /// The journal's file name in it.
    static let journal = "journal"

    /// A new, empty folder (`mkdtemp`: unique, so executions running side by side never share one).
    init() throws(FuzzViolation) {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array("\(base.hasSuffix("/") ? String(base.dropLast()) : base)/flowd-fuzz-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw FuzzViolation("cannot create a folder for the journal in \(base): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// The journal's path.
    var journalPath: String { path + "/" + Self.journal }

    /// Deletes the folder: the journal and its lock file at the cost of three system calls, anything
    /// else (a journal a refused restore moved aside) through `FileManager`.
    func remove() {
        unlink(journalPath)
        unlink(journalPath + ".lock")
        if rmdir(path) != 0 { try? FileManager.default.removeItem(atPath: path) }
    }
}
