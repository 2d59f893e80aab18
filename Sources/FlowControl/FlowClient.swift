import FlowSocket
import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// A connected, handshaken client of flowd that sends requests and waits for
/// their answers. Used by flowctl; blocking, one request at a time.
public final class FlowClient {
    /// The socket this client talks on.
    public let socket: UnixSocket
    /// The daemon's answer to our Hello.
    public private(set) var welcome = Flowd_V1_Welcome()
    /// The socket path, for messages.
    public let path: String
    private var decoder = FrameDecoder()
    private var lastSeq: UInt64 = 0
    /// Frames received while waiting for something else (events, notices).
    private var pending: [Flowd_V1_Envelope] = []

    private init(socket: UnixSocket, path: String) {
        self.socket = socket
        self.path = path
    }

    /// How long a request waits for its answer unless told otherwise: the protocol's default
    /// (`WireProtocol.defaultReplyTimeoutMilliseconds`).
    public static let defaultTimeoutMilliseconds = Int32(WireProtocol.defaultReplyTimeoutMilliseconds)

    /// Connects to the daemon at `path` and performs the handshake, offering to accept frames of up to
    /// `maxFrameSize` bytes (0: the protocol's default; the daemon's own limit may be lower).
    public static func connect(
        path: String, role: Flowd_V1_Role, name: String, maxFrameSize: UInt32 = 0,
        timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds
    ) throws(ClientError) -> FlowClient {
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connect(path: path)
        } catch {
            if error.isNoListener { throw .noDaemon(path: path) }
            throw .socket(error)
        }
        let client = FlowClient(socket: socket, path: path)
        var hello = Flowd_V1_Hello()
        hello.minVersion = WireProtocol.supportedVersions.lowerBound
        hello.maxVersion = WireProtocol.supportedVersions.upperBound
        hello.role = role
        hello.name = name
        hello.pid = getpid()
        hello.maxFrameSize = maxFrameSize
        let reply: Flowd_V1_Envelope
        do {
            reply = try client.request(.hello(hello), timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            // flowd may refuse and close before it reads our Hello (at its connection limit, or
            // shutting down; or its accept failed): what it said before closing says why.
            switch error {
            case .socket(let failure) where failure.code == EPIPE || failure.code == ECONNRESET: throw client.whyClosed(failure)
            case .closed: throw ClientError.reset(nil)
            default: throw error
            }
        }
        guard case .welcome(let welcome) = reply.body else {
            throw .unexpected("expected Welcome, got \(reply.body?.name ?? "nothing")")
        }
        client.welcome = welcome
        client.decoder.maxFrameSize = Int(welcome.maxFrameSize)
        return client
    }

    /// Sends a frame and returns its seq.
    @discardableResult
    public func send(_ body: Flowd_V1_Envelope.OneOf_Body) throws(ClientError) -> UInt64 {
        lastSeq += 1
        var envelope = Flowd_V1_Envelope()
        envelope.seq = lastSeq
        envelope.body = body
        do {
            try socket.write(FrameEncoder.encode(envelope))
        } catch let error as SocketError {
            throw .socket(error)
        } catch {
            throw .unexpected("cannot encode \(body.name): \(error)")
        }
        return lastSeq
    }

    /// Sends a request and waits for the frame that answers it. A daemon
    /// `Error` in reply is thrown as `ClientError.daemon`.
    public func request(_ body: Flowd_V1_Envelope.OneOf_Body, timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_Envelope {
        let seq = try send(body)
        // Frames that are not the reply (events, ...) are kept for `receive`, in order, once the
        // reply is found; putting them back at once would make `receive` return them again.
        var aside: [Flowd_V1_Envelope] = []
        defer { pending.insert(contentsOf: aside, at: 0) }
        while true {
            let envelope = try receive(timeoutMilliseconds: timeoutMilliseconds)
            if envelope.replyTo == seq {
                if case .error(let error) = envelope.body { throw .daemon(error) }
                return envelope
            }
            if case .error(let error) = envelope.body, error.fatal { throw .daemon(error) }
            if case .shutdown(let shutdown) = envelope.body { throw .shutdown(shutdown) }
            aside.append(envelope)
        }
    }

    /// The next frame from the daemon (buffered ones first).
    public func receive(timeoutMilliseconds: Int32) throws(ClientError) -> Flowd_V1_Envelope {
        if !pending.isEmpty { return pending.removeFirst() }
        while true {
            do {
                if let envelope = try decoder.nextEnvelope() { return envelope }
            } catch {
                throw .unexpected("the daemon sent a bad frame: \(error)")
            }
            let bytes: [UInt8]
            do {
                bytes = try socket.read(timeoutMilliseconds: timeoutMilliseconds)
            } catch {
                if error.isTimeout { throw .timeout(milliseconds: timeoutMilliseconds) }
                throw .socket(error)
            }
            if bytes.isEmpty { throw .closed }
            decoder.append(bytes)
        }
    }

    /// Why the daemon closed the connection under a write that failed with `failure`: the fatal `Error`
    /// it sent before closing, if one is still to be read, else the reset itself, said plainly.
    private func whyClosed(_ failure: SocketError) -> ClientError {
        while true {
            guard let envelope = try? receive(timeoutMilliseconds: 1_000) else { return .reset(failure) }
            if case .error(let error) = envelope.body { return .daemon(error) }
            if case .shutdown(let shutdown) = envelope.body { return .shutdown(shutdown) }
        }
    }

    /// Says goodbye and closes.
    public func close() {
        _ = try? send(.shutdown(Flowd_V1_Shutdown()))
        socket.close()
    }
}

/// Why a flowd client request failed, worded for the person at the terminal.
public enum ClientError: Error, CustomStringConvertible {
    /// Nothing listens at the path.
    case noDaemon(path: String)
    case socket(SocketError)
    case timeout(milliseconds: Int32)
    /// The daemon closed the connection.
    case closed
    /// The daemon closed the connection before it answered its `Hello`, and said nothing (`failure`:
    /// the write or read that found it gone; nil: the end of the stream).
    case reset(SocketError?)
    /// The daemon answered with an `Error`.
    case daemon(Flowd_V1_Error)
    /// The daemon is shutting down.
    case shutdown(Flowd_V1_Shutdown)
    case unexpected(String)

    public var description: String {
        switch self {
        case .noDaemon(let path):
            Self.noDaemonAdvice(path)
        case .socket(let error):
            "\(error)"
        case .timeout(let ms):
            "flowd did not answer within \(ms) ms"
        case .closed:
            "flowd closed the connection"
        case .reset(let failure):
            "flowd closed the connection before answering\(failure.map { " (\($0.operation): \(String(cString: strerror($0.code))))" } ?? ""); "
                + "it may be at its connection limit or out of file descriptors: its log says why"
        case .daemon(let error):
            "flowd: \(error.message) (\(error.code))"
        case .shutdown(let shutdown):
            "flowd is shutting down: \(shutdown.message)"
        case .unexpected(let message):
            message
        }
    }

    /// What is at `path`, and what to do: start flowd there only when nothing else is.
    static func noDaemonAdvice(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return "no flowd at \(path): nothing is there; start one with `flowd --socket \(path)` or `scripts/demo`, or pass the socket it uses"
        }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK:
            return "no flowd at \(path): the socket file is there but nothing listens (a flowd that crashed?); start one, which reclaims it"
        case S_IFDIR:
            return "\(path) is a directory, not a socket; flowd's socket is a file in it, such as \(path.hasSuffix("/") ? path : path + "/")flowd.sock"
        default:
            return "\(path) is not a socket but a file; pass the socket flowd listens on (`flowd` logs it; by default $XDG_RUNTIME_DIR/flowd/flowd.sock)"
        }
    }
}
