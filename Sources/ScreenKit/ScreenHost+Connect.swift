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
    public static func connect(
        path: String? = nil, name: String, provides: [String], timeoutMilliseconds: Int32 = 5_000
    ) throws(ScreenKitError) -> ScreenHost {
        let path = path ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid())
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connect(path: path)
        } catch {
            let hint =
                error.isNoListener
                ? "; is flowd running? start one with `flowd --socket \(path)`" : "; check the path and its permissions"
            throw ScreenKitError(.connect, "cannot connect to flowd at \(path): \(error)\(hint)", isFatal: true)
        }
        return try handshake(
            on: socket, name: name, token: "", provides: provides, isSpawned: false,
            timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Performs the handshake on an already connected descriptor, which the host then owns and closes.
    /// A non-empty `token` makes this a spawned host (it ends with its only screen).
    public static func connect(
        descriptor: Int32, name: String, token: String = "", provides: [String] = [], timeoutMilliseconds: Int32 = 5_000
    ) throws(ScreenKitError) -> ScreenHost {
        try handshake(
            on: UnixSocket(descriptor: descriptor), name: name, token: token, provides: provides,
            isSpawned: !token.isEmpty, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Connects a screen process the daemon spawned: the inherited socket named by
    /// `FLOWD_SOCKET_FD` and the one-time token `FLOWD_TOKEN` (docs/protocol.md §15).
    /// Throws `.environment` if either is missing or malformed, or the descriptor is not a
    /// connected stream socket. `name` defaults to the process name.
    public static func fromEnvironment(
        name: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeoutMilliseconds: Int32 = 5_000
    ) throws(ScreenKitError) -> ScreenHost {
        let fdVariable = WireProtocol.socketFDEnvironmentVariable
        let tokenVariable = WireProtocol.tokenEnvironmentVariable
        guard let fdText = environment[fdVariable], !fdText.isEmpty else {
            throw ScreenKitError(
                .environment,
                "\(fdVariable) is not set: this process was not spawned by flowd; run it from the daemon's factory, "
                    + "or use ScreenHost.connect(path:name:provides:) to connect to a running flowd", isFatal: true)
        }
        guard let descriptor = Int32(fdText.trimmingCharacters(in: .whitespaces)), descriptor >= 0 else {
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
        return try handshake(
            on: UnixSocket(descriptor: descriptor), name: name ?? ProcessInfo.processInfo.processName,
            token: token, provides: [], isSpawned: true, timeoutMilliseconds: timeoutMilliseconds)
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
        on socket: UnixSocket, name: String, token: String, provides: [String], isSpawned: Bool,
        timeoutMilliseconds: Int32
    ) throws(ScreenKitError) -> ScreenHost {
        var hello = Flowd_V1_Hello()
        hello.minVersion = WireProtocol.supportedVersions.lowerBound
        hello.maxVersion = WireProtocol.supportedVersions.upperBound
        hello.role = .screenHost
        hello.token = token
        hello.name = name
        hello.provides = provides
        hello.pid = getpid()
        do {
            try socket.write(FrameEncoder.encode(Flowd_V1_Envelope(.hello(hello), seq: 1)))
        } catch let error as SocketError {
            throw ScreenKitError.socket(error, doing: "sending Hello")
        } catch {
            throw ScreenKitError(.handshake, "cannot encode Hello: \(error)", isFatal: true)
        }
        var decoder = FrameDecoder()
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while true {
            let envelope: Flowd_V1_Envelope?
            do {
                envelope = try decoder.nextEnvelope()
            } catch {
                throw ScreenKitError(.protocolViolation, "flowd answered Hello with a bad frame: \(error)", isFatal: true)
            }
            if let envelope {
                switch envelope.body {
                case .welcome(let welcome):
                    return ScreenHost(
                        socket: socket, decoder: decoder, welcome: welcome, name: name, isSpawned: isSpawned, lastSeq: 1)
                case .error(let error):
                    throw ScreenKitError(daemon: error)
                case .shutdown(let shutdown):
                    throw ScreenKitError(
                        .handshake, "flowd shut the connection down during the handshake (\(shutdown.reason)): \(shutdown.message)",
                        isFatal: true)
                default:
                    throw ScreenKitError(
                        .handshake, "flowd answered Hello with \(envelope.bodyName) instead of Welcome", isFatal: true)
                }
            }
            let remaining = deadline - ContinuousClock.now
            let milliseconds = max(0, remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            let bytes: [UInt8]
            do {
                bytes = try socket.read(timeoutMilliseconds: Int32(milliseconds))
            } catch {
                if error.isTimeout {
                    throw ScreenKitError(
                        .handshake, "flowd did not answer Hello within \(timeoutMilliseconds) ms; is the peer a flowd?",
                        isFatal: true)
                }
                throw ScreenKitError.socket(error, doing: "waiting for Welcome")
            }
            if bytes.isEmpty {
                throw ScreenKitError(
                    .handshake, "flowd closed the connection before answering Hello; see the daemon's log", isFatal: true)
            }
            decoder.append(bytes)
        }
    }
}
