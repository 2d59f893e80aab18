import FlowApp
import FlowKit

extension AppCore {
    /// Opens the journal of `configuration.statePath` (`Persistence.open`: a journal that cannot be
    /// replayed is moved aside and a fresh one starts; a file that cannot be used at all throws).
    mutating func openState() throws(DaemonError) {
        guard let path = configuration.statePath, let app, persistence.journal == nil else { return }
        tell(try persistence.open(at: path, for: app, logger: logger))
    }

    /// Feeds one input to the runtime and, once accepted, journals it: every input that changes the
    /// app enters here. Returns what an `.openLink` opened. Throws, journaling nothing, when the
    /// runtime refuses it.
    @discardableResult
    mutating func feed(_ input: FlowInput, key: UInt64 = 0) throws(FlowKitError) -> OpenedLink? {
        guard let runtime else { return nil }
        return try persistence.feed(input, key: key, at: loop.wallClock, into: runtime)
    }

    /// Whether the `Pong` to `nonce` (the `Ping` `seq` on `connection`) waits for the commit of the
    /// inputs before it (docs/protocol.md §10: a Pong says they are durable): held, it goes out from
    /// `takeDurablePongs` once they are committed; while the journal's writes fail, that is once they
    /// succeed again. Throws when too many wait.
    mutating func holdsPong(_ nonce: UInt64, seq: UInt64, on connection: UInt64) throws(HeldPongsFull) -> Bool {
        try persistence.holdUntilDurable(.init(connection: connection, seq: seq, nonce: nonce))
    }

    /// The pongs whose inputs are committed now.
    mutating func takeDurablePongs() -> [Persistence.HeldPong] { persistence.takeDurablePongs() }

    /// Commits the loop iteration's inputs (called once per iteration, before frames are written:
    /// what a host is told is journaled first).
    mutating func commitJournal() {
        // While writes fail, the deadline timer (armed at the end of the iteration) wakes the loop for the next try.
        let runtime = self.runtime
        persistence.commit(now: loop.now) { runtime.map(PlaceText.of) }
        if let runtime, let app, isRunning, let notice = persistence.compactIfDue(app, runtime: runtime, savedStates: delivery.savedStates) {
            tell(notice)
        }
    }
}
