import Foundation
import FlowKit
import FlowSocket
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// A screen process's connection to flowd: handshake, typed screen handlers
/// per module, automatic acks, outputs and user navigation, and an event
/// loop that ends cleanly on `Shutdown`, end of stream, or (spawned hosts)
/// the dismissal of the only screen. Hosts that connected to the named socket
/// reconnect and resume their screens after a drop (ScreenHost+Reconnect).
///
/// Blocking and single-threaded: `run()` (or `pollOnce`) waits with poll(2)
/// on the socket and any descriptors added with `addInput`, and calls every
/// handler on the calling thread. Not `Sendable`; use it from one thread.
///
/// ```swift
/// let host = try ScreenHost.fromEnvironment()
/// host.register(Greeting.self) { screen in
///     print(screen.state.title)
///     try? screen.send(.didPressOK)
/// }
/// let reason = try host.run()
/// ```
public final class ScreenHost {
    /// What the daemon said in `Welcome`.
    public struct DaemonInfo: Sendable, Hashable {
        /// The protocol version chosen for the connection.
        public var version: UInt32
        /// The daemon's id for this connection (as in `flowctl tree`).
        public var connectionID: UInt64
        /// The daemon's name and version, e.g. "flowd 0.1.0".
        public var server: String
        /// The name of the app the daemon runs.
        public var app: String
        /// The negotiated maximum frame size, both directions, in bytes.
        public var maxFrameSize: Int
        /// The daemon took the `Hello`'s resume token: the old connection's screens are placed again.
        public var resumed: Bool
    }

    /// What the daemon said in `Welcome` (the latest one, after a reconnection).
    public internal(set) var daemon: DaemonInfo
    /// The name sent in `Hello`.
    public let name: String
    /// True if the host was started by the daemon (inherited descriptor and token).
    public let isSpawned: Bool
    /// Ack every `Place`/`Update`/`PlacementChanged`/`Dismiss` right after its handler ran (default).
    /// Set to false to ack by hand with `HostedScreen.ack(_:)` or `ack(screenID:serial:)`, e.g. to test ack timeouts.
    public var autoAck = true
    /// How long a host waits for the daemon's `Shutdown` after acking its last screen's
    /// dismissal before `run()` returns `.onlyScreenDismissed` anyway. Default: the daemon's grace
    /// for a spawned process (`WireProtocol.defaultSpawnExitGraceMilliseconds`), after which it
    /// would stop the process anyway.
    public var shutdownGraceMilliseconds = WireProtocol.defaultSpawnExitGraceMilliseconds
    /// Non-fatal errors: daemon `Error` frames (`UNKNOWN_KIND`, `ACK_TIMEOUT`, `BAD_PAYLOAD`, ...),
    /// refused `Place`s and protocol slips of the daemon. Fatal ones end `run()` by throwing instead.
    public var onError: ((ScreenKitError) -> Void)?
    /// What a host that reconnects by itself goes through: the drop, a refused resume, the new
    /// connection, giving up (see `ReconnectPolicy`). For logs and a "reconnecting…" notice.
    public var onReconnect: ((ReconnectEvent) -> Void)?
    /// The message of the daemon's `Shutdown`, once received.
    public internal(set) var shutdownMessage: String?

    /// The connection; replaced when the host reconnects.
    var socket: UnixSocket
    var decoder: FrameDecoder
    /// The rules of the current connection's session (a new one per connection).
    var session: HostSession
    var lastSeq: UInt64
    var screens: [UInt64: any AnyHostedScreen] = [:]
    /// Per kind: makes the typed screen for a `Place` and runs the handler (a `Result` rather than
    /// typed throws in the closure, which crashes Swift 6.3.1's SILGen).
    var registrations: [String: (Flowd_V1_Place) -> Result<any AnyHostedScreen, ScreenKitError>] = [:]
    var nextPingNonce: UInt64 = 1
    var receivedPongs: Set<UInt64> = []
    /// Outputs and navigation sent and not confirmed by a `Pong` yet; sent again after a drop.
    var unconfirmed = UnconfirmedInputs()
    /// The last state saved for each live screen (`saveState`): sent again after a resume (a
    /// `SaveState` is not acknowledged, one written just before a drop may be lost) and given to the
    /// screen when the daemon places it again, newer than the `Place`'s, built before the resume.
    var savedStates: [UInt64: Data] = [:]
    /// The displays this host provides (`provideDisplays`), nil until it said; sent again after a reconnection.
    var providedDisplays: [Display]?
    var inputs: [Input] = []
    var nextInputID = 1
    var graceDeadline: ContinuousClock.Instant?
    /// How to connect again after a drop; nil for hosts that do not reconnect (spawned ones,
    /// those on a given descriptor, `reconnect: nil`), and once reconnecting has given up.
    var redial: Redialer?

    /// A host on a connection whose handshake is done (the `Hello` was frame 1).
    init(socket: UnixSocket, decoder: FrameDecoder, welcome: Flowd_V1_Welcome, name: String, isSpawned: Bool) {
        self.socket = socket
        self.decoder = decoder
        self.name = name
        self.isSpawned = isSpawned
        self.lastSeq = 1
        self.daemon = DaemonInfo(welcome)
        self.decoder.maxFrameSize = daemon.maxFrameSize
        self.session = HostSession(endsWhenLastScreenDismissed: isSpawned)
    }

    /// End `run()` once the last hosted screen's dismissal is acked (and the daemon said `Shutdown`
    /// or went quiet). True for spawned hosts, false for hosts that connected on their own.
    public var endsWhenLastScreenDismissed: Bool {
        get { session.endsWhenLastScreenDismissed }
        set { session.endsWhenLastScreenDismissed = newValue }
    }

    /// Screens placed on the current connection, accepted by a handler, and not dismissed
    /// (0 while reconnecting).
    public var liveScreenCount: Int { session.liveScreenCount }

    /// Why the session ended, once it has (nil while running, reconnecting, or after a thrown failure).
    public var exitReason: ExitReason? {
        if case .ended(let reason) = session.phase, !resumes(after: reason) { return reason }
        return nil
    }

    // MARK: Handlers

    /// Hosts screens of `module`: `handler` gets each placed screen of `Module.kind`, typed, and
    /// usually sets its callbacks. Registering a kind again replaces its handler. Register before
    /// `run()`; a `Place` of a kind without handler is refused (`UNKNOWN_KIND`, reported to `onError`).
    public func register<Module: ScreenModule>(
        _ module: Module.Type, handler: @escaping (HostedScreen<Module>) -> Void
    ) {
        registrations[Module.kind] = { [unowned self] place in makeScreen(Module.self, place, handler) }
    }

    /// Decodes the state of a `Place`, creates the typed screen and runs the module's handler.
    private func makeScreen<Module: ScreenModule>(
        _ module: Module.Type, _ place: Flowd_V1_Place, _ handler: (HostedScreen<Module>) -> Void
    ) -> Result<any AnyHostedScreen, ScreenKitError> {
        let state: Module.State
        do {
            state = try decodeState(Module.self, place.state, screenID: place.screenID, serial: place.serial)
        } catch {
            return .failure(error)
        }
        let screen = HostedScreen<Module>(place: place, state: state, host: self)
        screens[place.screenID] = screen
        handler(screen)
        return .success(screen)
    }

    /// The kinds registered so far, sorted.
    public var registeredKinds: [String] { registrations.keys.sorted() }

    // MARK: Sending

    /// Acks `serial` of a screen (acknowledging earlier serials too). Sent as given, without checks,
    /// so a test can also ack what the daemon never sent.
    public func ack(screenID: UInt64, serial: UInt64) throws(ScreenKitError) {
        var ack = Flowd_V1_Ack()
        ack.screenID = screenID
        ack.serial = serial
        try write(.ack(ack))
        session.acked(screenID, serial: serial)
        armGraceIfNeeded()
    }

    /// Says goodbye (`Shutdown`) and closes the connection; `run()` then returns `.stopped`.
    /// A host that is reconnecting stops trying.
    public func close() {
        if !session.isOver, socket.descriptor >= 0 {
            _ = try? write(.shutdown(Flowd_V1_Shutdown()))
        }
        redial = nil
        session.stop()
        socket.close()
    }

    /// Writes an output or a navigation with a key (docs/protocol.md §20): kept until a `Pong`
    /// confirms it, and sent again with the same key on the next connection after a drop.
    func writeInput(_ body: Flowd_V1_Envelope.OneOf_Body) throws(ScreenKitError) {
        let (keyed, number) = unconfirmed.keyed(body)
        try write(keyed)
        unconfirmed.sent(keyed, number: number)
    }

    /// Sends a `SaveState`; while reconnecting, keeps the last one per screen for after the resume.
    func saveState(_ data: Data, for screen: UInt64) throws(ScreenKitError) {
        var saved = Flowd_V1_SaveState()
        saved.screenID = screen
        saved.data = data
        savedStates[screen] = data  // empty too: a clear is sent again after a resume like any other
        do {
            try write(.saveState(saved))
        } catch where error.code == .reconnecting {
            // Sent once the host resumed (`resendUnconfirmed`).
        }
    }

    /// Writes one frame. A peer that has gone away takes no more, and the session ends once what it
    /// wrote before going has been read: its `Shutdown`'s reason, or `.connectionClosed` at the end of
    /// the stream (ending the session here lost a `Shutdown(APP_FINISHED)` still unread).
    @discardableResult
    func write(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) throws(ScreenKitError) -> UInt64 {
        guard !session.isOver, !session.peerGone, socket.descriptor >= 0 else { throw unavailable("send \(body.name)") }
        let envelope = Flowd_V1_Envelope(body, seq: lastSeq + 1, replyTo: replyTo)
        let frame: [UInt8]
        do {
            frame = try FrameEncoder.encode(envelope, maxFrameSize: daemon.maxFrameSize)
        } catch {
            throw ScreenKitError(.encoding, "cannot send \(body.name): \(error)")
        }
        do {
            try socket.write(frame)
        } catch {
            if error.code == EPIPE || error.code == ECONNRESET {
                session.writeFailed()
                throw unavailable("send \(body.name)")
            }
            let failure = ScreenKitError.socket(error, doing: "sending \(body.name)")
            session.fail(failure)
            socket.close()
            throw failure
        }
        lastSeq += 1
        return lastSeq
    }

    /// Why nothing can be sent now: the host is reconnecting (not fatal), or the session is over.
    /// A daemon gone without a word yet is taken for a drop: `.reconnecting` if this host resumes
    /// from one (a `Shutdown` read next may still end it for good).
    func unavailable(_ what: String) -> ScreenKitError {
        if isReconnecting { return .reconnecting(what) }
        if case .ended(let reason) = session.phase, resumes(after: reason) { return .reconnecting(what) }
        if !session.isOver, session.peerGone, resumes(after: .connectionClosed) { return .reconnecting(what) }
        return .closed(what)
    }

    /// Sends a non-fatal `Error` about a command the host could not apply.
    func refuse(_ code: Flowd_V1_ErrorCode, _ message: String, screenID: UInt64, serial: UInt64) {
        _ = try? write(.error(Flowd_V1_Error(code: code, message: message, fatal: false, screenID: screenID, serial: serial)))
    }

    // MARK: Coding

    /// This host's JSON coder (FlowKit's fast coders, Foundation's bytes): one per host, which runs
    /// on one thread, so its buffers are reused from one payload to the next.
    let jsonCodec: any PayloadCodec = JSONPayloadCodec()

    /// Decodes a state payload as `Module.State` (in the module's content type; JSON is taken too,
    /// for a `BinaryPayload` state written by a person), or explains why it does not fit.
    func decodeState<Module: ScreenModule>(
        _ module: Module.Type, _ payload: Flowd_V1_Payload, screenID: UInt64, serial: UInt64
    ) throws(ScreenKitError) -> Module.State {
        let coder = Module.stateCoder
        guard payload.contentType == coder.contentType || payload.isJSON else {
            throw ScreenKitError(
                .badState,
                "the state of screen \(screenID) (kind \"\(Module.kind)\") has content type \"\(payload.contentType)\"; "
                    + "this host's module takes \"\(coder.contentType)\": check that the app's module and this screen process agree "
                    + "(`flowd describe` shows the app's)",
                screenID: screenID, serial: serial)
        }
        do {
            let codec = jsonCodec
            if payload.isJSON, !coder.isJSON {
                return try coder.decode(coder.payload(fromJSON: payload.data, with: codec), with: codec)
            }
            return try coder.decode(payload.data, with: codec)
        } catch {
            throw ScreenKitError(
                .badState,
                "kind \"\(Module.kind)\": the state of screen \(screenID) does not decode as \(Module.self).State: "
                    + "\(DecodingProblem(error)); check that the app's module and this screen process agree on the State type "
                    + "(`flowd describe` shows the app's)",
                screenID: screenID, serial: serial)
        }
    }
}

extension ScreenHost.DaemonInfo {
    /// What a `Welcome` says.
    init(_ welcome: Flowd_V1_Welcome) {
        self.init(
            version: welcome.version, connectionID: welcome.connectionID, server: welcome.server, app: welcome.app,
            maxFrameSize: welcome.maxFrameSize == 0 ? WireProtocol.defaultMaxFrameSize : Int(welcome.maxFrameSize),
            resumed: welcome.resumed)
    }
}
