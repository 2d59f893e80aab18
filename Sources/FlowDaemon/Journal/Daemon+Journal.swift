import FlowApp
import FlowJournal
import FlowKit

extension Daemon {
    /// Opens the journal of `configuration.statePath` (docs/restore.md). A journal that cannot be
    /// replayed — another app's, version's or schema's, damaged, not a journal — is moved aside with
    /// an error in the log and a fresh one starts; nothing is deleted. Throws when the file cannot be
    /// used at all (exit 74) or another process holds it (exit 75).
    package func openState() throws(DaemonError) {
        guard let path = configuration.statePath, let app, stateJournal == nil else { return }
        let identity = Journal.Identity(app: app.name, appVersion: app.version)
        do {
            stateJournal = DaemonJournal(journal: try Journal(path: path, identity: identity), logger: logger)
        } catch .locked(let path, let holder) {
            throw .state(.locked(path: path, holder: holder))
        } catch .cannotOpen(let path, let reason) {
            throw .state(.cannotOpen(path: path, reason: reason))
        } catch {
            let kept = try moveAside(path, because: "\(error)")
            logger.error("the journal cannot be replayed; it was moved aside and the app starts fresh", metadata: [
                "reason": "\(error)", "kept": "\(kept)",
            ])
            do {
                stateJournal = DaemonJournal(journal: try Journal(path: path, identity: identity), logger: logger)
            } catch {
                throw .state(error)
            }
        }
        logger.info("journal open", metadata: ["path": "\(path)"])
    }

    /// Moves a refused journal aside; returns where it went.
    private func moveAside(_ path: String, because reason: String) throws(DaemonError) -> String {
        do {
            return try Journal.moveAside(path)
        } catch {
            throw .state(.cannotOpen(path: path, reason: "it cannot be replayed (\(reason)) and \(error)"))
        }
    }

    /// Feeds one input to the runtime and, once accepted, journals it: every input that changes the
    /// app enters here (a terminate from a debug client journals itself, for its completion).
    /// Throws, journaling nothing, when the runtime refuses it.
    func feed(_ input: FlowInput, key: UInt64 = 0) throws(FlowKitError) {
        guard let runtime else { return }
        try runtime.apply(input)
        appliedKeys.insert(key)
        stateJournal?.record(input, key: key)
    }

    /// Dismissals the runtime waits for (a restore completes those of the daemon before it).
    package var pendingDismissals: Int { runtime?.pendingDismissals ?? 0 }

    /// Closes the journal without committing anything more, as a killed process would leave it
    /// (the embedded daemon's `crash()`).
    package func releaseJournalAfterCrash() {
        stateJournal?.drainCheckpoints()
        stateJournal = nil
    }

    /// Commits the loop iteration's inputs (called once per iteration, before frames are written:
    /// what a host is told is journaled first).
    func commitJournal() {
        stateJournal?.commit(now: loop.now)
    }
}
