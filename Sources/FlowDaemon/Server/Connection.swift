import FlowWire
import Foundation
import Logging
import UVKit

/// One client of the daemon: a pipe, its frame decoder, its protocol state and
/// the frames waiting to be written. Loop thread only.
///
/// Frames are appended to `outbox` and written once per loop iteration by the
/// daemon's flush (see `Daemon.flushDirtyConnections`), so a burst of replies
/// becomes one write.
///
/// Its bookkeeping fields (turns, counts, deadlines, `mayResume`, `peerPID`, `lastHeard`) are written
/// by `ConnectionTable` alone; the core reads them and asks the table for changes.
final class Connection {
    /// The daemon-wide id, as shown by `flowctl tree` and in `Welcome`.
    let id: UInt64
    let pipe: any ConnectionPipe
    var protocolState: ConnectionStateMachine
    /// The frame decoder and the outbox are lent out whole for each call that changes them
    /// (`received`, `nextFrame`, `queue`, `flush`): taken out of the field by a swap, changed as a
    /// local, swapped back. No access to the field spans a call, so the compiler proves every access
    /// exclusive and checks none at run time (a field changed in place by a call that may reach
    /// anything keeps a dynamic check on every access to it, reads included).
    private var decoderSlot: FrameDecoder?
    /// Encoded frames not yet handed to the pipe (lent out like the decoder).
    private var outbox: [UInt8] = []
    /// Whether this connection is in the daemon's flush list.
    var isDirty = false
    /// Whether reading is paused because complete frames wait for its next turn.
    var isBacklogged = false
    /// The daemon's turn (loop iteration) that `framesThisTurn` and `inputsThisTurn` count.
    var turn: UInt64 = 0
    /// Frames handled in `turn` (bounded by `DaemonConfiguration.framesPerTurn`).
    var framesThisTurn = 0
    /// Inputs to the flows handled in `turn` (bounded by `DaemonConfiguration.inputsPerTurn`).
    var inputsThisTurn = 0
    /// The seq of the last frame sent.
    var sentSeq: UInt64 = 0
    /// Peer process id (SO_PEERCRED, or the spawned child's pid).
    var peerPID: Int32
    /// Set once `close` began; no more frames are read or queued.
    private(set) var isClosing = false
    /// When bytes last arrived from the peer (the loop's clock): a peer that sends is not hung.
    var lastHeard: UInt64 = 0
    /// Whether a frame-timeout deadline is queued for a partial frame in `decoder`.
    var awaitsFrameEnd = false
    /// The bytes of this connection's unfinished frames `ConnectionTable.partialBytes` counts.
    var partialBytesCounted = 0
    /// Whether an attached host's screens are held for it to resume when this connection closes:
    /// false once it said goodbye or the daemon closed it for breaking the protocol.
    var mayResume = true
    /// Called once when the pipe is closed, to drop the connection from the daemon.
    var onClosed: ((Connection) -> Void)?

    init(id: UInt64, pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32, maxFrameSize: Int) {
        self.id = id
        self.pipe = pipe
        self.peerPID = peerPID
        self.protocolState = ConnectionStateMachine(
            origin: origin, supportedVersions: WireProtocol.supportedVersions, maxFrameSize: maxFrameSize)
        self.decoderSlot = FrameDecoder(maxFrameSize: maxFrameSize)
    }

    // MARK: Reading

    /// Runs `body` on the decoder, lent out of its field for the call.
    @inline(__always)
    private func withDecoder<R, E: Error>(_ body: (inout FrameDecoder) throws(E) -> R) throws(E) -> R {
        var lent: FrameDecoder?
        swap(&lent, &decoderSlot)
        defer {
            bufferedByteCount = lent?.bufferedByteCount ?? 0
            swap(&lent, &decoderSlot)
        }
        // Taken out just above; a nil here would mean a call that reached it while lent, a bug.
        return try body(&lent!)
    }

    /// Buffers bytes read from the peer.
    func received(_ bytes: UnsafeRawBufferPointer) { withDecoder { $0.append(bytes) } }

    /// The content type this peer's next outputs are expected in (`FrameDecoder.expectContentType`).
    func expectOutputs(in contentType: String) { withDecoder { $0.expectContentType(contentType) } }

    /// The next complete frame buffered, or `HotFrame.noFrame`; throws what the decoder found wrong.
    /// An output is written into `output`.
    func decodeNextFrame(output: inout HostOutput) throws(FrameError) -> HotFrame {
        try withDecoder { (decoder) throws(FrameError) in try decoder.nextHotFrame(output: &output) }
    }

    /// Bytes received and not decoded yet, noted as the decoder is handed back: read from the
    /// decoder's optional field, it copied the decoder out and destroyed the copy through the
    /// runtime's generic witnesses (~0.2 k instructions per relay output, callgrind).
    private(set) var bufferedByteCount = 0

    /// Whether part of a frame has arrived but not all of it.
    var isMidFrame: Bool { bufferedByteCount > 0 }

    /// The largest frame either side may send (the handshake may lower it).
    var maxFrameSize: Int {
        get { decoderSlot?.maxFrameSize ?? 0 }
        set { withDecoder { $0.maxFrameSize = newValue } }
    }

    /// The agreement of the handshake, once it is done.
    var agreement: ConnectionStateMachine.Agreement? {
        if case .established(let agreement) = protocolState.state { return agreement }
        return nil
    }

    /// A short description for logs: `#12 demo-screens pid 4242`.
    var label: String {
        // The name is the peer's own text: bounded, so that a log line does not quote a megabyte.
        let name = (agreement?.name ?? "").bounded(64)
        return "#\(id)\(name.isEmpty ? "" : " " + name) pid \(peerPID)"
    }

    /// Queues one frame; `replyTo` names the peer frame it answers.
    /// Returns false if the connection is closing, or if the frame could not be encoded: then nothing
    /// was queued, no seq was taken, and `refusal` says why (the caller answers it: `DaemonCore.send`).
    @discardableResult
    func queue(_ body: Flowd_V1_Envelope.OneOf_Body, replyTo: UInt64 = 0) -> Bool {
        guard !isClosing else { return false }
        sentSeq += 1
        let (seq, limit) = (sentSeq, maxFrameSize)
        return withOutbox { outbox in
            do throws(FrameError) {
                try FrameEncoder.append(body, seq: seq, replyTo: replyTo, to: &outbox, maxFrameSize: limit)
                return true
            } catch {
                refused(error)
                return false
            }
        }
    }

    /// Queues an `Update` frame from its fields (`FrameEncoder.appendUpdate`): false when closing or
    /// when it cannot be encoded (then as `queue`: nothing queued, no seq taken, `refusal` set).
    func queueUpdate(screenID: UInt64, serial: UInt64, contentType: String, state: Data) -> Bool {
        guard !isClosing else { return false }
        sentSeq += 1
        let (seq, limit) = (sentSeq, maxFrameSize)
        return withOutbox { outbox in
            do throws(FrameError) {
                try FrameEncoder.appendUpdate(screenID: screenID, serial: serial, contentType: contentType, state: state,
                                              seq: seq, to: &outbox, maxFrameSize: limit)
                return true
            } catch {
                refused(error)
                return false
            }
        }
    }

    /// Why the last frame this connection refused to queue could not be encoded (`.frameTooLarge`
    /// with its size and the limit, almost always); read by the caller right after a `queue` that
    /// returned false on an open connection.
    private(set) var refusal: FrameError?

    /// A frame was not queued: its seq is given back (the peer sees no gap) and the reason kept.
    /// Off the hot path: only an encoder's refusal comes here.
    @inline(never)
    private func refused(_ error: FrameError) {
        sentSeq -= 1
        refusal = error
    }

    /// Runs `body` on the outbox, lent out of its field for the call.
    @inline(__always)
    private func withOutbox<R>(_ body: (inout [UInt8]) -> R) -> R {
        var lent: [UInt8] = []
        swap(&lent, &outbox)
        defer { swap(&lent, &outbox) }
        return body(&lent)
    }

    /// Bytes this connection holds that the peer has not read yet.
    var pendingBytes: Int { outbox.count + pipe.writeQueueSize }

    /// Hands the outbox to the pipe (try-write first; libuv queues the rest).
    func flush() {
        guard !outbox.isEmpty else { return }
        let pipe = self.pipe
        withOutbox { outbox in
            pipe.write(outbox)
            outbox.removeAll(keepingCapacity: outbox.capacity <= 16 << 10)
        }
    }

    /// Closes the connection: flushes what is queued, lets the kernel send it,
    /// then closes the handle. `graceful` waits for the write side to drain.
    func close(graceful: Bool) {
        guard !isClosing else { return }
        isClosing = true
        pipe.stopReading()
        if graceful {
            flush()
            pipe.shutdown { [self] _ in closeHandle() }
        } else {
            closeHandle()
        }
    }

    /// Closes the handle now, even if a graceful close is under way (stalled peer).
    func forceClose() {
        isClosing = true
        closeHandle()
    }

    private var handleClosed = false

    private func closeHandle() {
        guard !handleClosed else { return }
        handleClosed = true
        pipe.close { [self] in
            onClosed?(self)
            onClosed = nil
        }
    }
}
