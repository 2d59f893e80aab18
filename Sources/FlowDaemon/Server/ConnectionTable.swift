import FlowKit
import FlowWire
import Logging

/// The daemon's connections as one part: each by id, the write scheduler (one write per connection
/// per loop iteration), the turns and their budgets (`framesPerTurn`, `inputsPerTurn`) with the
/// connections waiting for their next turn, and the connections' three deadlines — the handshake,
/// a frame begun and not finished, and a graceful close that does not drain. Events in (`add`,
/// `nextFrame`, `closeGracefully`, `expire(now:)`), what to do out; it does no I/O but the pipes'
/// reading switch, and it never calls into the daemon.
struct ConnectionTable {
    /// What the daemon was configured with that concerns its connections.
    struct Limits {
        var maxFrameSize: Int
        var framesPerTurn: Int
        var inputsPerTurn: Int
        /// Milliseconds a frame may stay unfinished after the handshake (0: forever).
        var frameTimeout: UInt64
        /// Unread bytes beyond which a peer that stopped reading is cut off.
        var writeQueueLimit: Int
        /// Connections held at most (`DaemonConfiguration.maxConnections`).
        var maxConnections = Int.max
        /// Slots screen hosts may not take (`DaemonConfiguration.debugConnectionReserve`).
        var debugReserve = 0
        /// Connections of one peer process on the named socket at most.
        var perProcess = Int.max
        /// Bytes of unfinished frames all connections may hold together.
        var partialFrameBudget = Int.max
    }

    /// A deadline that passed, for the driver to act on.
    enum Timeout {
        /// The connection broke a deadline (no `Hello` in time, a frame begun and left unfinished):
        /// it is closed with the violation, after the notice is told.
        case reject(Connection, ConnectionStateMachine.Violation, Notice?)
        /// A graceful close did not drain within the shutdown grace: close it now.
        case forceClose(Connection)
    }

    /// A connection id as a table key, hashed like the runtime's ids (`mixedIDHash`) rather than with
    /// SipHash: every command sent looks its host up here (~0.1 k instructions per output with
    /// SipHash). The ids are this table's own counter, so no peer chooses them to collide.
    private struct Key: Hashable {
        let raw: UInt64
        init(_ raw: UInt64) { self.raw = raw }
        func hash(into hasher: inout Hasher) { hasher.combine(raw) }
        func _rawHashValue(seed: Int) -> Int { mixedIDHash(raw, seed: seed) }
    }

    let limits: Limits
    /// Where refusals and frames over a limit are logged, bounded by `throttle`.
    let logger: Logger
    let throttle: LogThrottle
    private var byID: [Key: Connection] = [:]
    private var lastID: UInt64 = 0
    /// Connections with frames in their outbox.
    private var writes = WriteScheduler()
    /// Connections with complete frames waiting for their next turn, in the order they began waiting.
    private var backlogged: [Connection] = []
    /// The current turn: one per loop iteration (`endTurn`). A connection's budget is per turn.
    private var turn: UInt64 = 1
    private var handshakeDeadlines: DeadlineQueue<UInt64>
    private var closeDeadlines: DeadlineQueue<UInt64>
    private var frameDeadlines: DeadlineQueue<UInt64>
    /// How many connections each peer process holds (those flowd did not spawn), for the limit of
    /// one process. Counted by scanning every connection at each accept (with the debug reserve's
    /// count, below), 10,000 clients took 2.5–2.8 s to connect, 0.75–0.94 s without the scans
    /// (`flowbench idle-connections`).
    private var connectionsByProcess: [Int32: Int] = [:]

    init(limits: Limits, handshakeTimeout: UInt64, closeGrace: UInt64, logger: Logger, throttle: LogThrottle) {
        self.limits = limits
        self.logger = logger
        self.throttle = throttle
        handshakeDeadlines = DeadlineQueue(timeout: handshakeTimeout)
        closeDeadlines = DeadlineQueue(timeout: closeGrace)
        frameDeadlines = DeadlineQueue(timeout: limits.frameTimeout)
    }

    // MARK: Membership

    /// Takes a connected pipe: a new connection whose handshake deadline runs from `now`.
    mutating func add(_ pipe: any ConnectionPipe, origin: ConnectionStateMachine.Origin, peerPID: Int32, now: UInt64) -> Connection {
        lastID += 1
        let connection = Connection(id: lastID, pipe: pipe, origin: origin, peerPID: peerPID, maxFrameSize: limits.maxFrameSize)
        byID[Key(connection.id)] = connection
        handshakeDeadlines.add(connection.id, now: now)
        if Self.countsForItsProcess(connection) { connectionsByProcess[peerPID, default: 0] += 1 }
        return connection
    }

    /// Whether `connection` counts toward its process's limit: a peer flowd did not spawn, whose process is known.
    private static func countsForItsProcess(_ connection: Connection) -> Bool {
        connection.peerPID > 0 && !connection.protocolState.origin.isSpawned
    }

    /// `connection`'s handshake agreed: its frames are bounded by the agreed size from now on.
    func agreed(_ agreement: ConnectionStateMachine.Agreement, on connection: Connection) {
        connection.maxFrameSize = agreement.maxFrameSize
    }

    /// The process on connection `id` is `pid` (a spawned screen: known once it started).
    /// A spawned screen's connection does not count toward its process's limit, so the count stays.
    func setPeerPID(_ pid: Int32, of id: UInt64) {
        guard let connection = self[id] else { return }
        precondition(connection.protocolState.origin.isSpawned, "only a spawned screen's process is learnt after its connection")
        connection.peerPID = pid
    }

    private mutating func uncount(_ pid: Int32) {
        guard let held = connectionsByProcess[pid] else { return }
        connectionsByProcess[pid] = held > 1 ? held - 1 : nil
    }

    /// Bytes arrived from `connection`'s peer at `now`: buffered for decoding.
    @inline(__always)
    func received(_ bytes: UnsafeRawBufferPointer, on connection: Connection, now: UInt64) {
        connection.lastHeard = now
        connection.received(bytes)
    }

    /// `connection` handled an input to the flows in this turn (bounded by `inputsPerTurn`).
    @inline(__always)
    func countInput(on connection: Connection) {
        connection.inputsThisTurn += 1
    }

    /// `connection` said goodbye or broke the protocol: its screens are not held for it.
    func leavesForGood(_ connection: Connection) {
        connection.mayResume = false
    }

    /// The table of a daemon started with `configuration`.
    init(configuration: DaemonConfiguration, logger: Logger, throttle: LogThrottle) {
        self.init(
            limits: .init(maxFrameSize: configuration.maxFrameSize, framesPerTurn: configuration.framesPerTurn,
                          inputsPerTurn: configuration.inputsPerTurn, frameTimeout: configuration.frameTimeoutMilliseconds,
                          writeQueueLimit: configuration.writeQueueLimit, maxConnections: configuration.maxConnections,
                          debugReserve: min(configuration.debugConnectionReserve, configuration.maxConnections / 2),
                          perProcess: configuration.effectiveMaxConnectionsPerProcess,
                          partialFrameBudget: configuration.partialFrameBudget),
            handshakeTimeout: configuration.handshakeTimeoutMilliseconds, closeGrace: configuration.shutdownGraceMilliseconds,
            logger: logger, throttle: throttle)
    }

    /// A closed connection leaves.
    mutating func remove(_ id: UInt64) {
        if let gone = byID.removeValue(forKey: Key(id)) {
            partialBytes -= gone.partialBytesCounted
            gone.partialBytesCounted = 0
            if Self.countsForItsProcess(gone) { uncount(gone.peerPID) }
        }
    }

    // MARK: Limits

    /// Why `connection`, a peer of the named socket just added, is refused (nil: it may stay): the
    /// daemon holds its connection limit, or its process holds the limit of one process.
    func admissionRefusal(of connection: Connection) -> ConnectionStateMachine.Violation? {
        // The limit of one process first: a process flooding flowd is told that it is the cause, also
        // when its refused connections, still closing, fill the daemon's limit too (they count until
        // closed: they hold descriptors).
        let pid = connection.peerPID
        if pid > 0, limits.perProcess < limits.maxConnections {
            let same = connectionsByProcess[pid] ?? 0
            if same > limits.perProcess {
                return .init(code: .limitExceeded, message: """
                    process \(pid) holds \(same - 1) connections to flowd, the limit for one process \
                    (--max-connections-per-process \(limits.perProcess)); closing this one. Close the ones it does not use
                    """)
            }
        }
        guard count > limits.maxConnections else { return nil }
        return .init(code: .limitExceeded, message: """
            flowd holds \(count - 1) connections, its limit (--max-connections \(limits.maxConnections)); closing this \
            one. Try again once clients leave
            """)
    }

    /// Why `connection` may not become a screen host (nil: it may): the hosts would take the slots kept
    /// for debug clients. A screen flowd spawned is never refused (flowd chose to start it).
    func hostRefusal(of connection: Connection) -> ConnectionStateMachine.Violation? {
        guard !connection.protocolState.origin.isSpawned, limits.debugReserve > 0 else { return nil }
        let hostSlots = limits.maxConnections - limits.debugReserve
        // The others cannot fill the slots when there are fewer of them: the count below, a scan of
        // every connection, runs only near the limit (at every handshake it made connecting 10,000
        // clients quadratic, with the per-process scan 2.5–2.8 s against 0.75–0.94 s).
        guard byID.count - 1 >= hostSlots else { return nil }
        let hosts = byID.values.count { $0 !== connection && !$0.isClosing && $0.protocolState.isScreenHost }
        guard hosts >= hostSlots else { return nil }
        return .init(code: .limitExceeded, message: """
            flowd holds \(hosts) screen hosts, all the slots hosts may take (--max-connections \(limits.maxConnections) \
            less \(limits.debugReserve) kept for debug clients); closing this one. Try again once hosts leave
            """)
    }

    /// Bytes of unfinished frames every connection holds, together.
    private(set) var partialBytes = 0

    /// Counts what `connection` holds of frames not finished after a read. Returns a violation when
    /// the total passes the budget: that connection, the one that crossed it, is closed.
    mutating func countPartialFrame(of connection: Connection) -> ConnectionStateMachine.Violation? {
        let held = connection.bufferedByteCount
        partialBytes += held - connection.partialBytesCounted
        connection.partialBytesCounted = held
        guard partialBytes > limits.partialFrameBudget else { return nil }
        return .init(code: .limitExceeded, message: """
            unfinished frames of all connections hold \(partialBytes) bytes, over flowd's budget of \
            \(limits.partialFrameBudget) (--partial-frame-budget); this connection's \(held) bytes are refused. Send frames whole, \
            or smaller ones
            """)
    }

    /// The connection with this id, closing ones included.
    subscript(id: UInt64) -> Connection? { byID[Key(id)] }

    /// Connections held, closing ones included.
    var count: Int { byID.count }

    /// Every connection, by id.
    var all: [Connection] { byID.values.sorted { $0.id < $1.id } }

    /// Ids of every connection, in order.
    var ids: [UInt64] { byID.keys.map(\.raw).sorted() }

    // MARK: Reading, in turns

    /// The next complete frame of `connection` this turn, or `HotFrame.noFrame`: none complete, the connection is
    /// closing, or its budget for the turn is spent — then reading stops (the kernel pushes back on
    /// the sender) and it waits for its next turn with what it has; nothing is dropped or reordered.
    /// Throws what the decoder found wrong. An output is written into `output`.
    mutating func nextFrame(of connection: Connection, output: inout HostOutput) throws(FrameError) -> HotFrame {
        if connection.turn != turn {
            connection.turn = turn
            connection.framesThisTurn = 0
            connection.inputsThisTurn = 0
        }
        guard !connection.isClosing else { return .noFrame }
        if connection.framesThisTurn >= limits.framesPerTurn || connection.inputsThisTurn >= limits.inputsPerTurn {
            if connection.bufferedByteCount > 0 { backlog(connection) }
            return .noFrame
        }
        // Nothing buffered, no frame: the decoder is not lent out to say so (~0.1 k instructions
        // per relay output, callgrind).
        guard connection.bufferedByteCount > 0 else { return .noFrame }
        let frame = try connection.decodeNextFrame(output: &output)
        if frame.isFrame { connection.framesThisTurn += 1 }
        return frame
    }

    /// The frames of `connection` were read as far as its budget allowed: reading goes on unless it
    /// waits for its next turn.
    func drained(_ connection: Connection) {
        if !connection.isBacklogged { connection.pipe.resumeReading() }
    }

    private mutating func backlog(_ connection: Connection) {
        connection.pipe.stopReading()
        guard !connection.isBacklogged else { return }
        connection.isBacklogged = true
        backlogged.append(connection)
    }

    /// Whether connections wait for their next turn.
    var hasBacklog: Bool { !backlogged.isEmpty }

    /// The connections whose turn comes now, in the order they began waiting (each is given its turn
    /// by the driver; one whose budget is still spent waits again, in its place).
    mutating func takeBacklog() -> [Connection] {
        guard !backlogged.isEmpty else { return [] }
        defer { backlogged.removeAll(keepingCapacity: true) }
        for connection in backlogged { connection.isBacklogged = false }
        return backlogged.filter { !$0.isClosing }
    }

    /// The loop iteration ended: every connection has its budget again.
    mutating func endTurn() { turn &+= 1 }

    /// A peer that stops in the middle of a frame would hold its connection forever: once past the
    /// handshake (whose own deadline covers it before), a partial frame starts the frame timeout.
    mutating func watchForStalledFrame(_ connection: Connection, now: UInt64) {
        // Once per read: the common case (no partial frame) first, and the handshake's state read in
        // place (`agreement != nil` copied the agreement out, ~0.2 k instructions per relay output).
        guard connection.bufferedByteCount > 0, limits.frameTimeout > 0, !connection.awaitsFrameEnd, !connection.isClosing,
              !connection.isBacklogged, connection.protocolState.isEstablished else { return }
        connection.awaitsFrameEnd = true
        frameDeadlines.add(connection.id, now: now)
    }

    // MARK: Writing and closing

    /// Notes that `connection` has frames to write this iteration.
    mutating func markDirty(_ connection: Connection) { writes.mark(connection) }

    /// Whether nothing waits to be written.
    var hasNothingToWrite: Bool { writes.isEmpty }

    /// The connections to write, taken out (the driver writes them after this access ended: a write
    /// failure reported from inside a pipe's write may queue more).
    mutating func takeDirty() -> [Connection] { writes.takeDirty() }

    /// Keeps a flushed batch's storage for the next `takeDirty`.
    mutating func giveBack(_ batch: inout [Connection]) { writes.giveBack(&batch) }

    /// Starts closing `connection` gracefully (flush, half-close, close); it is force-closed if it
    /// has not drained after the shutdown grace.
    mutating func closeGracefully(_ connection: Connection, now: UInt64) {
        guard !connection.isClosing else { return }
        connection.close(graceful: true)
        closeDeadlines.add(connection.id, now: now)
    }

    // MARK: Deadlines

    /// The earliest of the connections' deadlines.
    var nextDeadline: UInt64? {
        // In place (`mutating`): a plain getter was passed a copy of the table (a `memcpy` per iteration).
        mutating get {
            var next = handshakeDeadlines.next
            if let frame = frameDeadlines.next, next.map({ frame < $0 }) ?? true { next = frame }
            if let close = closeDeadlines.next, next.map({ close < $0 }) ?? true { next = close }
            return next
        }
    }

    /// The deadlines that passed at `now`: handshakes not done, frames stalled, closes not drained.
    mutating func expire(now: UInt64) -> [Timeout] {
        var timeouts: [Timeout] = []
        for id in handshakeDeadlines.expired(now: now) {
            guard let connection = byID[Key(id)], !connection.isClosing,
                  case .reject(let violation)? = connection.protocolState.handshakeTimedOut(afterMilliseconds: handshakeDeadlines.timeout)
            else { continue }
            timeouts.append(.reject(connection, violation, nil))
        }
        for id in frameDeadlines.expired(now: now) {
            guard let connection = byID[Key(id)] else { continue }
            connection.awaitsFrameEnd = false
            guard !connection.isClosing, !connection.isBacklogged, connection.bufferedByteCount > 0 else { continue }
            let silent = now - min(now, connection.lastHeard)
            guard silent >= limits.frameTimeout else {
                watchForStalledFrame(connection, now: now)
                continue
            }
            let buffered = connection.bufferedByteCount
            timeouts.append(.reject(connection, .init(code: .frameTimeout, message: """
                a frame was begun (\(buffered) bytes of it arrived) and nothing more came for \(silent) ms \
                (frame timeout \(limits.frameTimeout) ms); closing
                """), Notice(.warning, "peer stopped in the middle of a frame; closing", ["connection": "\(connection.label)", "buffered": "\(buffered)"])))
        }
        for id in closeDeadlines.expired(now: now) {
            if let connection = byID[Key(id)] { timeouts.append(.forceClose(connection)) }
        }
        return timeouts
    }

    /// The daemon stopped: nothing is left to time out.
    mutating func dropDeadlines() {
        handshakeDeadlines = DeadlineQueue(timeout: handshakeDeadlines.timeout)
        closeDeadlines = DeadlineQueue(timeout: closeDeadlines.timeout)
        frameDeadlines = DeadlineQueue(timeout: frameDeadlines.timeout)
    }
}
