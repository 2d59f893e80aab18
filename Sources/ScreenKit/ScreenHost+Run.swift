import FlowSocket
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

extension ScreenHost {
    /// Identifies a descriptor added with `addInput`.
    public struct InputID: Sendable, Hashable {
        let raw: Int
    }

    /// An extra descriptor polled alongside the socket.
    struct Input {
        var id: InputID
        var descriptor: Int32
        var handler: () -> Void
    }

    // MARK: Loop

    /// Serves screens until the session ends: returns why (`Shutdown`, end of stream, the only
    /// screen dismissed, `stop()`), or throws a fatal `ScreenKitError` (a fatal daemon `Error`,
    /// a broken socket, a malformed frame). The socket is closed when it returns or throws.
    public func run() throws(ScreenKitError) -> ExitReason {
        while true {
            if let reason = try pollOnce(timeoutMilliseconds: -1) { return reason }
        }
    }

    /// One step of `run()`: handles the frames already received, or else waits up to
    /// `timeoutMilliseconds` (-1: no limit) for the socket or an input and handles what arrived.
    /// Returns the exit reason once the session has ended, nil while it goes on (also while
    /// reconnecting: then a step makes one try, or waits for the next one or an input).
    public func pollOnce(timeoutMilliseconds: Int32) throws(ScreenKitError) -> ExitReason? {
        if let over = try outcome() { return over }
        if isReconnecting {
            try reconnectStep(timeoutMilliseconds: timeoutMilliseconds, pollingInputs: true)
            return try outcome()
        }
        if try handleBufferedFrames() { return try outcome() }
        if try expireGraceIfDue() { return try outcome() }

        let (socketReady, readyInputs) = try pollDescriptors(
            socket: true, inputs: true, timeoutMilliseconds: pollTimeout(timeoutMilliseconds))
        if socketReady {
            try readSocket()
            _ = try handleBufferedFrames()
        }
        runInputs(readyInputs)
        _ = try expireGraceIfDue()
        return try outcome()
    }

    /// Ends `run()` after the current handler returns, with `.stopped`. The connection stays
    /// open until `close()` or deinit; a host that is reconnecting stops trying.
    public func stop() {
        redial = nil
        session.stop()
    }

    /// A barrier: sends `Ping` and handles incoming frames (running handlers) until the daemon's
    /// `Pong` arrives. Afterwards every consequence of the frames sent before has been handled.
    /// Inputs are not polled meanwhile. If the connection drops first and the host reconnects,
    /// it pings again on the new connection (within the same timeout): the daemon answers that
    /// `Ping` after the `Place`s of the resumed screens and the commands it held. Throws `.closed`
    /// if the session ends first (then `run()` returns the reason at once), and `.socket`/`.daemon`
    /// errors as `run()` does.
    public func ping(timeoutMilliseconds: Int32 = Int32(WireProtocol.defaultReplyTimeoutMilliseconds)) throws(ScreenKitError) {
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        var nonce: UInt64?  // of the Ping sent on the current connection
        while true {
            if nonce == nil, !isReconnecting, !session.isOver { nonce = try? sendPing() }
            if let nonce, receivedPongs.remove(nonce) != nil { return }
            if try handleBufferedFrames() { continue }
            let ping = nonce.map { "Ping \($0)" } ?? "Ping"
            if try outcome() != nil { throw .closed("wait for the Pong to \(ping)") }
            let remaining = milliseconds(until: deadline)
            guard remaining > 0 else {
                throw ScreenKitError(.socket, "flowd did not answer \(ping) within \(timeoutMilliseconds) ms")
            }
            if isReconnecting {
                nonce = nil  // its Pong will not come on another connection
                try reconnectStep(timeoutMilliseconds: remaining, pollingInputs: false)
                continue
            }
            var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, remaining)
            if ready < 0 && errno != EINTR {
                throw ScreenKitError(.socket, "poll failed: \(String(cString: strerror(errno)))", isFatal: true)
            }
            if ready > 0 { try readSocket() }
        }
    }

    /// Sends a `Ping` with the next nonce.
    private func sendPing() throws(ScreenKitError) -> UInt64 {
        let nonce = nextPingNonce
        nextPingNonce += 1
        var ping = Flowd_V1_Ping()
        ping.nonce = nonce
        try write(.ping(ping))
        unconfirmed.pinged(nonce)
        return nonce
    }

    // MARK: Waiting

    /// An input that `poll` found ready, with what it reported.
    typealias ReadyInput = (input: Input, revents: Int16)

    /// Waits at most `timeoutMilliseconds` (-1: no limit) for the socket (with `socket`) and the
    /// inputs (with `inputs`; neither: a sleep). Returns whether the socket is readable, and the
    /// inputs that are, for `runInputs` once the socket's frames are handled.
    func pollDescriptors(
        socket pollSocket: Bool, inputs pollInputs: Bool, timeoutMilliseconds: Int32
    ) throws(ScreenKitError) -> (socketReady: Bool, inputs: [ReadyInput]) {
        let polled = pollInputs ? inputs : []
        var descriptors = polled.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        if pollSocket { descriptors.insert(pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0), at: 0) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return (false, []) }
            let failure = ScreenKitError(.socket, "poll failed: \(String(cString: strerror(errno)))", isFatal: true)
            session.fail(failure)
            socket.close()
            throw failure
        }
        let inputResults = pollSocket ? descriptors.dropFirst() : descriptors[...]
        let readyInputs = zip(polled, inputResults).filter { $0.1.revents != 0 }.map { ReadyInput($0.0, $0.1.revents) }
        return (pollSocket && descriptors[0].revents != 0, readyInputs)
    }

    /// Runs the handlers of inputs found ready, by id: a handler may add or remove inputs.
    func runInputs(_ ready: [ReadyInput]) {
        for (input, revents) in ready where !session.isOver {
            guard inputs.contains(where: { $0.id == input.id }) else { continue }
            if revents & Int16(POLLNVAL) != 0 {
                removeInput(input.id)
                onError?(ScreenKitError(
                    .usage, "input descriptor \(input.descriptor) was closed without removeInput; it is no longer polled"))
                continue
            }
            input.handler()
        }
    }

    // MARK: Inputs

    /// Polls `descriptor` alongside the socket; `handler` runs on the loop's thread whenever it
    /// is readable (or at end of file: read it, and `removeInput` at EOF, or it fires again).
    @discardableResult
    public func addInput(descriptor: Int32, handler: @escaping () -> Void) -> InputID {
        let id = InputID(raw: nextInputID)
        nextInputID += 1
        inputs.append(Input(id: id, descriptor: descriptor, handler: handler))
        return id
    }

    /// Stops polling an input (the descriptor is not closed).
    public func removeInput(_ id: InputID) {
        inputs.removeAll { $0.id == id }
    }

    // MARK: Frames

    /// Nil while the session runs; the exit reason once it ended; throws if it failed.
    /// A drop the host resumes from is no end: it closes the socket and starts reconnecting.
    private func outcome() throws(ScreenKitError) -> ExitReason? {
        switch session.phase {
        case .running, .awaitingShutdown:
            return nil
        case .ended(let reason):
            socket.close()
            return reconnectIfDropped(reason) ? nil : reason
        case .failed(let error):
            socket.close()
            throw error
        }
    }

    /// Reads what the socket has; end of stream ends the session.
    private func readSocket() throws(ScreenKitError) {
        guard socket.descriptor >= 0 else { return }
        let bytes: [UInt8]
        do {
            bytes = try socket.read(timeoutMilliseconds: 0)
        } catch {
            if error.isTimeout { return }
            if error.code == ECONNRESET {
                _ = session.connectionClosed()
                return
            }
            let failure = ScreenKitError.socket(error, doing: "reading from flowd")
            session.fail(failure)
            socket.close()
            throw failure
        }
        if bytes.isEmpty {
            _ = session.connectionClosed()
        } else {
            decoder.append(bytes)
        }
    }

    /// Handles every complete frame buffered; true if there was at least one.
    private func handleBufferedFrames() throws(ScreenKitError) -> Bool {
        var handled = false
        while !session.isOver {
            let envelope: Flowd_V1_Envelope?
            do {
                envelope = try decoder.nextEnvelope()
            } catch {
                let failure = ScreenKitError(.protocolViolation, "flowd sent a bad frame: \(error)", isFatal: true)
                _ = try? write(.error(error.wireError))
                _ = try? write(.shutdown(Flowd_V1_Shutdown()))
                session.fail(failure)
                socket.close()
                throw failure
            }
            guard let envelope else { break }
            handled = true
            try handle(envelope)
        }
        return handled
    }

    private func handle(_ envelope: Flowd_V1_Envelope) throws(ScreenKitError) {
        guard let action = session.receive(envelope) else { return }
        switch action {
        case .place(let message):
            place(message)
        case .update(let update):
            guard let screen = screens[update.screenID] else { return }
            do {
                try screen.apply(update)
            } catch {
                refuse(.badPayload, error.message, screenID: update.screenID, serial: update.serial)
                onError?(error)
                return
            }
            autoAck(update.screenID, update.serial)
        case .placementChanged(let change):
            screens[change.screenID]?.apply(change)
            autoAck(change.screenID, change.serial)
        case .dismiss(let dismiss):
            let screen = screens.removeValue(forKey: dismiss.screenID)
            savedStates[dismiss.screenID] = nil
            screen?.dismissed(Dismissal(reason: .init(dismiss.reason), animated: dismiss.animated), serial: dismiss.serial)
            autoAck(dismiss.screenID, dismiss.serial)
        case .ackOnly(let screenID, let serial):
            autoAck(screenID, serial)
        case .answerPing(let nonce, let replyTo):
            var pong = Flowd_V1_Pong()
            pong.nonce = nonce
            _ = try? write(.pong(pong), replyTo: replyTo)
        case .pong(let nonce):
            receivedPongs.insert(nonce)
            unconfirmed.ponged(nonce)
        case .report(let error):
            onError?(error)
        case .forceRemove(let screenID, let error):
            screens.removeValue(forKey: screenID)?.dismissed(Dismissal(reason: .ackTimeout, animated: false), serial: nil)
            savedStates[screenID] = nil
            armGraceIfNeeded()
            onError?(error)
        case .fail(let error):
            socket.close()
            throw error
        case .end:
            if case .shutdown(let shutdown) = envelope.body { shutdownMessage = shutdown.message }
        }
    }

    /// Creates the typed screen for a `Place` with the registered handler, or refuses it.
    private func place(_ place: Flowd_V1_Place) {
        guard let make = registrations[place.kind] else {
            let known = registeredKinds.map { "\"\($0)\"" }.joined(separator: ", ")
            let error = ScreenKitError(
                .unknownKind,
                "flowd placed screen \(place.screenID) of kind \"\(place.kind)\", but this host (\(name)) registers "
                    + "only [\(known)]; register a handler for the kind, or do not provide it in Hello",
                screenID: place.screenID, serial: place.serial)
            refuse(.unknownKind, error.message, screenID: place.screenID, serial: place.serial)
            session.placed(place.screenID, accepted: false)
            onError?(error)
            return
        }
        if case .failure(let error) = make(place) {
            refuse(.badPayload, error.message, screenID: place.screenID, serial: place.serial)
            session.placed(place.screenID, accepted: false)
            onError?(error)
            return
        }
        session.placed(place.screenID, accepted: true)
        autoAck(place.screenID, place.serial)
    }

    /// Acks after a handler ran, unless acks are manual. A broken connection shows up in the loop.
    private func autoAck(_ screenID: UInt64, _ serial: UInt64) {
        guard autoAck, !session.isOver else { return }
        try? ack(screenID: screenID, serial: serial)
    }

    // MARK: Shutdown grace

    /// Starts the wait for the daemon's `Shutdown` once the last screen's dismissal is acked.
    func armGraceIfNeeded() {
        if session.phase == .awaitingShutdown, graceDeadline == nil {
            graceDeadline = ContinuousClock.now + .milliseconds(shutdownGraceMilliseconds)
        }
    }

    private func expireGraceIfDue() throws(ScreenKitError) -> Bool {
        guard let graceDeadline, ContinuousClock.now >= graceDeadline else { return false }
        return session.shutdownGraceExpired() != nil
    }

    private func pollTimeout(_ requested: Int32) -> Int32 {
        guard let graceDeadline else { return requested }
        let grace = milliseconds(until: graceDeadline)
        return requested < 0 ? grace : min(requested, grace)
    }

    func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
