import FlowApp
import FlowJournal
import FlowKit

extension DaemonCore {
    /// Opens the journal of `configuration.statePath` (docs/restore.md, "Bad state files"). A journal
    /// that cannot be replayed — another app's, version's or schema's, damaged, not a journal — is
    /// moved aside with an error in the log and a fresh one starts; nothing is deleted. Throws when
    /// the file cannot be used at all, a full disk included (exit 74), or another process holds it
    /// (exit 75): then the file is not known to be the wrong one and stays where it is.
    package mutating func openState() throws(DaemonError) {
        guard let path = configuration.statePath, let app, persistence.journal == nil else { return }
        do {
            persistence.use(try journal(at: path, for: app))
        } catch {
            switch error {
            case .otherApp, .otherAppVersion, .otherSchema, .notAJournal, .corrupt: break  // moved aside below
            case .diskFull(let path): throw .state(.cannotOpen(path: path, reason: "its disk is full; free space"))
            case .fileTooLarge(let path):
                throw .state(.cannotOpen(path: path, reason: "it is at the file size limit of this process (ulimit -f); raise the limit"))
            default: throw .state(error)
            }
            let kept = try moveAside(path, because: "\(error)")
            logger.error("\(error); it was moved aside to \(kept) and the app starts fresh; \(error.advice(kept: kept, app: app.name))", metadata: [
                "kept": "\(kept)",
            ])
            do {
                persistence.use(try journal(at: path, for: app))
            } catch {
                throw .state(error)
            }
        }
        logger.info("journal open", metadata: ["path": "\(path)"])
        if let torn = persistence.journal?.journal.tornBytes, torn > 0 {
            logger.notice("""
                the journal ends in a torn write (a crash or power cut while appending): the inputs before it are \
                restored, and the first write cuts its \(torn) bytes away
                """, metadata: ["path": "\(path)"])
        }
    }

    /// The journal at `path` for `app` (its name and version are the journal's identity).
    mutating func journal(at path: String, for app: App) throws(JournalError) -> DaemonJournal {
        DaemonJournal(journal: try Journal(path: path, identity: Journal.Identity(app: app.name, appVersion: app.version)), logger: logger)
    }

    /// Moves a refused journal aside; returns where it went.
    private mutating func moveAside(_ path: String, because reason: String) throws(DaemonError) -> String {
        do {
            return try Journal.moveAside(path)
        } catch {
            let why = if case .cannotOpen(_, let why) = error { why } else { "\(error)" }
            throw .state(.cannotOpen(path: path, reason: "\(reason); it cannot be moved aside to start a fresh one: \(why)"))
        }
    }

    /// Feeds one input to the runtime and, once accepted, journals it: every input that changes the
    /// app enters here. Returns what an `.openLink` opened. Throws, journaling nothing, when the
    /// runtime refuses it.
    @discardableResult
    mutating func feed(_ input: FlowInput, key: UInt64 = 0) throws(FlowKitError) -> OpenedLink? {
        guard let runtime else { return nil }
        return try persistence.feed(input, key: key, into: runtime)
    }

    /// Dismissals the runtime waits for (a restore completes those of the daemon before it).
    package var pendingDismissals: Int { runtime?.pendingDismissals ?? 0 }

    /// Closes the journal without committing anything more, as a killed process would leave it
    /// (the embedded daemon's `crash()`).
    package mutating func releaseJournalAfterCrash() {
        persistence.close()
    }

    /// Commits the loop iteration's inputs (called once per iteration, before frames are written:
    /// what a host is told is journaled first).
    mutating func commitJournal() {
        // While writes fail, the deadline timer (armed at the end of the iteration) wakes the loop for the next try.
        persistence.commit(now: loop.now)
    }

    /// The last commit, as the daemon stops: tried even before the next retry is due; says what is lost.
    mutating func commitJournalBeforeExit() {
        persistence.commitBeforeExit(now: loop.now)
    }
}
