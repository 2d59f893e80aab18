import Foundation

/// The screen-delivery rules as a value: which host shows each screen, the serials of its commands,
/// the commands held until a host can take them, ack deadlines against an injected clock, and what a
/// lost host or a late ack does: a crashed spawned screen is restarted by its `RestartPolicy`, a
/// dropped attached host's screens are held for it to resume, and each is re-placed from the screen's
/// current state and placement (`Screen.current`) without the runtime hearing of it. Events go in
/// (`apply`, `hostJoined`, `ack`, `hostLost`, `processExited`, `resume`, `expire(now:)`); `Action`s
/// come out, and the caller applies them after the call returns: frames
/// to send, processes to spawn or retire, and inputs for the runtime (dismissals completed, screens
/// lost). The daemon, `flowd replay` and FlowKitTesting's fake screens all use this one
/// implementation; only what they do with the actions differs. Hosts are named by a number (the
/// daemon's connection id).
public struct ScreenDelivery: Sendable {
    /// Where one screen is in its delivery.
    public enum Phase: Hashable, Sendable {
        /// Its kind is hosted by attached hosts and none is connected: commands are held.
        case waitingForHost
        /// A process is being spawned for it (no host yet): commands are held.
        case spawning
        /// On a host that has not finished its handshake (a spawned one): commands are held.
        case waitingForHandshake(host: UInt64)
        /// On a host that takes its commands.
        case live(host: UInt64)
        /// Its `Dismiss` was sent; it completes on the ack, the ack deadline or the host's loss.
        case dismissing(host: UInt64)
        /// Its spawned process went away (connection closed, or exited): commands are held until the
        /// rest of the news (`hostLost` / `processExited`) says whether a new process takes it.
        case awaitingExit(host: UInt64)
        /// Its attached host's connection dropped: commands are held until the host resumes or the
        /// grace period ends.
        case awaitingResume(host: UInt64)

        /// A few words for `flowctl tree`: empty when live, else what it waits for.
        public var summary: String {
            switch self {
            case .live: ""
            case .waitingForHost: "waiting for host"
            case .spawning: "spawning"
            case .waitingForHandshake: "handshake"
            case .dismissing: "dismissing"
            case .awaitingExit: "restarting"
            case .awaitingResume: "awaiting resume"
            }
        }
    }

    /// How the driver creates a screen of a kind.
    public enum Route: Hashable, Sendable {
        /// An attached host that provides the kind (the oldest ready one), or wait for one.
        case attached
        /// Spawn a process for this screen (the driver answers `spawned` or `spawnFailed`); the
        /// policy says what happens when that process crashes.
        case spawn(RestartPolicy)
    }

    /// One command with its serial, as it leaves for a host.
    public struct Outgoing: Hashable, Sendable {
        /// The command.
        public var command: ScreenCommand
        /// Its serial.
        public var serial: UInt64
    }

    /// What the driver must do.
    public enum Action: Hashable, Sendable {
        /// Send a command to a host.
        case send(Outgoing, to: UInt64)
        /// Spawn a process for a screen; answer with `spawned(_:host:)` or `spawnFailed(_:)`.
        case spawn(ScreenID, kind: String)
        /// Tell the runtime a dismissal completed (`FlowRuntime.dismissalCompleted`).
        case dismissalCompleted(ScreenID, DismissOutcome)
        /// Tell the runtime a screen was lost (`FlowRuntime.screenLost`).
        case screenLost(ScreenID, kind: String, host: UInt64?)
        /// A screen did not acknowledge `serial` in time; tell its host (if any) before it is removed.
        case ackTimedOut(ScreenID, kind: String, serial: UInt64, host: UInt64?)
        /// A spawned host's screen is gone: say goodbye and let the process exit.
        case retire(host: UInt64, reason: String)
        /// A crashed screen process is replaced (a `spawn` for the screen follows); `attempt` counts
        /// its restarts so far, this one included.
        case restarted(ScreenID, kind: String, attempt: Int, policy: RestartPolicy)
        /// A screen's restart policy gave up after `restarts` restarts (a `screenLost` follows).
        case restartGaveUp(ScreenID, kind: String, restarts: Int, policy: RestartPolicy)
        /// An attached host's connection dropped; its `screens` are held for it to resume.
        case detached(host: UInt64, screens: Int)
        /// Host `host` resumed the screens of the dropped host `from` (their `Place`s follow).
        case resumed(host: UInt64, from: UInt64, screens: Int)
        /// A dropped host did not resume in time: its screens wait for the next host of their kinds
        /// (a `waitingForHost` or a re-`Place` each), or are lost if their kind is lost with its host
        /// (a `screenLost` each).
        case resumeExpired(host: UInt64, screens: Int)
        /// An attached screen whose host is gone for good waits for the next host that provides its
        /// kind, which gets it with its current state and placement (the host-wait watch starts).
        case waitingForHost(ScreenID, kind: String)
        /// A screen of `kind` was not given to `host`, which provides its kind: the host already shows
        /// `maxScreensPerHost` screens. The screen waits for a host with room (tell the host).
        case hostFull(ScreenID, kind: String, host: UInt64, screens: Int)
        /// `host`, which was full, has room again and screens wait for its kinds: answer with
        /// `hostHasRoom(_:now:)`.
        case hostHasRoom(UInt64)
        /// Start a process for the warm pool of `kind` (no screen yet); answer with
        /// `pooledSpawned(kind:host:now:)` or `pooledSpawnFailed(kind:)`.
        case spawnPooled(kind: String)
        /// Screen `screen` went to the pooled process `host` instead of a new spawn.
        case tookPooled(ScreenID, kind: String, host: UInt64)
        /// Stop an idle pooled process: say goodbye and let it exit (the daemon stops).
        case stopPooled(host: UInt64)
        /// `kind`'s pooled processes kept dying before use: its pool stops refilling until a screen of
        /// the kind is placed.
        case poolSuspended(kind: String, deaths: Int)
    }

    /// What an ack meant.
    public enum AckResult: Hashable, Sendable {
        /// Accepted (`kind` for the event stream); a completed dismissal comes as an action.
        case accepted(kind: String)
        /// At or below what was already acknowledged: ignored.
        case stale
        /// The screen is not live.
        case unknownScreen
        /// Another host shows the screen.
        case notYourScreen
        /// The serial was never sent; `lastSent` is the last one that was.
        case unknownSerial(lastSent: UInt64)
    }

    /// One screen as delivery sees it: 120 bytes, one per live screen (docs/performance.md, "Memory").
    public struct Screen: Hashable, Sendable {
        /// Its kind name.
        public var kind: String { current.names.kind }
        /// Where it is in its delivery.
        public internal(set) var phase: Phase
        /// How many times its process was restarted (its policy and history are in `restartBooks`,
        /// kept apart: most screens have none).
        public internal(set) var restarts: UInt32 = 0
        /// Its serials.
        public internal(set) var serials = ScreenSerials()
        /// Commands waiting for a host, in order.
        public internal(set) var held: [Outgoing] = []
        /// The screen as a new host must be given it: its `Place` with every later update and
        /// placement change folded in. A restarted or resumed host gets this.
        public internal(set) var current: CurrentPlace

        /// The host it is assigned to, if any.
        public var host: UInt64? {
            switch phase {
            case .waitingForHost, .spawning, .awaitingExit, .awaitingResume: nil
            case .waitingForHandshake(let host), .live(let host), .dismissing(let host): host
            }
        }

        /// Whether it waits for its host to come back (a restart or a resume).
        public var isHeldForHost: Bool {
            switch phase {
            case .awaitingExit, .awaitingResume: true
            default: false
            }
        }

        /// Whether its `Dismiss` was sent.
        public var isDismissing: Bool {
            if case .dismissing = phase { return true }
            return false
        }
    }

    /// What a new host must be given for a screen: its `Place` with every later update and placement
    /// change folded in. Slim, as there is one per live screen: the names are shared by the screens
    /// of one kind and flow type, and what a host saved is kept apart (few screens have any).
    public struct CurrentPlace: Hashable, Sendable {
        /// Its kind, state content type and owning flow's type.
        public let names: PlaceNames
        /// Its latest state.
        public internal(set) var state: Data
        /// Its latest placement.
        public internal(set) var placement: Placement
        /// The flow that owns it now.
        public internal(set) var owner: FlowID

        /// The `Place` for screen `id` on a new host (not animated), carrying `savedState`.
        func place(_ id: ScreenID, savedState: Data) -> PlaceCommand {
            var place = PlaceCommand(screen: id, kind: names.kind, state: state, contentType: names.contentType,
                                     outputContentType: names.outputContentType, placement: placement, owner: owner,
                                     flowType: names.flowType, animated: false)
            place.savedState = savedState
            return place
        }
    }

    /// The names in a `Place` that the screens of one kind and flow type share.
    public final class PlaceNames: Hashable, Sendable {
        /// The names, as the delivery looks them up.
        struct Key: Hashable {
            let kind: String
            let contentType: String
            let outputContentType: String
            let flowType: String
        }

        let key: Key
        /// The screen kind.
        public var kind: String { key.kind }
        /// The content type of its states.
        public var contentType: String { key.contentType }
        /// The content type its module takes outputs in.
        public var outputContentType: String { key.outputContentType }
        /// The type name of the flow that placed it.
        public var flowType: String { key.flowType }

        init(_ key: Key) { self.key = key }

        public static func == (lhs: PlaceNames, rhs: PlaceNames) -> Bool { lhs === rhs || lhs.key == rhs.key }

        public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// One host.
    public struct Host: Hashable, Sendable {
        /// Kinds it provides (attached hosts).
        public internal(set) var provides: [String] = []
        /// Screens it shows.
        public internal(set) var screens: Set<ScreenID> = []
        /// Whether it finished its handshake.
        public internal(set) var isReady = false
        /// Whether it was spawned for one screen (retired when that screen is gone).
        public let isSpawned: Bool
        /// A spawned host whose process exited before its connection closed: whether abnormally.
        var exitedAbnormally: Bool?
    }

    /// How long a host may take to acknowledge a command, in the clock's unit (milliseconds); nil:
    /// commands never time out and no deadline is kept (in-process hosts).
    public let ackTimeout: UInt64?
    /// Live screens (placed and not yet dismissed or lost).
    package internal(set) var screens = NodeTable<Screen>()
    /// Hosts by id.
    public internal(set) var hosts: [UInt64: Host] = [:]
    /// Ready attached hosts by the kinds they provide, oldest first.
    var hostsByKind: [String: [UInt64]] = [:]
    /// Screens of attached kinds waiting for a host, by kind, in order.
    var waiting: [String: [ScreenID]] = [:]
    /// Commands waiting for their ack, in send order.
    private var deadlines: DeadlineQueue<Deadline>
    /// How long a dropped attached host's screens are held for it to resume (nil: not at all).
    public let resumeGrace: UInt64?
    /// Whether lost hosts' screens are held for a restart or a resume (false once the driver shuts down).
    public var holdsScreensOfLostHosts = true
    /// Kinds whose attached screens are lost with their host when it leaves for good (the flow is
    /// told `screenLost`), instead of waiting for the next host of the kind (the default).
    public var kindsLostWithTheirHost: Set<String> = []
    /// Spawned hosts whose connection closed before their process's exit was known, with the
    /// screens waiting for that news.
    var awaitingExit: [UInt64: Set<ScreenID>] = [:]
    /// The restart policy and recent restarts of each screen whose policy restarts.
    var restartBooks: [ScreenID: RestartBook] = [:]
    /// What hosts saved for live screens (`SaveState`), sent with every later `Place` of them.
    var saved: [ScreenID: Data] = [:]
    /// The names of the screens placed, one object per kind, content type and flow type.
    var placeNames: [PlaceNames.Key: PlaceNames] = [:]
    /// The warm pools of spawned kinds: idle processes a new screen of the kind goes to.
    public internal(set) var pool = SpawnPool()

    struct RestartBook: Hashable, Sendable {
        let policy: RestartPolicy
        /// When it was restarted within the policy's window (the intensity limit).
        var recent: [UInt64] = []
    }

    /// Dropped attached hosts whose screens are held for them to resume.
    var detached: [UInt64: Set<ScreenID>] = [:]
    /// The kinds each dropped host provided: it keeps its place among their providers meanwhile
    /// (skipped while away), so a resumed host is not sent to the back of the queue.
    var detachedKinds: [UInt64: [String]] = [:]
    /// When each dropped host's grace period ends.
    var resumeDeadlines: DeadlineQueue<UInt64>

    /// One command's ack clock, on the host it was sent to: a screen re-placed on another host
    /// (restarted or resumed) ignores the clocks of the host it left.
    private struct Deadline: Hashable, Sendable {
        let screen: ScreenID
        let serial: UInt64
        let host: UInt64
    }

    /// Screens one attached host shows at most; a screen placed past it waits for a host of its kind
    /// with room (`Action.hostFull` tells the driver). Spawned hosts show one screen each.
    public var maxScreensPerHost = Int.max

    /// Delivery with no screens and no hosts. `resumeGrace` (milliseconds, nil or 0: none) is how long
    /// a dropped attached host's screens wait for it.
    public init(ackTimeout: UInt64?, resumeGrace: UInt64? = nil) {
        self.ackTimeout = ackTimeout
        self.resumeGrace = resumeGrace == 0 ? nil : resumeGrace
        deadlines = DeadlineQueue(timeout: ackTimeout ?? 0)
        resumeDeadlines = DeadlineQueue(timeout: resumeGrace ?? 0)
    }

    /// Starts the ack clock of a command sent to `host` (unless commands never time out).
    mutating func expectAck(_ screen: ScreenID, serial: UInt64, host: UInt64, now: UInt64) {
        guard ackTimeout != nil else { return }
        deadlines.add(Deadline(screen: screen, serial: serial, host: host), now: now)
    }

    // MARK: Queries

    /// The earliest ack or resume deadline, for the driver's one timer. Read in place (`mutating`):
    /// as a plain getter, the driver's loop passed a copy of the whole delivery, a `memcpy` per
    /// iteration (callgrind `flowd-relay`), as for `nextAckDeadline`.
    public var nextDeadline: UInt64? {
        mutating get {
            guard let resume = resumeDeadlines.next else { return deadlines.next }
            return min(resume, deadlines.next ?? resume)
        }
    }

    /// The earliest ack deadline alone (ack clocks are running: commands may be unacknowledged).
    public var nextAckDeadline: UInt64? { mutating get { deadlines.next } }

    /// Screens held for their host to come back: restarting, or waiting for a resume.
    public var heldScreenCount: Int { screens.values.count { $0.isHeldForHost } }

    /// Whether `host` is a dropped attached host whose screens wait for it to resume.
    public func isDetached(_ host: UInt64) -> Bool { detached[host] != nil }

    /// Hosts that have commands sent and not acknowledged (for a watchdog).
    public var hostsAwaitingAcks: Set<UInt64> {
        var hosts: Set<UInt64> = []
        for screen in screens.values where screen.serials.isPending {
            if let host = screen.host, self.hosts[host]?.isReady == true { hosts.insert(host) }
        }
        return hosts
    }

    /// Commands sent and not acknowledged yet, one per screen at most.
    public var pendingAckCount: Int { screens.values.count { $0.host != nil && $0.serials.isPending } }

    /// Commands held for screens without a host able to take them.
    public var heldCommandCount: Int { screens.values.reduce(0) { $0 + $1.held.count } }

    /// Screens waiting for an attached host, by kind.
    public var waitingScreens: [String: [ScreenID]] { waiting.filter { !$0.value.isEmpty } }

    /// Why `host` may not act on screen `id` (nil: it may; a nil `host` may act on any live screen):
    /// the daemon's check of every output and ack. It changes nothing; it is `mutating` so that it
    /// reads the screen in place: a read through `screens` copies the `Screen` out (and a
    /// non-mutating call on a class's stored `ScreenDelivery` copied the whole delivery around it),
    /// ~1.3 k instructions per output.
    public mutating func refusal(of id: ScreenID, by host: UInt64?) -> LookupError? {
        guard let index = screens.index(forKey: id) else { return .unknownScreen }
        if let host, Self.host(of: &screens[at: index]) != host { return .notYourScreen }
        return nil
    }

    /// The content type of screen `id`'s states (its `Place`'s), nil if it is not placed. `mutating`
    /// for the same reason as `refusal(of:by:)`: it reads the screen in place, once per `Update`.
    public mutating func stateContentType(of id: ScreenID) -> String? {
        guard let index = screens.index(forKey: id) else { return nil }
        return Self.contentType(of: &screens[at: index])
    }

    /// What the daemon checks an output of screen `id` against (nil if it is not placed), read in
    /// place as `refusal(of:by:)` does: its kind, whether its `Dismiss` was sent, and the content type
    /// its module takes outputs in. An output in that type goes to the flows as it is, without the
    /// runtime's look-up of the same (`FlowRuntime.acceptedOutput`; ~0.4 k instructions per output).
    public mutating func outputFacts(of id: ScreenID) -> (kind: String, isDismissing: Bool, contentType: String)? {
        guard let index = screens.index(forKey: id) else { return nil }
        return Self.outputFacts(of: &screens[at: index])
    }

    /// `refusal(of:by:)` and `outputFacts(of:)` in one look-up of the screen, the daemon's check of an
    /// output: the facts are empty (`""`, `false`, `""`) when `refusal` is not nil. Two look-ups cost
    /// ~0.3 k instructions per output more (callgrind `flowd-echo`).
    public mutating func outputFacts(of id: ScreenID, by host: UInt64?)
        -> (refusal: LookupError?, kind: String, isDismissing: Bool, contentType: String) {
        guard let index = screens.index(forKey: id) else { return (.unknownScreen, "", false, "") }
        if let host, Self.host(of: &screens[at: index]) != host { return (.notYourScreen, "", false, "") }
        let (kind, isDismissing, contentType) = Self.outputFacts(of: &screens[at: index])
        return (nil, kind, isDismissing, contentType)
    }

    /// Keeps `data`, what a host saved for screen `id` (`SaveState`), with the screen: every later
    /// `Place` of it carries it. False when the screen is not placed or is being dismissed.
    public mutating func save(_ data: Data, for id: ScreenID) -> Bool {
        guard let index = screens.index(forKey: id), !screens[at: index].isDismissing else { return false }
        saved[id] = data.isEmpty ? nil : data
        return true
    }

    /// What hosts saved for the screens placed now (those with something saved), by screen.
    public var savedStates: [ScreenID: Data] {
        saved.filter { screens[$0.key]?.isDismissing == false }
    }

    private static func outputFacts(of screen: inout Screen) -> (kind: String, isDismissing: Bool, contentType: String) {
        (screen.kind, screen.isDismissing, screen.current.names.outputContentType)
    }
    private static func host(of screen: inout Screen) -> UInt64? { screen.host }
    private static func contentType(of screen: inout Screen) -> String { screen.current.names.contentType }

    /// Broken agreements between the screens and the tables that index them (empty when sound):
    /// every screen is where its phase says, every index entry names a screen in that phase, no
    /// screen waits for a kind that a ready host provides, no provider is a host that is gone.
    /// Scans everything: for tests and fuzzing.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        for (id, screen) in screens {
            let indexed: Bool
            switch screen.phase {
            case .waitingForHost: indexed = waiting[screen.kind]?.contains(id) == true
            case .spawning: indexed = true
            case .awaitingExit(let host): indexed = awaitingExit[host]?.contains(id) == true
            case .awaitingResume(let host): indexed = detached[host]?.contains(id) == true
            case .waitingForHandshake(let host), .live(let host), .dismissing(let host): indexed = hosts[host]?.screens.contains(id) == true
            }
            if !indexed { problems.append("screen \(id) is \(screen.phase) but not indexed there") }
        }
        for id in restartBooks.keys where !screens.contains(id) { problems.append("restart book of gone screen \(id)") }
        for id in saved.keys where !screens.contains(id) { problems.append("saved state of gone screen \(id)") }
        for (host, ids) in awaitingExit { for id in ids where screens[id]?.phase != .awaitingExit(host: host) { problems.append("screen \(id) listed as awaiting the exit of \(host)") } }
        for (host, ids) in detached { for id in ids where screens[id]?.phase != .awaitingResume(host: host) { problems.append("screen \(id) listed as awaiting the resume of \(host)") } }
        for (kind, ids) in waiting where !ids.isEmpty {
            for id in ids where screens[id]?.phase != .waitingForHost { problems.append("screen \(id) listed as waiting for a \(kind) host") }
            if let host = readyHost(for: kind) { problems.append("\(ids.count) screens wait for a \(kind) host while host \(host) provides it") }
        }
        for (kind, providers) in hostsByKind {
            for host in providers where hosts[host] == nil && detached[host] == nil { problems.append("host \(host) is gone but listed as providing \(kind)") }
        }
        for (host, member) in pool.members {
            guard let pooled = hosts[host] else { problems.append("pooled host \(host) of \(member.kind) is not a host"); continue }
            if !pooled.isSpawned || !pooled.screens.isEmpty { problems.append("pooled host \(host) of \(member.kind) shows screens or was not spawned") }
            if pooled.isReady != member.isReady { problems.append("pooled host \(host) of \(member.kind): ready \(pooled.isReady) but the pool says \(member.isReady)") }
        }
        return problems + pool.invariantViolations()
    }

    /// Why a look-up failed.
    public enum LookupError: Error, Hashable, Sendable {
        /// Never placed, or already dismissed or lost.
        case unknownScreen
        /// Shown by another host.
        case notYourScreen
    }

    // MARK: Commands from the runtime

    /// Applies one command from the runtime at time `now`. Returns its serial (nil when it was dropped:
    /// the screen is gone or being dismissed) and the actions it needs. `route` says how a placed
    /// screen's host is found.
    public mutating func apply(_ command: ScreenCommand, route: @autoclosure () -> Route, now: UInt64) -> (serial: UInt64?, actions: [Action]) {
        var actions: [Action] = []
        let serial = apply(command, route: route(), now: now, into: &actions)
        return (serial, actions)
    }

    /// `apply`, appending the actions to `actions` (the daemon's hot path: no array per command).
    public mutating func apply(_ command: ScreenCommand, route: @autoclosure () -> Route, now: UInt64, into actions: inout [Action]) -> UInt64? {
        switch command {
        case .place(let place):
            let (serial, placed) = placeScreen(place, route: route(), now: now)
            actions += placed
            return serial
        case .update, .placementChanged:
            // One hash look-up, the screen changed in place (never copied out: a copy retains every
            // reference it holds): this runs for every output a flow answers.
            guard let index = screens.index(forKey: command.screen),
                  let (serial, live) = Self.take(command, into: &screens[at: index])
            else { return nil }
            if let live {
                expectAck(command.screen, serial: serial, host: live, now: now)
                actions.append(.send(Outgoing(command: command, serial: serial), to: live))
            }
            return serial
        case .dismiss(let id, _, _):
            let (serial, dismissed) = dismiss(id, command, now: now)
            actions += dismissed
            return serial
        }
    }

    /// An update or placement change for `screen`: its serial and, when the screen is live, its host
    /// (the command is to be sent); held for a later host otherwise. Nil for a screen being dismissed.
    private static func take(_ command: ScreenCommand, into screen: inout Screen) -> (serial: UInt64, live: UInt64?)? {
        guard !screen.isDismissing else { return nil }
        let serial = screen.serials.next()
        // Kept current for a host that must be given the screen again.
        if case .update(_, let state, let owner) = command {
            screen.current.state = state
            screen.current.owner = owner
        } else if case .placementChanged(_, let placement, _, let owner) = command {
            screen.current.placement = placement
            screen.current.owner = owner
        }
        if case .live(let live) = screen.phase { return (serial, live) }
        screen.held.append(Outgoing(command: command, serial: serial))
        return (serial, nil)
    }

    private mutating func placeScreen(_ place: PlaceCommand, route: Route, now: UInt64) -> (serial: UInt64?, actions: [Action]) {
        if case .spawn(let policy) = route, policy != .never {
            restartBooks[place.screen] = RestartBook(policy: policy)
        }
        var screen = Screen(phase: .waitingForHost, current: current(of: place))
        saved[place.screen] = place.savedState.isEmpty ? nil : place.savedState
        let outgoing = Outgoing(command: .place(place), serial: screen.serials.next())
        screen.held = [outgoing]
        switch route {
        case .attached:
            screens[place.screen] = screen
            if let host = readyHost(for: place.kind) {
                return (outgoing.serial, assign(place.screen, to: host, now: now))
            }
            waiting[place.kind, default: []].append(place.screen)
            return (outgoing.serial, fullHost(for: place.screen, kind: place.kind))
        case .spawn:
            screen.phase = .spawning
            screens[place.screen] = screen
            return (outgoing.serial, startProcess(for: place.screen, kind: place.kind, now: now))
        }
    }

    private mutating func dismiss(_ id: ScreenID, _ command: ScreenCommand, now: UInt64) -> (serial: UInt64?, actions: [Action]) {
        guard var screen = screens[id], !screen.isDismissing else { return (nil, [.dismissalCompleted(id, .hostLost)]) }
        guard let host = screen.host, hosts[host] != nil else {
            // Not on a host (never shown, or its host is gone and held for a restart or a resume):
            // nothing to wait for, and the host that comes back will not be given it.
            forget(id)
            return (screen.serials.lastSent + 1, [.dismissalCompleted(id, screen.isHeldForHost ? .hostLost : .acknowledged)])
        }
        let outgoing = Outgoing(command: command, serial: screen.serials.nextDismiss())
        let wasLive = screen.phase == .live(host: host)
        screen.phase = .dismissing(host: host)
        screens[id] = screen
        if wasLive {
            expectAck(id, serial: outgoing.serial, host: host, now: now)
            return (outgoing.serial, [.send(outgoing, to: host)])
        }
        screens[id]?.held.append(outgoing)
        return (outgoing.serial, [])
    }

    // MARK: The warm pool

    /// A screen waiting in `.spawning` needs a process: a pooled one if its kind's pool has one
    /// (ready: its held commands go out now), else a new spawn.
    mutating func startProcess(for id: ScreenID, kind: String, now: UInt64) -> [Action] {
        let (taken, refill) = pool.take(kind)
        guard let host = taken else { return [.spawn(id, kind: kind)] + poolActions(refill) }
        return [.tookPooled(id, kind: kind, host: host)] + assign(id, to: host, now: now) + poolActions(refill)
    }

    /// Keeps `size` idle processes of the spawned `kind` (0: none; at most `SpawnPool.maxSize`).
    public mutating func setPool(_ kind: String, size: Int) -> [Action] {
        let actions = pool.resize(kind, to: size)
        for case .stop(let host) in actions { hosts[host] = nil }
        return poolActions(actions)
    }

    /// The process spawned for `kind`'s pool connected as `host` (its handshake is still to come).
    public mutating func pooledSpawned(kind: String, host: UInt64) -> [Action] {
        guard hosts[host] == nil else { return [] }
        hosts[host] = Host(isSpawned: true)
        let actions = pool.spawned(kind: kind, host: host)
        // Not taken into the pool (it stopped meanwhile): it goes again.
        if pool.members[host] == nil { hosts[host] = nil }
        return poolActions(actions)
    }

    /// The process for `kind`'s pool could not be spawned (at `now`).
    public mutating func pooledSpawnFailed(kind: String, now: UInt64) -> [Action] {
        poolActions(pool.spawnFailed(kind: kind, now: now))
    }

    /// Stops the pools for good (the driver shuts down): every idle pooled process is stopped.
    public mutating func stopPool() -> [Action] {
        let actions = pool.stop()
        for case .stop(let host) in actions { hosts[host] = nil }
        return poolActions(actions)
    }

    func poolActions(_ actions: [SpawnPool.Action]) -> [Action] {
        actions.map {
            switch $0 {
            case .spawn(let kind): .spawnPooled(kind: kind)
            case .stop(let host): .stopPooled(host: host)
            case .suspended(let kind, let deaths): .poolSuspended(kind: kind, deaths: deaths)
            }
        }
    }

    // MARK: Acks and deadlines

    /// An ack from `host` for `serial` of screen `id`. A completed dismissal comes out in `actions`.
    public mutating func ack(_ id: ScreenID, serial: UInt64, from host: UInt64) -> (result: AckResult, actions: [Action]) {
        // In place: copying the screen out and back retained and released everything it holds.
        guard let index = screens.index(forKey: id) else { return (.unknownScreen, []) }
        let (result, completesDismissal) = Self.acknowledge(serial, from: host, on: &screens[at: index])
        guard case .accepted = result else { return (result, []) }
        dropAnsweredDeadlines()
        if !pool.taken.isEmpty, pool.taken[host] != nil {
            // A pooled process showed its screen: the pool replaces it now.
            let refill = poolActions(pool.released(host))
            guard completesDismissal else { return (result, refill) }
            return (result, refill + complete(id, .acknowledged))
        }
        guard completesDismissal else { return (result, []) }
        return (result, complete(id, .acknowledged))
    }

    /// `ack` on the screen itself: what to answer, and whether it completes the screen's dismissal.
    private static func acknowledge(_ serial: UInt64, from host: UInt64, on screen: inout Screen) -> (AckResult, completesDismissal: Bool) {
        guard screen.host == host else { return (.notYourScreen, false) }
        switch screen.serials.ack(serial) {
        case .unknown: return (.unknownSerial(lastSent: screen.serials.lastSent), false)
        case .stale: return (.stale, false)
        case .accepted(let completesDismissal): return (.accepted(kind: screen.kind), completesDismissal)
        }
    }

    /// Drops the ack clocks at the head of the queue whose command was answered (acks mostly come in
    /// the order commands went out): without it, every command of a burst kept its entry until its
    /// timeout passed, ~100 B per screen right after `live-screens`' placements, and the deadline
    /// timer woke for clocks that no longer ran.
    private mutating func dropAnsweredDeadlines() {
        while let deadline = deadlines.firstKey {
            if let index = screens.index(forKey: deadline.screen), !Self.isAnswered(deadline, by: &screens[at: index]) { return }
            deadlines.dropFirst()
        }
    }

    /// Whether `deadline`'s command was acknowledged, or its screen moved to another host (read in place).
    private static func isAnswered(_ deadline: Deadline, by screen: inout Screen) -> Bool {
        screen.serials.acked >= deadline.serial || screen.host != deadline.host
    }

    /// Handles every ack deadline at or before `now`: a late `Dismiss` completes as timed out; any
    /// other late command removes the screen by force (its host is told with a `Dismiss` of reason
    /// `removed`) and the runtime hears it was lost.
    public mutating func expire(now: UInt64) -> [Action] {
        var actions = expireResumes(now: now)
        for first in deadlines.expired(now: now) {
            guard var screen = screens[first.screen], screen.serials.acked < first.serial, screen.host == first.host else { continue }
            actions.append(.ackTimedOut(first.screen, kind: screen.kind, serial: first.serial, host: screen.host))
            if screen.isDismissing {
                actions += complete(first.screen, .timedOut)
                continue
            }
            if let host = screen.host, hosts[host]?.isReady == true {
                let serial = screen.serials.nextDismiss()
                actions.append(.send(Outgoing(command: .dismiss(first.screen, animated: false, reason: .removed), serial: serial), to: host))
            }
            forget(first.screen)
            actions += detach(first.screen, from: screen.host, reason: "its screen \(first.screen) was removed")
            actions.append(.screenLost(first.screen, kind: screen.kind, host: screen.host))
        }
        return actions
    }

    /// One screen alone is gone (its host reports it crashed, or a test says so): a pending dismissal
    /// completes as `hostLost`, otherwise the runtime hears the screen was lost.
    public mutating func lose(_ id: ScreenID) -> [Action] {
        guard let screen = screens[id] else { return [] }
        if screen.isDismissing { return complete(id, .hostLost) }
        forget(id)
        return detach(id, from: screen.host, reason: "its screen \(id) was lost") + [.screenLost(id, kind: screen.kind, host: screen.host)]
    }

    /// A command for screen `id` could not be sent to `host` (the driver found its frame over the
    /// host's maximum frame size): the host cannot show the screen, so it is removed as at an ack
    /// timeout, at once and without blaming the host for a serial it never got. A host that has the
    /// screen (`hostHasScreen`: the command was not its `Place`) is sent a `Dismiss` of reason
    /// `removed`; the runtime hears the screen was lost. A screen being dismissed only waits for its
    /// dismissal, and a screen that moved to another host since is left alone.
    public mutating func undeliverable(_ id: ScreenID, host: UInt64, hostHasScreen: Bool) -> [Action] {
        guard var screen = screens[id], screen.host == host, !screen.isDismissing else { return [] }
        var actions: [Action] = []
        if hostHasScreen, hosts[host]?.isReady == true {
            let serial = screen.serials.nextDismiss()
            screens[id] = screen
            actions.append(.send(Outgoing(command: .dismiss(id, animated: false, reason: .removed), serial: serial), to: host))
        }
        forget(id)
        actions += detach(id, from: host, reason: "its screen \(id) could not be sent to it")
        actions.append(.screenLost(id, kind: screen.kind, host: host))
        return actions
    }

    /// Ends a screen's pending dismissal as the driver decides (a test's fake host says it timed out
    /// or died); ignored unless the screen is being dismissed.
    public mutating func abandonDismissal(_ id: ScreenID, outcome: DismissOutcome) -> [Action] {
        guard screens[id]?.isDismissing == true else { return [] }
        return complete(id, outcome)
    }

    /// Completes a dismissal: forgets the screen and retires a spawned host left without screens.
    private mutating func complete(_ id: ScreenID, _ outcome: DismissOutcome) -> [Action] {
        guard let screen = removeScreen(id) else { return [] }
        return detach(id, from: screen.host, reason: "its screen \(id) was dismissed") + [.dismissalCompleted(id, outcome)]
    }

    private mutating func detach(_ id: ScreenID, from host: UInt64?, reason: String) -> [Action] {
        guard let host, hosts[host] != nil else { return [] }
        hosts[host]?.screens.remove(id)
        guard let remaining = hosts[host] else { return [] }
        if !remaining.isSpawned {
            // A full attached host has room again for a screen waiting for one of its kinds.
            guard remaining.screens.count == maxScreensPerHost - 1, remaining.isReady,
                  remaining.provides.contains(where: { waiting[$0]?.isEmpty == false }) else { return [] }
            return [.hostHasRoom(host)]
        }
        guard remaining.screens.isEmpty else { return [] }
        return [.retire(host: host, reason: reason)]
    }
}
