import FlowSocket
import FlowWire

/// A host that connected to the named socket survives a dropped connection (docs/protocol.md
/// §19): it connects again with the resume token of its latest `Welcome`, forgets the screens
/// it showed, and serves the `Place`s the daemon sends for those that still exist.
extension ScreenHost {
    /// The token that resumes this host's screens after a drop: the latest `Welcome`'s; empty for
    /// hosts that do not reconnect and when the daemon keeps nothing (docs/protocol.md §19).
    public var resumeToken: String { redial?.resumeToken ?? "" }

    /// Closes the connection without saying `Shutdown`, as a crashed host would, and does not
    /// reconnect: the daemon holds the screens for its resume grace, and whoever presents
    /// `resumeToken` (read it first) gets them back. `run()` returns `.stopped`. A browser tab
    /// that closes or reloads is such a host (docs/web.md).
    public func disconnect() {
        session.stop()
        socket.close()
    }

    /// True while the connection is down and the host is trying to get a new one.
    /// Outputs and navigation then throw `.reconnecting` (nothing is sent).
    public var isReconnecting: Bool { redial?.schedule != nil }

    /// True if a session that ended with `reason` is a drop this host comes back from
    /// (not an ending such as `Shutdown(DAEMON_EXITING)`).
    func resumes(after reason: ExitReason) -> Bool {
        guard let redial, redial.canResume else { return false }
        return reason == .connectionClosed || reason == .shutdown(.hung)
    }

    /// Starts reconnecting if the session ended with a drop this host resumes from; true if it did.
    /// The screens stay until the daemon says whether it resumed them (an app keeps showing them).
    func reconnectIfDropped(_ reason: ExitReason) -> Bool {
        guard resumes(after: reason), let redial else { return false }
        onReconnect?(.dropped(reason, screens: screens.count, path: redial.path))
        redial.start(.now)
        // The old connection's rules, buffered bytes, pongs and grace mean nothing on the next one.
        session = HostSession(endsWhenLastScreenDismissed: session.endsWhenLastScreenDismissed)
        decoder = FrameDecoder()
        receivedPongs = []
        graceDeadline = nil
        return true
    }

    /// While reconnecting: one try if it is due, else a wait of at most `timeoutMilliseconds`
    /// (-1: until the try is due) for the inputs (with `pollingInputs`) or the next try.
    func reconnectStep(timeoutMilliseconds: Int32, pollingInputs: Bool) throws(ScreenKitError) {
        guard let redial, let schedule = redial.schedule else { return }
        guard schedule.isDue(.now) else {
            let untilDue = milliseconds(until: schedule.nextAttempt)
            let wait = timeoutMilliseconds < 0 ? untilDue : min(timeoutMilliseconds, untilDue)
            runInputs(try pollDescriptors(socket: false, inputs: pollingInputs, timeoutMilliseconds: wait).inputs)
            return
        }
        switch redial.attempt() {
        case .connected(let socket, let welcome, let decoder):
            redial.finish()
            adopt(socket, welcome, decoder)
            onReconnect?(.reconnected(connectionID: welcome.connectionID, resumed: welcome.resumed, attempts: redial.attempts))
        case .refused(let error):
            forgetScreens(.connectionLost)
            savedStates = [:]  // a fresh start: the daemon's saved states are the screens' now
            onReconnect?(.resumeRefused(message: error.message))
        case .failed(let error):
            if redial.failed(at: .now) { return }  // tries again later
            onReconnect?(.gaveUp(attempts: redial.attempts, lastError: error))
            self.redial = nil
            _ = session.connectionClosed()
        case .fatal(let error):
            self.redial = nil
            session.fail(error)
        }
    }

    /// Serves on a new connection: the old screens are forgotten (resumed ones come back with
    /// their `Place`, already buffered or on their way), the token is the new `Welcome`'s.
    private func adopt(_ socket: UnixSocket, _ welcome: Flowd_V1_Welcome, _ decoder: FrameDecoder) {
        forgetScreens(welcome.resumed ? .resumed : .connectionLost)
        if !welcome.resumed { savedStates = [:] }
        redial?.welcomed(welcome)
        self.socket = socket
        self.decoder = decoder
        lastSeq = 1
        daemon = DaemonInfo(welcome)
        self.decoder.maxFrameSize = daemon.maxFrameSize
        resendUnconfirmed()
    }

    /// Sends again, with their keys, the inputs no `Pong` confirmed before the drop: the daemon
    /// drops those it applied and applies the others (docs/protocol.md §20). They follow the `Hello`,
    /// so the daemon has re-placed the screens they are for by then.
    private func resendUnconfirmed() {
        unconfirmed.connectionChanged()
        for (screen, data) in savedStates.sorted(by: { $0.key < $1.key }) { try? saveState(data, for: screen) }
        if let displays = providedDisplays { _ = try? write(.provideDisplays(ScreenHost.wire(displays))) }
        let pending = unconfirmed.entries
        guard !pending.isEmpty else { return }
        onReconnect?(.resent(inputs: pending.count))
        for entry in pending { _ = try? write(entry.body) }
    }

    /// Tells every screen of the old connection it is gone (newest first), without acks.
    private func forgetScreens(_ reason: Dismissal.Reason) {
        let gone = screens.sorted { $0.key > $1.key }
        screens = [:]
        for (_, screen) in gone { screen.dismissed(Dismissal(reason: reason, animated: false), serial: nil) }
    }
}
