/// The warm pools of spawned kinds as a value (Qt Application Manager's quick-launch, Android's
/// zygote): for each kind with a size, that many processes started, connected and handshaken but
/// idle, so that a new screen of the kind goes to one of them in one `Place` instead of waiting for a
/// process to start. Events go in (`resize`, `spawned`, `spawnFailed`, `ready`, `take`, `lost`,
/// `stop`); `Action`s come out. `ScreenDelivery` holds one and turns its actions into its own.
///
/// Rules: a kind's pool never holds more than its size (members, spawns asked for, and members taken
/// whose screen is not shown yet); a member lost is replaced at once, a member taken once its screen
/// is shown (`released`: its first ack, or its loss), so that starting the replacement does not
/// compete with the screen the user waits for; a member that dies before it is used (or a spawn that fails)
/// counts as a death, and after `maxDeaths` deaths within `deathWindow` milliseconds with no take
/// in between (an executable that cannot start, or exits at once) the kind's pool stops refilling
/// until a screen of the kind is placed again; once stopped (the daemon shuts down) nothing is
/// spawned and every member is stopped.
public struct SpawnPool: Hashable, Sendable {
    /// The largest pool of one kind.
    public static let maxSize = 64
    /// Deaths of idle members within `deathWindow`, without a take between, after which a kind stops refilling.
    public static let maxDeaths = 3
    /// The window of `maxDeaths`, in milliseconds.
    public static let deathWindow: UInt64 = 10_000

    /// One idle pooled process.
    public struct Member: Hashable, Sendable {
        /// The kind it waits to show.
        public let kind: String
        /// Whether it finished its handshake.
        public internal(set) var isReady: Bool
    }

    /// What the driver must do.
    public enum Action: Hashable, Sendable {
        /// Start a process for the pool of `kind`; answer with `spawned(kind:host:)` or `spawnFailed(kind:)`.
        case spawn(kind: String)
        /// Stop an idle member (the pool shrank or stopped).
        case stop(host: UInt64)
        /// `kind`'s members died `deaths` times in a row before use: the pool stops refilling until a
        /// screen of the kind is placed.
        case suspended(kind: String, deaths: Int)
    }

    /// The size of each kind's pool (kinds without a pool are absent).
    public private(set) var sizes: [String: Int] = [:]
    /// Idle members by their host id.
    public private(set) var members: [UInt64: Member] = [:]
    /// Members of each kind, oldest first.
    private var order: [String: [UInt64]] = [:]
    /// Spawns asked for and not answered yet, by kind.
    private var requested: [String: Int] = [:]
    /// When members of each kind died before use, since the last take, within the window.
    private var deaths: [String: [UInt64]] = [:]
    /// Kinds that stopped refilling after their members kept dying.
    private var suspended: Set<String> = []
    /// Members taken whose screen has not acknowledged its first command yet, with their kind: each is
    /// replaced once `released`.
    public private(set) var taken: [UInt64: String] = [:]
    /// Screens that went to a member (a ready one or one still starting).
    public private(set) var hits: UInt64 = 0
    /// Screens of a pooled kind that found the pool empty and spawned their own process.
    public private(set) var misses: UInt64 = 0
    /// Whether the pool stopped for good (the daemon shuts down).
    public private(set) var isStopped = false

    /// No pools.
    public init() {}

    // MARK: Queries

    /// Members that finished their handshake and wait for a screen.
    public var readyCount: Int { members.values.count { $0.isReady } }

    /// Members still starting, and spawns asked for.
    public var startingCount: Int { members.values.count { !$0.isReady } + requested.values.reduce(0, +) }

    /// Members, spawns asked for and members taken but not released of `kind`: never above its size.
    public func count(of kind: String) -> Int {
        (order[kind]?.count ?? 0) + (requested[kind] ?? 0) + taken.values.count { $0 == kind }
    }

    /// Whether `kind` stopped refilling after its members kept dying.
    public func isSuspended(_ kind: String) -> Bool { suspended.contains(kind) }

    /// Broken agreements between the members and their indexes (empty when sound). For tests and fuzzing.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        for (kind, size) in sizes where count(of: kind) > size {
            problems.append("the pool of \(kind) holds \(count(of: kind)), over its size \(size)")
        }
        for (kind, hosts) in order {
            for host in hosts where members[host]?.kind != kind { problems.append("host \(host) listed in the pool of \(kind) but not a member of it") }
        }
        for (host, member) in members where order[member.kind]?.contains(host) != true {
            problems.append("member \(host) of \(member.kind) not listed")
        }
        if isStopped, !members.isEmpty { problems.append("\(members.count) members left in a stopped pool") }
        return problems
    }

    // MARK: Events

    /// Sets `kind`'s pool to `size` (clamped to 0...`maxSize`): spawns what is missing, stops the
    /// newest idle members over it.
    public mutating func resize(_ kind: String, to size: Int) -> [Action] {
        let size = min(max(size, 0), Self.maxSize)
        sizes[kind] = size == 0 ? nil : size
        var actions: [Action] = []
        while count(of: kind) > size, let newest = order[kind]?.popLast() {
            members[newest] = nil
            actions.append(.stop(host: newest))
        }
        return actions + refill(kind)
    }

    /// The spawn asked for `kind` gave the process connected as `host` (its handshake is to come).
    public mutating func spawned(kind: String, host: UInt64) -> [Action] {
        guard let asked = requested[kind], asked > 0, members[host] == nil else { return [] }
        requested[kind] = asked == 1 ? nil : asked - 1
        if isStopped || count(of: kind) >= sizes[kind] ?? 0 { return [.stop(host: host)] }
        members[host] = Member(kind: kind, isReady: false)
        order[kind, default: []].append(host)
        return []
    }

    /// The spawn asked for `kind` failed at `now`: it counts as a death.
    public mutating func spawnFailed(kind: String, now: UInt64) -> [Action] {
        guard let asked = requested[kind], asked > 0 else { return [] }
        requested[kind] = asked == 1 ? nil : asked - 1
        return died(kind, now: now)
    }

    /// `host` finished its handshake; false if it is not a member.
    @discardableResult
    public mutating func ready(_ host: UInt64) -> Bool {
        guard members[host] != nil else { return false }
        members[host]?.isReady = true
        return true
    }

    /// A screen of `kind` needs a process: the oldest ready member, else the oldest still starting
    /// (it is further along than a new spawn), else nil (a miss: the screen spawns its own, and the pool
    /// refills now). Either way the kind's deaths are forgiven. A member taken is replaced once it is
    /// `released`.
    public mutating func take(_ kind: String) -> (host: UInt64?, actions: [Action]) {
        guard sizes[kind] != nil, !isStopped else { return (nil, []) }
        deaths[kind] = nil
        suspended.remove(kind)
        let queue = order[kind] ?? []
        guard let index = queue.firstIndex(where: { members[$0]?.isReady == true }) ?? queue.indices.first else {
            misses += 1
            return (nil, refill(kind))
        }
        let host = queue[index]
        order[kind]?.remove(at: index)
        members[host] = nil
        taken[host] = kind
        hits += 1
        return (host, [])
    }

    /// The member `host` taken for a screen acknowledged its first command, or went away: it is replaced
    /// now. Nothing for any other host.
    public mutating func released(_ host: UInt64) -> [Action] {
        guard let kind = taken.removeValue(forKey: host) else { return [] }
        return refill(kind)
    }

    /// `host`'s connection closed or its process exited at `now`. A member died before use: it is
    /// replaced (unless its kind suspends). Anything else is not the pool's.
    public mutating func lost(_ host: UInt64, now: UInt64) -> [Action] {
        guard let member = members.removeValue(forKey: host) else { return [] }
        order[member.kind]?.removeAll { $0 == host }
        return died(member.kind, now: now)
    }

    /// Stops every pool for good: members are stopped and nothing is spawned any more.
    public mutating func stop() -> [Action] {
        isStopped = true
        taken.removeAll()
        let stopped = members.keys.sorted().map { Action.stop(host: $0) }
        members.removeAll()
        order.removeAll()
        return stopped
    }

    private mutating func died(_ kind: String, now: UInt64) -> [Action] {
        var recent = (deaths[kind] ?? []).filter { now < $0 + Self.deathWindow }
        recent.append(now)
        deaths[kind] = recent
        guard recent.count < Self.maxDeaths else {
            guard suspended.insert(kind).inserted else { return [] }
            return [.suspended(kind: kind, deaths: recent.count)]
        }
        return refill(kind)
    }

    /// Asks for spawns until `kind`'s pool is at its size.
    private mutating func refill(_ kind: String) -> [Action] {
        guard !isStopped, !isSuspended(kind), let size = sizes[kind] else { return [] }
        var actions: [Action] = []
        while count(of: kind) < size {
            requested[kind, default: 0] += 1
            actions.append(.spawn(kind: kind))
        }
        return actions
    }
}
