import FlowKit
import Foundation
import Testing

/// The warm pool's rules on the values alone (`SpawnPool`, and `ScreenDelivery` that holds it):
/// events in, actions out, no sockets.
@Suite struct SpawnPoolTests {
    static let screen = ScreenDeliveryTests.screen

    static func place(_ id: ScreenID = screen, kind: String = "item") -> ScreenCommand { ScreenDeliveryTests.place(id, kind: kind) }

    static func sends(_ actions: [ScreenDelivery.Action]) -> [(UInt64, UInt64)] { ScreenDeliveryTests.sends(actions) }

    static func pooledSpawns(_ actions: [ScreenDelivery.Action]) -> Int { actions.count { $0 == .spawnPooled(kind: "item") } }

    /// A delivery with a pool of `size` for kind `item`, its processes connected as hosts 100, 101, ...
    /// and, if `ready`, handshaken.
    static func pooled(_ size: Int, ready: Bool = true) -> ScreenDelivery {
        var delivery = ScreenDelivery(ackTimeout: 100)
        let asked = delivery.setPool("item", size: size)
        #expect(pooledSpawns(asked) == size, "the pool fills at once")
        for index in 0..<UInt64(size) {
            #expect(delivery.pooledSpawned(kind: "item", host: 100 + index).isEmpty)
            if ready { #expect(delivery.hostJoined(100 + index, provides: [], now: 0).isEmpty, "an idle process is sent nothing") }
        }
        return delivery
    }

    // MARK: SpawnPool alone

    @Test func aPoolFillsToItsSizeAndNeverBeyond() {
        var pool = SpawnPool()
        #expect(pool.resize("item", to: 2) == [.spawn(kind: "item"), .spawn(kind: "item")])
        #expect(pool.resize("item", to: 2).isEmpty, "asked for already")
        #expect(pool.spawned(kind: "item", host: 1).isEmpty)
        #expect(pool.spawned(kind: "item", host: 2).isEmpty)
        #expect(pool.spawned(kind: "item", host: 3).isEmpty, "nothing was asked for: not taken in")
        #expect(pool.members.count == 2 && pool.count(of: "item") == 2)
        #expect(pool.resize("item", to: 1) == [.stop(host: 2)], "shrinking stops the newest idle member")
        #expect(pool.resize("item", to: 500) == Array(repeating: .spawn(kind: "item"), count: SpawnPool.maxSize - 1), "clamped to the largest pool")
        #expect(pool.count(of: "item") == SpawnPool.maxSize)
        #expect(pool.invariantViolations().isEmpty)
    }

    @Test func aTakeGivesTheOldestReadyMemberThenOneStillStartingAndRefills() {
        var pool = SpawnPool()
        _ = pool.resize("item", to: 2)
        _ = pool.spawned(kind: "item", host: 1)
        _ = pool.spawned(kind: "item", host: 2)
        pool.ready(2)
        let first = pool.take("item")
        #expect(first.host == 2, "a ready member before an older one still starting")
        #expect(first.actions.isEmpty, "not replaced while its screen is not shown: a new process would compete with it")
        #expect(pool.released(2) == [.spawn(kind: "item")], "replaced once its screen acknowledged")
        #expect(pool.released(2).isEmpty, "once")
        #expect(pool.take("item").host == 1, "then one still starting: it is further along than a new spawn")
        #expect(pool.take("item").host == nil, "the refill is not connected yet: a miss")
        #expect(pool.hits == 2 && pool.misses == 1)
        #expect(pool.count(of: "item") == 2, "never beyond its size, however many takes")
        #expect(pool.released(1) == [.spawn(kind: "item")], "its screen shown: replaced, up to the size again")
        #expect(pool.count(of: "item") == 2)
        #expect(pool.take("other").host == nil && pool.misses == 1, "a kind without a pool is not a miss")
    }

    @Test func aMemberThatDiesBeforeUseIsReplacedUntilTheKindKeepsDying() {
        var pool = SpawnPool()
        _ = pool.resize("item", to: 1)
        // Deaths spread wider than the window: each is replaced, however many.
        var now: UInt64 = 0
        for death in 1...10 {
            now += SpawnPool.deathWindow / UInt64(SpawnPool.maxDeaths - 1)
            _ = pool.spawned(kind: "item", host: UInt64(death))
            #expect(pool.lost(UInt64(death), now: now) == [.spawn(kind: "item")], "death \(death): replaced")
        }
        // Then deaths in quick succession: the last of `maxDeaths` within the window suspends the kind.
        now += SpawnPool.deathWindow
        for death in 1..<SpawnPool.maxDeaths {
            _ = pool.spawned(kind: "item", host: UInt64(100 + death))
            #expect(pool.lost(UInt64(100 + death), now: now + UInt64(death)) == [.spawn(kind: "item")])
        }
        #expect(pool.spawnFailed(kind: "item", now: now + 10) == [.suspended(kind: "item", deaths: SpawnPool.maxDeaths)])
        #expect(pool.isSuspended("item") && pool.count(of: "item") == 0, "an executable that cannot start is not spawned forever")
        #expect(pool.lost(99, now: now + 11).isEmpty, "not a member")
        let take = pool.take("item")
        #expect(take.host == nil && take.actions == [.spawn(kind: "item")], "a screen of the kind forgives the deaths: it refills")
        #expect(!pool.isSuspended("item"))
    }

    @Test func aStoppedPoolStopsItsMembersAndSpawnsNothing() {
        var pool = SpawnPool()
        _ = pool.resize("item", to: 2)
        _ = pool.spawned(kind: "item", host: 1)
        #expect(pool.stop() == [.stop(host: 1)])
        #expect(pool.spawned(kind: "item", host: 2) == [.stop(host: 2)], "a spawn answered after the stop is stopped too")
        #expect(pool.take("item").host == nil)
        #expect(pool.resize("item", to: 3).isEmpty)
        #expect(pool.members.isEmpty && pool.invariantViolations().isEmpty)
    }

    // MARK: In the delivery

    @Test func aScreenGoesToAReadyPooledProcessInOnePlaceAndThePoolRefills() {
        var delivery = Self.pooled(1)
        let placed = delivery.apply(Self.place(), route: .spawn(.never), now: 5)
        #expect(placed.actions.first == .tookPooled(Self.screen, kind: "item", host: 100))
        #expect(Self.sends(placed.actions).map(\.0) == [100], "its Place leaves at once: no spawn, no handshake to wait for")
        #expect(!placed.actions.contains(.spawn(Self.screen, kind: "item")))
        #expect(Self.pooledSpawns(placed.actions) == 0, "no process start competes with the screen the user waits for")
        #expect(delivery.screens[Self.screen]?.phase == .live(host: 100))
        #expect(delivery.nextAckDeadline == 105, "the ack clock runs from the Place")
        #expect(delivery.pool.members.isEmpty && delivery.pool.count(of: "item") == 1)
        let acked = delivery.ack(Self.screen, serial: 1, from: 100)
        #expect(acked.result == .accepted(kind: "item"))
        #expect(acked.actions == [.spawnPooled(kind: "item")], "shown: the pool refills in the background")
        #expect(delivery.ack(Self.screen, serial: 1, from: 100).actions.isEmpty)
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func aScreenTakesAPooledProcessStillStartingAndWaitsForItsHandshake() {
        var delivery = Self.pooled(1, ready: false)
        let placed = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        #expect(placed.actions.first == .tookPooled(Self.screen, kind: "item", host: 100))
        #expect(Self.sends(placed.actions).isEmpty, "held until its handshake")
        #expect(delivery.screens[Self.screen]?.phase == .waitingForHandshake(host: 100))
        #expect(Self.sends(delivery.hostJoined(100, provides: [], now: 3)).map(\.1) == [1])
    }

    @Test func anEmptyPoolSpawnsAsWithoutOne() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        let placed = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        #expect(placed.actions == [.spawn(Self.screen, kind: "item")], "no pool: a spawn for the screen, nothing else")
        var pooled = Self.pooled(1)
        _ = pooled.apply(Self.place(), route: .spawn(.never), now: 0)
        let second = pooled.apply(Self.place(ScreenID(rawValue: 8)), route: .spawn(.never), now: 0)
        #expect(second.actions == [.spawn(ScreenID(rawValue: 8), kind: "item")], "the refill is not connected yet: its own spawn, no second refill")
        #expect(pooled.pool.misses == 1 && pooled.pool.hits == 1)
    }

    @Test func anIdlePooledProcessThatDiesIsReplacedAndNoScreenIsLost() {
        var delivery = Self.pooled(2)
        let lost = delivery.hostLost(100, now: 10)
        #expect(lost == [.spawnPooled(kind: "item")], "replaced; nothing for the runtime")
        #expect(delivery.hosts[100] == nil)
        #expect(delivery.processExited(100, abnormally: true, now: 11).isEmpty)
        #expect(delivery.pooledSpawned(kind: "item", host: 102).isEmpty)
        #expect(delivery.pool.count(of: "item") == 2)
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func aDismissedScreenRetiresItsFormerlyPooledProcess() {
        var delivery = Self.pooled(1)
        let placed = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        _ = delivery.ack(Self.screen, serial: Self.sends(placed.actions)[0].1, from: 100)
        let dismissed = delivery.apply(.dismiss(Self.screen, animated: false, reason: .flowFinished), route: .attached, now: 1)
        let serial = Self.sends(dismissed.actions)[0].1
        let acked = delivery.ack(Self.screen, serial: serial, from: 100)
        #expect(acked.actions.contains(.retire(host: 100, reason: "its screen \(Self.screen) was dismissed")), "it exits as spawned processes do")
        #expect(!acked.actions.contains(.spawnPooled(kind: "item")), "the pool refilled when it was taken, not now")
    }

    @Test func aRestartGoesToAPooledProcess() {
        var delivery = Self.pooled(1)
        let placed = delivery.apply(Self.place(), route: .spawn(.standard), now: 0)
        _ = delivery.ack(Self.screen, serial: Self.sends(placed.actions)[0].1, from: 100)
        _ = delivery.pooledSpawned(kind: "item", host: 101)
        _ = delivery.hostJoined(101, provides: [], now: 1)
        _ = delivery.hostLost(100, now: 2)
        let restarted = delivery.processExited(100, abnormally: true, now: 3)
        #expect(restarted.contains(.tookPooled(Self.screen, kind: "item", host: 101)), "the replacement is already running")
        #expect(Self.sends(restarted).map(\.0) == [101], "the re-Place leaves at once")
        #expect(!restarted.contains(.spawn(Self.screen, kind: "item")))
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func stoppingThePoolStopsIdleProcessesAndLeavesScreensAlone() {
        var delivery = Self.pooled(2)
        _ = delivery.apply(Self.place(), route: .spawn(.never), now: 0)
        #expect(delivery.ack(Self.screen, serial: 1, from: 100).actions == [.spawnPooled(kind: "item")])
        #expect(delivery.stopPool() == [.stopPooled(host: 101)], "the idle one; host 100 shows a screen")
        #expect(delivery.hosts[100] != nil && delivery.hosts[101] == nil)
        #expect(delivery.pooledSpawned(kind: "item", host: 102) == [.stopPooled(host: 102)], "the refill answered late goes too")
        #expect(delivery.hostLost(101, now: 1).isEmpty, "a stopped process's goodbye replaces nothing")
        #expect(delivery.invariantViolations().isEmpty)
    }

    @Test func aPoolOfAKindThatCannotStartSuspends() {
        var delivery = ScreenDelivery(ackTimeout: 100)
        var actions = delivery.setPool("item", size: 1)
        var attempts = 0
        while actions.contains(.spawnPooled(kind: "item")) {
            attempts += 1
            actions = delivery.pooledSpawnFailed(kind: "item", now: 0)
        }
        #expect(attempts == SpawnPool.maxDeaths)
        #expect(actions == [.poolSuspended(kind: "item", deaths: SpawnPool.maxDeaths)])
    }
}
