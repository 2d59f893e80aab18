import FlowDaemon
import UVKit

/// A fake connected stream between the embedded daemon and a test: what the test feeds comes out as
/// the daemon's reads, what the daemon writes waits for the test to read. `peerReads = false` makes
/// written bytes pile up in `writeQueueSize`, like a peer that stopped reading.
final class EmbeddedPipe: ConnectionPipe {
    private unowned let loop: EmbeddedLoop
    private var onData: ((UnsafeRawBufferPointer) -> Void)?
    private var onEnd: ((UVError?) -> Void)?
    private var isReading = false
    /// Bytes the peer sent that the daemon has not read yet (it stopped reading).
    private var inbound: [UInt8] = []
    private var peerHungUp = false
    private var endDelivered = false
    /// Bytes the daemon wrote that the peer has not taken yet.
    private(set) var written: [UInt8] = []
    /// Whether the peer reads (false: a stalled reader; a half-close waits until it reads again).
    var peerReads = true {
        didSet { if peerReads { loop.later { [weak self] in self?.completeShutdownIfDrained() } } }
    }
    private var pendingShutdown: ((UVError?) -> Void)?
    private(set) var isShutDown = false
    private(set) var isClosed = false

    init(loop: EmbeddedLoop) {
        self.loop = loop
        loop.openPipes += 1
    }

    // MARK: The daemon's side

    func startReading(onData: @escaping (UnsafeRawBufferPointer) -> Void, onEnd: @escaping (UVError?) -> Void) throws(UVError) {
        guard !endDelivered, !isClosed else { throw UVError(-107, function: "uv_read_start") }
        self.onData = onData
        self.onEnd = onEnd
        isReading = true
        deliver()
    }

    func stopReading() { isReading = false }

    func resumeReading() {
        guard !isClosed, !endDelivered, onData != nil else { return }
        isReading = true
        loop.later { [weak self] in self?.deliver() }
    }

    func write(_ bytes: [UInt8]) {
        guard !isClosed, !isShutDown else { return }
        written += bytes
    }

    var writeQueueSize: Int { peerReads || isClosed ? 0 : written.count }

    /// Completes once what was written has been taken, as `uv_shutdown` does once the write queue drained.
    func shutdown(_ completion: ((UVError?) -> Void)?) {
        guard !isClosed, !isShutDown else { return }
        isShutDown = true
        pendingShutdown = completion ?? { _ in }
        loop.later { [weak self] in self?.completeShutdownIfDrained() }
    }

    private func completeShutdownIfDrained() {
        guard writeQueueSize == 0, let completion = pendingShutdown else { return }
        pendingShutdown = nil
        completion(nil)
    }

    func close(_ done: (() -> Void)?) {
        guard !isClosed else { return }
        isClosed = true
        isReading = false
        loop.openPipes -= 1
        loop.later { done?() }
    }

    // MARK: The peer's side

    /// The peer sends bytes; the daemon reads them now if it reads.
    func feed(_ bytes: [UInt8]) {
        guard !peerHungUp, !isClosed else { return }
        inbound += bytes
        deliver()
    }

    /// The peer closes its end: the daemon reads end-of-stream.
    func hangUp() {
        peerHungUp = true
        deliver()
    }

    /// Takes what the daemon wrote.
    func take() -> [UInt8] {
        defer { written.removeAll() }
        return written
    }

    private func deliver() {
        guard isReading, !isClosed else { return }
        if !inbound.isEmpty {
            let bytes = inbound
            inbound.removeAll()
            bytes.withUnsafeBytes { onData?($0) }
        }
        if peerHungUp, isReading, !endDelivered, inbound.isEmpty {
            endDelivered = true
            let end = onEnd
            onData = nil
            onEnd = nil
            end?(nil)
        }
    }
}
