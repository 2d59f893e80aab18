import FlowSocket
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// The client side of the handshake (docs/protocol.md §4): connect to the named socket,
/// say `Hello`, read `Welcome`. Used for the first connection and for every reconnection.
enum Handshake {
    /// Connects to the named socket, or explains what to check. A socket another user serves is
    /// refused before anything is sent (`.untrustedServer`).
    static func connect(path: String) throws(ScreenKitError) -> UnixSocket {
        do {
            return try UnixSocket.connect(path: path)
        } catch {
            if error.untrustedServer != nil { throw ScreenKitError(.untrustedServer, "\(error)", isFatal: true) }
            let hint =
                error.isNoListener
                ? "; is flowd running? start one with `flowd --socket \(path)`" : "; check the path and its permissions"
            throw ScreenKitError(.connect, "cannot connect to flowd at \(path): \(error)\(hint)", isFatal: true)
        }
    }

    /// The `Hello` of a screen host. `token`: a spawned host's one-time token; `resumeToken`:
    /// the token of the latest `Welcome`, to resume after a drop (§19).
    static func hello(name: String, token: String, provides: [String], resumeToken: String = "") -> Flowd_V1_Hello {
        var hello = Flowd_V1_Hello()
        hello.minVersion = WireProtocol.supportedVersions.lowerBound
        hello.maxVersion = WireProtocol.supportedVersions.upperBound
        hello.role = .screenHost
        hello.token = token
        hello.name = name
        hello.provides = provides
        hello.pid = getpid()
        hello.resumeToken = resumeToken
        return hello
    }

    /// Sends `hello` (seq 1) and waits for `Welcome`; frames after it stay in the returned decoder.
    /// A daemon `Error` instead is thrown as it is (`code == .daemon`).
    static func perform(
        _ hello: Flowd_V1_Hello, on socket: UnixSocket, timeoutMilliseconds: Int32
    ) throws(ScreenKitError) -> (Flowd_V1_Welcome, FrameDecoder) {
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
                    return (welcome, decoder)
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
