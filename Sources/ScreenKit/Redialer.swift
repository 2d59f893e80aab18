import FlowSocket
import FlowWire

/// Gets a host that connected to the named socket a new connection after a drop: the same
/// path and `Hello`, plus the resume token of the latest `Welcome` (docs/protocol.md §19), one
/// try at a time on a `ReconnectSchedule`. What the host does with the outcome is `ScreenHost`'s.
final class Redialer {
    /// The outcome of one try.
    enum Attempt {
        /// Connected and welcomed; frames after the `Welcome` are in `decoder`.
        case connected(UnixSocket, Flowd_V1_Welcome, FrameDecoder)
        /// The daemon refused the token (`RESUME_REFUSED`); the next try goes without one, at once.
        case refused(ScreenKitError)
        /// Nothing listens yet, the handshake broke, ...: try again later.
        case failed(ScreenKitError)
        /// The daemon refused the host for good (a fatal `Error` other than `RESUME_REFUSED`).
        case fatal(ScreenKitError)
    }

    /// The named socket.
    let path: String
    let policy: ReconnectPolicy
    private var hello: Flowd_V1_Hello
    private let timeoutMilliseconds: Int32
    /// The latest `Welcome`'s grace: how long the daemon holds the screens after a drop.
    private var graceMilliseconds: UInt32
    /// Non-nil while reconnecting.
    private(set) var schedule: ReconnectSchedule?
    /// Tries since the drop.
    private(set) var attempts = 0

    init(path: String, hello: Flowd_V1_Hello, policy: ReconnectPolicy, timeoutMilliseconds: Int32, welcome: Flowd_V1_Welcome) {
        self.path = path
        self.hello = hello
        self.policy = policy
        self.timeoutMilliseconds = timeoutMilliseconds
        self.graceMilliseconds = 0
        welcomed(welcome)
    }

    /// True if there is a token to resume with (a daemon that keeps nothing sends none).
    var canResume: Bool { !hello.resumeToken.isEmpty }

    /// The token the next resume presents: the latest `Welcome`'s.
    var resumeToken: String { hello.resumeToken }

    /// The token and grace of a new `Welcome` are the ones to resume with next time.
    func welcomed(_ welcome: Flowd_V1_Welcome) {
        hello.resumeToken = welcome.resumeToken
        graceMilliseconds = welcome.resumeGraceMs
    }

    /// The connection dropped at `now`: start trying.
    func start(_ now: ContinuousClock.Instant) {
        schedule = ReconnectSchedule(policy: policy, graceMilliseconds: graceMilliseconds, now: now)
        attempts = 0
    }

    /// Reconnected, or gave up: stop trying.
    func finish() { schedule = nil }

    /// One try: connect and say `Hello` with the current token.
    func attempt() -> Attempt {
        attempts += 1
        do {
            let socket = try Handshake.connect(path: path)
            let (welcome, decoder) = try Handshake.perform(hello, on: socket, timeoutMilliseconds: timeoutMilliseconds)
            return .connected(socket, welcome, decoder)
        } catch {
            if error.daemonCode == .resumeRefused {
                hello.resumeToken = ""
                schedule?.retryNow(.now)
                return .refused(error)
            }
            // A daemon that refuses the host itself (UNAUTHORIZED, a version, a bad frame) will again;
            // a socket another user serves is not dialled again.
            if error.code == .daemon && error.isFatal || error.code == .protocolViolation || error.code == .untrustedServer {
                return .fatal(error)
            }
            return .failed(error)
        }
    }

    /// A try failed at `now`: false once it is time to give up.
    func failed(at now: ContinuousClock.Instant) -> Bool {
        schedule?.failed(at: now) ?? false
    }
}
