import FlowWire

/// The rules of a screen host's session after the handshake, as a value-type
/// state machine over received frames and sent acks: which screens exist,
/// that serials grow, what a daemon `Error` means, and when the session ends.
/// No I/O and no typed screens: `ScreenHost` feeds it and performs the actions.
package struct HostSession {
    /// Where the session is.
    package enum Phase: Sendable, Hashable {
        /// Serving screens.
        case running
        /// The host's last screen was dismissed and acked; waiting for the daemon's
        /// `Shutdown` or end of stream (bounded by the driver's grace period).
        case awaitingShutdown
        /// Over, with this reason.
        case ended(ExitReason)
        /// Over, with this fatal error.
        case failed(ScreenKitError)
    }

    /// What the driver must do with a received frame.
    package enum Action: Sendable {
        /// Create a typed screen for this `Place`, then report `placed(_:accepted:)`.
        case place(Flowd_V1_Place)
        /// Give a hosted screen its new state.
        case update(Flowd_V1_Update)
        /// Tell a hosted screen its new placement.
        case placementChanged(Flowd_V1_PlacementChanged)
        /// Remove a hosted screen, then ack the serial.
        case dismiss(Flowd_V1_Dismiss)
        /// A `Dismiss` for a screen this host refused or never had: ack it, nothing to remove.
        case ackOnly(screenID: UInt64, serial: UInt64)
        /// Answer the daemon's `Ping`.
        case answerPing(nonce: UInt64, replyTo: UInt64)
        /// The daemon answered our `Ping`.
        case pong(nonce: UInt64)
        /// A non-fatal error: hand it to `onError`.
        case report(ScreenKitError)
        /// The daemon removed a hosted screen by force (`ACK_TIMEOUT`): drop it, then report.
        case forceRemove(screenID: UInt64, ScreenKitError)
        /// The session failed (fatal daemon error); throw this.
        case fail(ScreenKitError)
        /// The session ended; return this.
        case end(ExitReason)
    }

    /// What the session knows about one screen id.
    struct Screen: Sendable, Hashable {
        var kind: String
        /// The last serial received for it.
        var lastSerial: UInt64
        /// The highest serial acked.
        var ackedSerial: UInt64 = 0
        /// A handler accepted it (false: unknown kind or bad state, or not yet reported).
        var hosted = false
        /// The serial of its `Dismiss`, once received.
        var dismissSerial: UInt64?
    }

    /// Where the session is.
    package private(set) var phase: Phase = .running
    /// End the session once the last hosted screen's dismissal is acked (spawned hosts).
    package var endsWhenLastScreenDismissed: Bool
    private(set) var screens: [UInt64: Screen] = [:]
    /// Whether any screen was ever hosted (a host does not end before its first screen).
    private(set) var hadScreen = false

    /// A session; `endsWhenLastScreenDismissed` is true for spawned hosts.
    package init(endsWhenLastScreenDismissed: Bool) {
        self.endsWhenLastScreenDismissed = endsWhenLastScreenDismissed
    }

    /// True once the session has ended or failed.
    package var isOver: Bool {
        switch phase {
        case .running, .awaitingShutdown: false
        case .ended, .failed: true
        }
    }

    /// Screens a handler accepted and that are not dismissed yet.
    package var liveScreenCount: Int {
        screens.values.count { $0.hosted && $0.dismissSerial == nil }
    }

    /// The last serial received for `screenID`, if the session knows the screen.
    package func lastSerial(of screenID: UInt64) -> UInt64? { screens[screenID]?.lastSerial }

    // MARK: Events

    /// The next frame from the daemon.
    package mutating func receive(_ envelope: Flowd_V1_Envelope) -> Action? {
        guard !isOver, let body = envelope.body else { return nil }
        switch body {
        case .place(let place):
            return receivePlace(place)
        case .update(let update):
            return check(update.screenID, update.serial, "Update", then: .update(update))
        case .placementChanged(let change):
            return check(change.screenID, change.serial, "PlacementChanged", then: .placementChanged(change))
        case .dismiss(let dismiss):
            return receiveDismiss(dismiss)
        case .ping(let ping):
            return .answerPing(nonce: ping.nonce, replyTo: envelope.seq)
        case .pong(let pong):
            return .pong(nonce: pong.nonce)
        case .error(let error):
            return receiveError(error)
        case .shutdown(let shutdown):
            let reason = ShutdownReason(shutdown.reason)
            let exit: ExitReason =
                reason == .screenDismissed || phase == .awaitingShutdown ? .onlyScreenDismissed : .shutdown(reason)
            phase = .ended(exit)
            return .end(exit)
        default:
            return .report(ScreenKitError(
                .protocolViolation,
                "flowd sent \(body.name), which a screen host never receives after the handshake; ignored"))
        }
    }

    /// The driver's handler accepted (or refused) the screen of a `Place`.
    package mutating func placed(_ screenID: UInt64, accepted: Bool) {
        guard var screen = screens[screenID] else { return }
        screen.hosted = accepted
        screens[screenID] = screen
        if accepted { hadScreen = true }
    }

    /// The host sent `Ack(screenID, serial)`. A dismissed screen is forgotten once its `Dismiss` is acked.
    package mutating func acked(_ screenID: UInt64, serial: UInt64) {
        guard var screen = screens[screenID] else { return }
        screen.ackedSerial = max(screen.ackedSerial, serial)
        if let dismissSerial = screen.dismissSerial, serial >= dismissSerial {
            screens[screenID] = nil
            checkLastScreenGone()
        } else {
            screens[screenID] = screen
        }
    }

    /// The stream ended (read returned 0 bytes).
    package mutating func connectionClosed() -> ExitReason? {
        guard !isOver else { return nil }
        let exit: ExitReason = phase == .awaitingShutdown ? .onlyScreenDismissed : .connectionClosed
        phase = .ended(exit)
        return exit
    }

    /// The daemon stayed silent for the grace period after the last dismissal was acked.
    package mutating func shutdownGraceExpired() -> ExitReason? {
        guard phase == .awaitingShutdown else { return nil }
        phase = .ended(.onlyScreenDismissed)
        return .onlyScreenDismissed
    }

    /// A write found the daemon gone (`EPIPE`): nothing more is sent on this connection, while what
    /// the daemon wrote before it went (a `Shutdown` saying why) is still read and handled; the end
    /// of the stream then ends the session.
    package private(set) var peerGone = false

    /// A write found the daemon gone.
    package mutating func writeFailed() { peerGone = true }

    /// `stop()` was called.
    package mutating func stop() {
        guard !isOver else { return }
        phase = .ended(.stopped)
    }

    /// A local failure that makes the connection unusable (socket error, bad frame).
    package mutating func fail(_ error: ScreenKitError) {
        guard !isOver else { return }
        phase = .failed(error)
    }

    // MARK: Rules

    private mutating func receivePlace(_ place: Flowd_V1_Place) -> Action {
        if let existing = screens[place.screenID] {
            return .report(ScreenKitError(
                .protocolViolation,
                "flowd placed screen \(place.screenID) (kind \"\(place.kind)\") again, but it already exists "
                    + "(kind \"\(existing.kind)\"); the second Place is ignored",
                screenID: place.screenID, serial: place.serial))
        }
        screens[place.screenID] = Screen(kind: place.kind, lastSerial: place.serial)
        return .place(place)
    }

    /// Checks a command about an existing screen: `action` to deliver it, nil to drop it
    /// silently (a screen this host refused), a report if the daemon broke the serial rules.
    private mutating func check(_ screenID: UInt64, _ serial: UInt64, _ name: String, then action: Action) -> Action? {
        guard var screen = screens[screenID] else {
            return .report(ScreenKitError(
                .protocolViolation, "flowd sent \(name) for screen \(screenID), which it never placed here; ignored",
                screenID: screenID, serial: serial))
        }
        guard serial > screen.lastSerial else {
            return .report(ScreenKitError(
                .protocolViolation,
                "flowd sent \(name) for screen \(screenID) with serial \(serial), not above the last one "
                    + "(\(screen.lastSerial)); ignored", screenID: screenID, serial: serial))
        }
        screen.lastSerial = serial
        screens[screenID] = screen
        return screen.hosted && screen.dismissSerial == nil ? action : nil
    }

    private mutating func receiveDismiss(_ dismiss: Flowd_V1_Dismiss) -> Action? {
        guard var screen = screens[dismiss.screenID], screen.hosted, screen.dismissSerial == nil else {
            // Refused, unknown or already dismissed: nothing to remove; the ack lets the daemon finish unwinding.
            screens[dismiss.screenID] = nil
            return .ackOnly(screenID: dismiss.screenID, serial: dismiss.serial)
        }
        screen.lastSerial = max(screen.lastSerial, dismiss.serial)
        screen.dismissSerial = dismiss.serial
        screens[dismiss.screenID] = screen
        return .dismiss(dismiss)
    }

    private mutating func receiveError(_ wire: Flowd_V1_Error) -> Action {
        let error = ScreenKitError(daemon: wire)
        if wire.fatal {
            phase = .failed(error)
            return .fail(error)
        }
        if wire.code == .ackTimeout, let screen = screens[wire.screenID] {
            screens[wire.screenID] = nil
            if screen.hosted && screen.dismissSerial == nil {
                checkLastScreenGone()
                return .forceRemove(screenID: wire.screenID, error)
            }
            checkLastScreenGone()
        }
        return .report(error)
    }

    private mutating func checkLastScreenGone() {
        guard endsWhenLastScreenDismissed, hadScreen, phase == .running else { return }
        if !screens.values.contains(where: \.hosted) { phase = .awaitingShutdown }
    }
}
