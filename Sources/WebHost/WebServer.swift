// Only with the package's Web trait (on by default): it needs Hummingbird and SwiftNIO (Package.swift).
#if Web
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import WebBridge

/// flowd-web's HTTP server: the screen page and the inspector page, their WebSockets, and
/// stopped recordings, all behind the `AccessPolicy` (docs/web.md). One `TabSession` per
/// screen page's socket, one `InspectorSession` per inspector's.
public struct WebServer: Sendable {
    /// Where and how to listen.
    public struct Options: Sendable {
        /// The address to listen on; 127.0.0.1 unless told otherwise.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// flowd's socket.
        public var socketPath: String
        /// The token; random unless given (tests may pin it).
        public var token: String
        /// The largest message a page may send, in bytes; a larger one closes its socket.
        public var maxMessageBytes: Int
        /// HTTPS and WSS with this certificate and key; nil: plain HTTP.
        public var tls: TLS?

        public init(host: String = "127.0.0.1", port: Int = 0, socketPath: String, token: String = AccessPolicy.randomToken(),
                    maxMessageBytes: Int = 64 * 1024, tls: TLS? = nil) {
            self.host = host
            self.port = port
            self.socketPath = socketPath
            self.token = token
            self.maxMessageBytes = maxMessageBytes
            self.tls = tls
        }
    }

    /// A certificate chain and its private key, PEM files (docs/web.md, "From another machine").
    public struct TLS: Sendable {
        public var certificatePath: String
        public var keyPath: String

        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }

        /// The server's TLS configuration, read from the files; throws what is wrong with them.
        public func configuration() throws(TLSFileError) -> TLSConfiguration {
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
            } catch {
                throw TLSFileError("cannot use the certificate \(certificatePath): \(Self.reason(error, path: certificatePath)); give a PEM file")
            }
            guard !chain.isEmpty else { throw TLSFileError("the certificate file \(certificatePath) holds no PEM certificate") }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            } catch {
                throw TLSFileError("cannot use the private key \(keyPath): \(Self.reason(error, path: keyPath)); give its PEM file")
            }
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            return configuration
        }

        private static func reason(_ error: any Error, path: String) -> String {
            FileManager.default.isReadableFile(atPath: path) ? "\(error)" : "no such file, or it is not readable"
        }
    }

    /// What is wrong with a certificate or key file.
    public struct TLSFileError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    let options: Options
    let logger: Logger
    let recordings: RecordingStore
    /// Where the tabs' hosts post the screens of windows on other displays, for the display tabs.
    let board = DisplayBoard()

    public init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
        recordings = RecordingStore { line in logger.notice("\(line)") }
    }

    /// Serves until the process ends (signals are the caller's: flowd-web exits on them); `ready`
    /// gets the bound port once listening.
    public func run(ready: @escaping @Sendable (Int) -> Void) async throws {
        let boundPort = PortBox()
        let router = Router()
        addPages(to: router, port: boundPort)
        let plain = HTTPServerBuilder.http1WebSocketUpgrade(
            configuration: .init(ws: .init(maxFrameSize: 1 << 20, validateUTF8: true))
        ) { request, _, _ in
            upgrade(request, port: boundPort.port)
        }
        let app = Application(
            router: router,
            server: try options.tls.map { try HTTPServerBuilder.tls(plain, tlsConfiguration: try $0.configuration()) } ?? plain,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "flowd-web"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                boundPort.port = port
                ready(port)
            },
            logger: logger
        )
        try await app.runService(gracefulShutdownSignals: [])
    }

    // MARK: Pages

    private func addPages(to router: Router<BasicRequestContext>, port: PortBox) {
        let policy: @Sendable () -> AccessPolicy = { [options] in
            AccessPolicy(token: options.token, host: options.host, port: port.port, secure: options.tls != nil)
        }
        let secure = options.tls != nil
        let check: @Sendable (Request) -> String? = { request in
            policy().refusal(token: request.uri.queryParameters.get("token"), host: request.head.authority, origin: nil)
        }
        // The pages hold no secret (their WebSockets present the token): served to any request that
        // names this server, so a bookmark or a copied address without the token opens them.
        router.get("/") { request, _ in
            if let refusal = policy().pageRefusal(host: request.head.authority) { return Self.refused(refusal) }
            return Self.html(Pages.screens, host: request.head.authority, secure: secure)
        }
        router.get("/inspector") { request, _ in
            if let refusal = policy().pageRefusal(host: request.head.authority) { return Self.refused(refusal) }
            return Self.html(Pages.inspector, host: request.head.authority, secure: secure)
        }
        // A moment of the history, drawn read-only by the screen page (the inspector links to it).
        router.get("/preview") { request, _ in
            if let refusal = policy().pageRefusal(host: request.head.authority) { return Self.refused(refusal) }
            return Self.html(Pages.screens, host: request.head.authority, secure: secure)
        }
        router.get("/recordings/{name}") { [recordings] request, context in
            if let refusal = check(request) { return Self.refused(refusal) }
            guard let name = context.parameters.get("name"), let bytes = recordings.file(name) else {
                return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "no such recording\n")))
            }
            var headers = HTTPFields()
            headers.append(.init(name: .contentType, value: "application/octet-stream"))
            headers.append(.init(name: .contentDisposition, value: "attachment; filename=\"\(name)\""))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        // A WebSocket request that `upgrade` refused lands here: say why, as plain HTTP.
        for path in ["/ws/screens", "/ws/inspector", "/ws/preview"] {
            router.get(RouterPath(stringLiteral: path)) { request, _ in
                let refusal = policy().refusal(
                    token: request.uri.queryParameters.get("token"), host: request.head.authority,
                    origin: Self.header("origin", in: request.headers))
                let why = path == "/ws/preview" && request.uri.queryParameters.get("moment").flatMap({ UInt64($0) }) == nil
                    ? "a preview names its moment (/ws/preview?moment=N); open it from the inspector's timeline"
                    : "this address is a WebSocket; open it from flowd-web's pages"
                return Self.refused(refusal ?? why, status: refusal == nil ? .badRequest : .forbidden)
            }
        }
    }

    /// A page, with the headers a local web UI holding a secret sends (docs/web.md, "Security"): its
    /// one inline script and style run by a nonce of this response, and nothing else does; it talks
    /// only to its own WebSocket (`host`, the address it was asked for, which the policy checked);
    /// no other site may frame it; no address it links to learns where it came from (the token).
    private static func html(_ page: String, host: String?, secure: Bool) -> Response {
        let nonce = AccessPolicy.randomToken()
        let text = page.replacingOccurrences(of: "<script>", with: "<script nonce=\"\(nonce)\">")
            .replacingOccurrences(of: "<style>", with: "<style nonce=\"\(nonce)\">")
        var headers = HTTPFields()
        headers.append(.init(name: .contentType, value: "text/html; charset=utf-8"))
        headers.append(.init(name: .cacheControl, value: "no-store"))
        headers.append(.init(name: .contentSecurityPolicy, value: contentSecurityPolicy(nonce: nonce, host: host, secure: secure)))
        headers.append(.init(name: .init("Referrer-Policy")!, value: "no-referrer"))
        headers.append(.init(name: .init("X-Content-Type-Options")!, value: "nosniff"))
        headers.append(.init(name: .init("X-Frame-Options")!, value: "DENY"))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The page's Content-Security-Policy: scripts and styles only by `nonce`, connections only to
    /// this server (and its WebSocket at `host`), no frames, forms, plugins or base URL.
    static func contentSecurityPolicy(nonce: String, host: String?, secure: Bool = false) -> String {
        let sockets = host.map { secure ? " wss://\($0)" : " ws://\($0)" } ?? ""
        return "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; img-src 'self' data:; "
            + "connect-src 'self'\(sockets); frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    }

    private static func refused(_ reason: String, status: HTTPResponse.Status = .forbidden) -> Response {
        var headers = HTTPFields()
        headers.append(.init(name: .contentType, value: "text/plain; charset=utf-8"))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "flowd-web: \(reason)\n")))
    }

    static func header(_ name: String, in fields: HTTPFields) -> String? {
        fields.first { $0.name.canonicalName == name }?.value
    }

    // MARK: WebSockets

    /// Upgrades a WebSocket request that passes the policy; others go on to the router, which says why not.
    private func upgrade(_ request: HTTPRequest, port: Int) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let components = URLComponents(string: "http://flowd-web" + (request.path ?? "/"))
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        let origin = Self.header("origin", in: request.headerFields)
        let policy = AccessPolicy(token: options.token, host: options.host, port: port, secure: options.tls != nil)
        if let refusal = policy.refusal(token: query["token"], host: request.authority, origin: origin) {
            logger.notice("refused a WebSocket", metadata: ["path": "\(components?.path ?? "")", "why": "\(refusal)"])
            return .dontUpgrade
        }
        switch components?.path {
        case "/ws/screens":
            // A display tab (`?display=customer`) shows the windows on that display; the main window's
            // tab (no display, or `main`) is a host of flowd's (docs/web.md, "Several windows").
            // The monitor's size in pixels, as the page measured it (0: not said).
            let (width, height) = (Self.pixels(query["width"]), Self.pixels(query["height"]))
            if let display = query["display"], !display.isEmpty, display != "main" {
                guard DisplaySession.problem(with: display) == nil else { return .dontUpgrade }
                return .upgrade([:]) { [board] inbound, outbound, _ in
                    await bridge(inbound, outbound) { send in
                        let session = DisplaySession(display: display, board: board, width: width, height: height, send: send)
                        return (session.start, session.receive, session.pageLeft)
                    }
                }
            }
            guard let kinds = Self.kinds(query["kinds"]) else { return .dontUpgrade }
            let tab = TabSession.Options(
                socketPath: options.socketPath, name: "flowd-web tab", kinds: kinds, resumeToken: query["resume"] ?? "",
                width: width, height: height)
            return .upgrade([:]) { [board] inbound, outbound, _ in
                await bridge(inbound, outbound) { send in
                    let session = TabSession(options: tab, board: board, send: send)
                    return (session.start, session.receive, session.pageLeft)
                }
            }
        case "/ws/inspector":
            return .upgrade([:]) { [recordings, token = options.token] inbound, outbound, _ in
                await bridge(inbound, outbound) { send in
                    let session = InspectorSession(socketPath: options.socketPath, send: send) { bytes throws(RecordingRefusal) in
                        "/recordings/\(try recordings.keep(bytes))?token=\(token)"
                    }
                    return (session.start, session.receive, session.pageLeft)
                }
            }
        case "/ws/preview":
            guard let moment = query["moment"].flatMap(UInt64.init) else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                await bridge(inbound, outbound) { send in
                    let session = PreviewSession(socketPath: options.socketPath, moment: moment, send: send)
                    return (session.start, session.receive, session.pageLeft)
                }
            }
        default:
            return .dontUpgrade
        }
    }

    /// A size the page gave (`width=1920`): 0 when absent or not a number from 0 to 65535.
    static func pixels(_ value: String?) -> Int {
        value.flatMap(Int.init).flatMap { (0...65535).contains($0) ? $0 : nil } ?? 0
    }

    /// The kinds a tab asked for (`kinds=a,b`), all when absent; nil if one is not a demo kind.
    static func kinds(_ list: String?) -> [String]? {
        guard let list, !list.isEmpty else { return TabSession.kinds }
        let asked = list.split(separator: ",").map(String.init)
        return asked.allSatisfy(TabSession.kinds.contains) ? asked : nil
    }

    /// Runs one page's socket: messages in go to the session (a bad one closes the socket with
    /// its reason), what the session says goes out, and the page leaving ends the session.
    private func bridge(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
        _ make: (@escaping @Sendable (String) -> Void) -> (start: () -> Void, receive: (String) throws(MessageError) -> Void, leave: () -> Void)
    ) async {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let session = make { continuation.yield($0) }
        session.start()
        let writer = Task {
            for await text in stream { try? await outbound.write(.text(text)) }
        }
        var closing: (Refusal, String)?
        do {
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else {
                    closing = (.binary, "binary messages are not accepted; send JSON text")
                    break
                }
                guard text.utf8.count <= options.maxMessageBytes else {
                    closing = (.tooLarge, "message of \(text.utf8.count) bytes is over the \(options.maxMessageBytes)-byte limit")
                    break
                }
                do {
                    try session.receive(text)
                } catch {
                    closing = (.malformed, error.reason)
                    break
                }
            }
        } catch {
            logger.debug("a page's WebSocket ended", metadata: ["error": "\(error)"])
        }
        session.leave()
        continuation.finish()
        await writer.value
        if let (refusal, reason) = closing {
            logger.notice("closed a page's WebSocket", metadata: ["why": "\(reason)"])
            let text = Self.closeReason(reason)
            switch refusal {
            case .binary: try? await outbound.close(.unacceptableData, reason: text)  // 1003
            case .tooLarge: try? await outbound.close(.messageTooLarge, reason: text)  // 1009
            case .malformed: try? await outbound.close(.dataInconsistentWithMessage, reason: text)  // 1007
            }
        }
    }

    /// Why a page's message closes its socket.
    private enum Refusal {
        case binary, tooLarge, malformed
    }

    /// A close frame's reason holds at most 123 bytes of UTF-8.
    static func closeReason(_ text: String) -> String {
        var reason = ""
        for character in text {
            guard reason.utf8.count + String(character).utf8.count <= 123 else { break }
            reason.append(character)
        }
        return reason
    }
}

/// The port the server bound, known once it listens (option 0 picks one).
final class PortBox: @unchecked Sendable {  // the lock guards `value`
    private let lock = NSLock()
    private var value = 0

    var port: Int {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
#endif
