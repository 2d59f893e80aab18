import FlowWire

/// The protocol rules of one connection as a state machine over received
/// frames: the handshake, then which messages each role may send. No I/O;
/// the daemon feeds it envelopes and performs the actions it returns.
package struct ConnectionStateMachine {
    /// How the peer reached the daemon.
    package enum Origin: Sendable, Equatable {
        /// Connected to the named socket; `uid` from SO_PEERCRED.
        case namedSocket(uid: UInt32?)
        /// Spawned by the daemon on a socket pair; must present `token` once.
        case spawned(token: String)

        /// Whether the daemon spawned the peer.
        package var isSpawned: Bool {
            if case .spawned = self { return true }
            return false
        }
    }

    /// What a connection is allowed to do after the handshake.
    package enum Role: Sendable, Equatable {
        case screenHost
        case debug
        /// Draws the screens of every host on one display (flowd-shell): reads the scene, sends user navigation.
        case display
    }

    /// What the handshake settled.
    package struct Agreement: Sendable, Equatable {
        package var version: UInt32
        package var maxFrameSize: Int
        package var role: Role
        package var name: String
        package var provides: [String]
        package var pid: Int32
        /// A screen host's `Hello.resume_token` (empty: a fresh start).
        package var resumeToken: String = ""
    }

    /// A broken rule: sent to the peer as a fatal `Error`, then the connection closes.
    package struct Violation: Sendable, Equatable, Error {
        package var code: Flowd_V1_ErrorCode
        package var message: String
    }

    /// What the daemon must do with a received frame.
    package enum Action: Sendable, Equatable {
        /// Send `Welcome` with these terms; the connection is now established.
        case welcome(Agreement)
        /// The frame is allowed for the established role; the daemon handles it
        /// (no copy of the body: the caller holds it).
        case handle
        /// The peer said it is leaving (`Shutdown`); close without an error.
        case close
        /// Send a fatal `Error` and close.
        case reject(Violation)
    }

    package enum State: Sendable, Equatable {
        case awaitingHello
        case established(Agreement)
        case closed
    }

    package private(set) var state: State = .awaitingHello
    package let origin: Origin
    package let supportedVersions: ClosedRange<UInt32>
    package let maxFrameSize: Int

    package init(origin: Origin, supportedVersions: ClosedRange<UInt32>, maxFrameSize: Int) {
        self.origin = origin
        self.supportedVersions = supportedVersions
        self.maxFrameSize = maxFrameSize
    }

    /// Whether a peer may connect at all; checked before any byte is read.
    package static func admit(_ origin: Origin, allowedUID: UInt32) -> Violation? {
        guard case .namedSocket(let uid) = origin else { return nil }
        guard let uid else {
            return Violation(code: .unauthorized, message: "cannot read the peer's credentials (SO_PEERCRED); connection refused")
        }
        guard uid == allowedUID else {
            return Violation(
                code: .unauthorized,
                message: "peer uid \(uid) is not the daemon's uid \(allowedUID); only the daemon's user may connect")
        }
        return nil
    }

    /// The peer sent no complete `Hello` in time.
    package mutating func handshakeTimedOut(afterMilliseconds ms: UInt64) -> Action? {
        guard case .awaitingHello = state else { return nil }
        state = .closed
        return .reject(Violation(code: .handshakeTimeout, message: "no Hello within \(ms) ms of connecting; closing"))
    }

    /// Whether the handshake is done with the screen-host role: `receive` then answers `.handle` to
    /// an `Output`, an `Ack`, a `UserNavigation` and a `SaveState`, changing nothing (the daemon's
    /// read loop takes outputs and acks on that word, without the body enum).
    package var isScreenHost: Bool {
        if case .established(let agreement) = state { agreement.role == .screenHost } else { false }
    }

    /// Whether the handshake is done (read in place, without copying the agreement out).
    package var isEstablished: Bool {
        if case .established = state { true } else { false }
    }

    /// The next complete frame from the peer.
    package mutating func receive(_ body: Flowd_V1_Envelope.OneOf_Body) -> Action {
        switch state {
        case .closed:
            return .close
        case .awaitingHello:
            guard case .hello(let hello) = body else {
                return fail(.unexpectedMessage, "expected Hello as the first frame, got \(body.name)")
            }
            return receiveHello(hello)
        case .established(let agreement):
            return receiveEstablished(body, role: agreement.role)
        }
    }

    private mutating func receiveHello(_ hello: Flowd_V1_Hello) -> Action {
        let ours = "\(supportedVersions.lowerBound)...\(supportedVersions.upperBound)"
        let theirs = "\(hello.minVersion)...\(hello.maxVersion)"
        guard let version = WireProtocol.negotiateVersion(
            clientMin: hello.minVersion, clientMax: hello.maxVersion, supported: supportedVersions)
        else {
            return fail(.unsupportedVersion, "client speaks protocol versions \(theirs), flowd speaks \(ours); upgrade the older side")
        }

        let role: Role
        switch hello.role {
        case .screenHost: role = .screenHost
        case .debug: role = .debug
        case .display: role = .display
        default:
            return fail(.unexpectedMessage, "Hello.role is unset or unknown (\(hello.role.rawValue)); use ROLE_SCREEN_HOST, ROLE_DEBUG or ROLE_DISPLAY")
        }

        switch origin {
        case .spawned(let token):
            guard !token.isEmpty, hello.token == token else {
                return fail(.unauthorized, "spawned screen presented a wrong or reused token; use the FLOWD_TOKEN given at spawn")
            }
            guard role == .screenHost else {
                return fail(.unauthorized, "a spawned screen may only take ROLE_SCREEN_HOST")
            }
        case .namedSocket:
            guard hello.token.isEmpty else {
                return fail(.unauthorized, "a token is only valid on the socket flowd spawned the screen with, not on the named socket")
            }
        }
        guard hello.resumeToken.isEmpty || (role == .screenHost && !origin.isSpawned) else {
            return fail(.unexpectedMessage, "Hello.resume_token is for screen hosts that connected to the named socket on their own")
        }

        var frameSize = maxFrameSize
        if hello.maxFrameSize != 0 {
            guard Int(hello.maxFrameSize) >= WireProtocol.minimumMaxFrameSize else {
                return fail(.unexpectedMessage, "Hello.max_frame_size \(hello.maxFrameSize) is below the minimum of \(WireProtocol.minimumMaxFrameSize) bytes")
            }
            frameSize = min(frameSize, Int(hello.maxFrameSize))
        }
        let agreement = Agreement(
            version: version, maxFrameSize: frameSize, role: role,
            name: hello.name, provides: hello.provides, pid: hello.pid, resumeToken: hello.resumeToken)
        state = .established(agreement)
        return .welcome(agreement)
    }

    private mutating func receiveEstablished(_ body: Flowd_V1_Envelope.OneOf_Body, role: Role) -> Action {
        switch body {
        case .ping, .pong, .error:
            return .handle
        case .shutdown:
            state = .closed
            return .close
        case .userNavigation:
            // A host's for its own screens; a display's for any screen.
            guard role != .debug else {
                return fail(.unexpectedMessage, "UserNavigation is for screen hosts and displays; this connection has the debug role (use InjectNavigation)")
            }
            return .handle
        case .ack, .output, .saveState:
            guard role == .screenHost else {
                return fail(.unexpectedMessage, "\(body.name) is for screen hosts; this connection has the \(role.name) role")
            }
            return .handle
        case .provideDisplays:
            guard role != .debug else {
                return fail(.unexpectedMessage, "ProvideDisplays is for displays and screen hosts; this connection has the debug role")
            }
            return .handle
        case .openLink:
            // A notification screen, a URL handler (screen hosts) or `flowctl open` (debug).
            guard role != .display else {
                return fail(.unexpectedMessage, "OpenLink is for screen hosts and debug clients; a display sends only ProvideDisplays, UserNavigation, Ping and Shutdown")
            }
            return .handle
        case .getTree, .getStats, .subscribe, .unsubscribe, .injectOutput, .injectNavigation, .terminateFlow, .describe, .getHistory, .getMoment:
            guard role == .debug else {
                return fail(.unexpectedMessage, "\(body.name) is for debug clients; this connection has the \(role.name) role (connect again with ROLE_DEBUG)")
            }
            return .handle
        case .hello:
            return fail(.unexpectedMessage, "a second Hello; the handshake is already done")
        case .welcome, .place, .update, .placementChanged, .dismiss, .tree, .event, .lagged, .commandResult, .stats, .linkOpened, .appContract, .history, .moment,
             .displayScene:
            return fail(.unexpectedMessage, "\(body.name) is sent by the daemon, never to it")
        }
    }

    private mutating func fail(_ code: Flowd_V1_ErrorCode, _ message: String) -> Action {
        state = .closed
        return .reject(Violation(code: code, message: message))
    }

    /// Whether `body` enters the flows (outputs, user navigation, links, injections, terminations):
    /// the frames whose work is counted against `inputsPerTurn`.
    static func isFlowInput(_ body: Flowd_V1_Envelope.OneOf_Body) -> Bool {
        switch body {
        case .output, .userNavigation, .openLink, .injectOutput, .injectNavigation, .terminateFlow: true
        default: false
        }
    }
}

extension ConnectionStateMachine.Role {
    /// How messages and `flowctl tree` name the role: "screen-host", "debug", "display".
    package var name: String {
        switch self {
        case .screenHost: "screen-host"
        case .debug: "debug"
        case .display: "display"
        }
    }
}
