import FlowdTestSupport
import FlowSocket
import FlowWire
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A man in the middle between screen hosts and flowd, listening on its own path: it passes
/// every frame through unchanged until `cutBefore` says so for a frame flowd sends. Then it
/// cuts that connection there, like a network that drops: that frame and everything after it
/// are lost; flowd sees end of stream first, then the host. A host that connects again (to the
/// proxy's path) gets a new connection to flowd. Everything runs on one thread of the proxy.
final class CuttingProxy: @unchecked Sendable {
    // @unchecked: `cutCount` and `running` are only touched under `lock`; the rest is set in init
    // or only touched on the proxy's thread.

    /// What the proxy knows when a frame from flowd arrives.
    struct Moment {
        /// The frame flowd sent.
        var frame: Flowd_V1_Envelope
        /// True while the host waits for the Pong to a `Ping` of its own (ScreenKit's barrier):
        /// it then sends only acks and pongs, so a cut cannot lose one of its outputs.
        var hostAwaitsPong: Bool
    }

    let path: String
    private let daemonPath: String
    private let cutBefore: @Sendable (Moment) -> Bool
    private let listener: Int32
    private let lock = NSLock()
    private var cutCount = 0
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `<directory>/proxy.sock` and forwards to flowd at `daemonPath`.
    init(daemonPath: String, directory: String, cutBefore: @escaping @Sendable (Moment) -> Bool) throws {
        self.path = directory + "/proxy.sock"
        self.daemonPath = daemonPath
        self.cutBefore = cutBefore
        listener = try listenOnUnixSocket(path: path)
        Thread { [self] in serve() }.start()
    }

    deinit { stop() }

    /// How many connections were cut so far.
    var cuts: Int { lock.withLock { cutCount } }

    /// Stops forwarding and closes every connection (waits for the thread, 5 s at most).
    func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        if wasRunning { _ = finished.wait(timeout: .now() + 5) }
    }

    // MARK: The proxy's thread

    /// One host's connection and the proxy's own connection to flowd for it.
    private final class Link {
        let host: UnixSocket
        let daemon: UnixSocket
        var fromHost = FrameSplitter()
        var fromDaemon = FrameSplitter()
        /// Nonces of the host's Pings that flowd has not answered yet.
        var hostPings: Set<UInt64> = []

        init(host: UnixSocket, daemon: UnixSocket) {
            self.host = host
            self.daemon = daemon
        }

        /// flowd first, so that it sees the end before the host can come back.
        func close() {
            daemon.close()
            host.close()
        }
    }

    private func serve() {
        var links: [Link] = []
        defer {
            for link in links { link.close() }
            _ = Glibc.close(listener)
            unlink(path)
            finished.signal()
        }
        while lock.withLock({ running }) {
            var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for link in links {
                descriptors.append(pollfd(fd: link.host.descriptor, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: link.daemon.descriptor, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else { continue }
            for (index, link) in links.enumerated() {
                let open = (descriptors[1 + 2 * index].revents == 0 || forwardFromHost(link))
                    && (descriptors[2 + 2 * index].revents == 0 || forwardFromDaemon(link))
                if !open { link.close() }
            }
            links.removeAll { $0.host.descriptor < 0 || $0.daemon.descriptor < 0 }
            if descriptors[0].revents != 0, let link = accept() { links.append(link) }
        }
    }

    private func accept() -> Link? {
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { return nil }
        let host = UnixSocket(descriptor: descriptor)
        guard let daemon = try? UnixSocket.connect(path: daemonPath) else { return nil }  // flowd gone: the host sees the end
        return Link(host: host, daemon: daemon)
    }

    /// Passes what the host sent on at once, noting its Pings; false once either side is gone.
    private func forwardFromHost(_ link: Link) -> Bool {
        guard let bytes = try? link.host.read(timeoutMilliseconds: 0), !bytes.isEmpty else { return false }
        guard (try? link.daemon.write(bytes)) != nil else { return false }
        link.fromHost.append(bytes)
        while let frame = link.fromHost.next() {
            if case .ping(let ping) = frame.envelope?.body { link.hostPings.insert(ping.nonce) }
        }
        return true
    }

    /// Passes flowd's frames on one at a time, cutting before the one `cutBefore` chooses.
    private func forwardFromDaemon(_ link: Link) -> Bool {
        guard let bytes = try? link.daemon.read(timeoutMilliseconds: 0), !bytes.isEmpty else { return false }
        link.fromDaemon.append(bytes)
        while let frame = link.fromDaemon.next() {
            guard let envelope = frame.envelope else { return false }
            if cutBefore(Moment(frame: envelope, hostAwaitsPong: !link.hostPings.isEmpty)) {
                lock.withLock { cutCount += 1 }
                return false
            }
            guard (try? link.host.write(frame.bytes)) != nil else { return false }
            if case .pong(let pong) = envelope.body { link.hostPings.remove(pong.nonce) }
        }
        return true
    }
}

/// Whole frames out of a byte stream, as they were on the wire (length prefix included).
struct FrameSplitter {
    struct Frame {
        var bytes: [UInt8]

        /// The envelope, nil if it does not decode.
        var envelope: Flowd_V1_Envelope? {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            return try? decoder.nextEnvelope()
        }
    }

    private var buffer: [UInt8] = []

    mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// The next whole frame, if one is buffered.
    mutating func next() -> Frame? {
        guard buffer.count >= 4 else { return nil }
        let length = Int(buffer[0]) | Int(buffer[1]) << 8 | Int(buffer[2]) << 16 | Int(buffer[3]) << 24
        guard buffer.count >= 4 + length else { return nil }
        defer { buffer.removeFirst(4 + length) }
        return Frame(bytes: Array(buffer[..<(4 + length)]))
    }
}
