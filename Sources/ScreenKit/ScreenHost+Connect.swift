import FlowSocket
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension ScreenHost {
    /// Connects to the daemon's named socket and performs the handshake as a screen host that
    /// provides `provides` (the kinds you will `register`). `path` nil means the default path
    /// (`$FLOWD_SOCKET`, `$XDG_RUNTIME_DIR/flowd/flowd.sock`, `/tmp/flowd-<uid>/flowd.sock`).
    ///
    /// `reconnect`: when the connection drops (end of stream, a reset, or the daemon's
    /// `Shutdown(HUNG)`), connect to the same path again and resume the screens with the latest
    /// `Welcome`'s token (docs/protocol.md §19), backing off as the policy says; nil turns it off
    /// (`run()` then returns `.connectionClosed` or `.shutdown(.hung)` at once).
    ///
    /// `resumeToken`: another process's `ScreenHost.resumeToken`, to take over the screens of a
    /// host that `disconnect()`ed (a reloaded browser tab, docs/web.md); the daemon places them
    /// again (`daemon.resumed`), or refuses a stale token with a `RESUME_REFUSED` error thrown here.
    public static func connect(
        path: String? = nil, name: String, provides: [String], timeoutMilliseconds: Int32 = Int32(WireProtocol.defaultReplyTimeoutMilliseconds),
        reconnect: ReconnectPolicy? = ReconnectPolicy(), resumeToken: String = ""
    ) throws(ScreenKitError) -> ScreenHost {
        let path = path ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
        let socket = try Handshake.connect(path: path)
        let hello = Handshake.hello(name: name, token: "", provides: provides, resumeToken: resumeToken)
        let (host, welcome) = try handshake(hello, on: socket, isSpawned: false, timeoutMilliseconds: timeoutMilliseconds)
        if let reconnect {
            host.redial = Redialer(
                path: path, hello: hello, policy: reconnect, timeoutMilliseconds: timeoutMilliseconds, welcome: welcome)
        }
        return host
    }

    /// Performs the handshake on an already connected descriptor, which the host then owns and closes.
    /// A non-empty `token` makes this a spawned host (it ends with its only screen).
    public static func connect(
        descriptor: Int32, name: String, token: String = "", provides: [String] = [], timeoutMilliseconds: Int32 = Int32(WireProtocol.defaultReplyTimeoutMilliseconds)
    ) throws(ScreenKitError) -> ScreenHost {
        try handshake(
            Handshake.hello(name: name, token: token, provides: provides), on: UnixSocket(descriptor: descriptor),
            isSpawned: !token.isEmpty, timeoutMilliseconds: timeoutMilliseconds
        ).host
    }

    /// Connects a screen process the daemon spawned: the inherited socket named by
    /// `FLOWD_SOCKET_FD` and the one-time token `FLOWD_TOKEN` (docs/protocol.md §15).
    /// Throws `.environment` if either is missing or malformed, or the descriptor is not a
    /// connected stream socket. `name` defaults to the process name.
    public static func fromEnvironment(
        name: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeoutMilliseconds: Int32 = Int32(WireProtocol.defaultReplyTimeoutMilliseconds)
    ) throws(ScreenKitError) -> ScreenHost {
        let fdVariable = WireProtocol.socketFDEnvironmentVariable
        let tokenVariable = WireProtocol.tokenEnvironmentVariable
        guard let fdText = environment[fdVariable], !fdText.isEmpty else {
            throw ScreenKitError(
                .environment,
                "\(fdVariable) is not set: this process was not spawned by flowd; run it from the daemon's factory, "
                    + "or use ScreenHost.connect(path:name:provides:) to connect to a running flowd", isFatal: true)
        }
        guard let descriptor = Int32(fdText.trimmingWhitespace), descriptor >= 0 else {
            throw ScreenKitError(
                .environment, "\(fdVariable)=\"\(fdText)\" is not a file descriptor number; expected e.g. 3",
                isFatal: true)
        }
        guard let token = environment[tokenVariable], !token.isEmpty else {
            throw ScreenKitError(
                .environment,
                "\(tokenVariable) is not set, but \(fdVariable) is: flowd passes both to the screens it spawns; "
                    + "check how this process was started", isFatal: true)
        }
        try checkStreamSocket(descriptor, variable: fdVariable)
        // Children of the screen process must not inherit the daemon's socket.
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        let hello = Handshake.hello(name: name ?? ProcessInfo.processInfo.processName, token: token, provides: [])
        return try handshake(
            hello, on: UnixSocket(descriptor: descriptor), isSpawned: true, timeoutMilliseconds: timeoutMilliseconds
        ).host
    }

    /// True if `environment` names an inherited flowd socket, i.e. `fromEnvironment` applies.
    public static func isSpawned(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        !(environment[WireProtocol.socketFDEnvironmentVariable] ?? "").isEmpty
    }

    private static func checkStreamSocket(_ descriptor: Int32, variable: String) throws(ScreenKitError) {
        guard fcntl(descriptor, F_GETFD) != -1 else {
            throw ScreenKitError(
                .environment,
                "\(variable)=\(descriptor) names no open file descriptor (\(String(cString: strerror(errno)))); "
                    + "the descriptor was not inherited, or was closed before ScreenKit started", isFatal: true)
        }
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            throw ScreenKitError(
                .environment, "\(variable)=\(descriptor) is not a socket; flowd hands over a connected Unix stream socket",
                isFatal: true)
        }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            throw ScreenKitError(
                .environment, "\(variable)=\(descriptor) is a socket of type \(type), not a stream socket", isFatal: true)
        }
    }

    /// Sends `Hello` and waits for `Welcome`; frames after it stay buffered for `run()`.
    private static func handshake(
        _ hello: Flowd_V1_Hello, on socket: UnixSocket, isSpawned: Bool, timeoutMilliseconds: Int32
    ) throws(ScreenKitError) -> (host: ScreenHost, welcome: Flowd_V1_Welcome) {
        let (welcome, decoder) = try Handshake.perform(hello, on: socket, timeoutMilliseconds: timeoutMilliseconds)
        let host = ScreenHost(socket: socket, decoder: decoder, welcome: welcome, name: hello.name, isSpawned: isSpawned)
        return (host, welcome)
    }
}

private extension StringProtocol {
    /// Without the white space at either end as `CharacterSet.whitespaces` has it (Unicode's space
    /// separators, Zs, and the tab), trimmed scalar by scalar as `trimmingCharacters(in:)` did,
    /// without linking full Foundation (and ICU's data) into a static screen host.
    var trimmingWhitespace: String {
        let isWhitespace: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }), let last = scalars.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}
