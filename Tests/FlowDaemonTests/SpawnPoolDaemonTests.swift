import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// Warm pools of spawned kinds (docs/daemon.md, "Warm pools"), proved on the embedded daemon: the
/// same `Daemon` as `flowd`, its children fake processes the test speaks for.
@Suite("Warm pools")
struct SpawnPoolDaemonTests {
    typealias Body = Flowd_V1_Envelope.OneOf_Body
    static let ackAll = EmbeddedDaemonTests.ackAll
    static let press = EmbeddedDaemonTests.press
    static let places = SurvivalTests.places

    /// The deep-stack app (button 0 pushes an item) with every item spawned and a pool of `size`.
    static func pooledDeepStack(_ size: Int, restart: RestartPolicy = .never) throws -> EmbeddedDaemon {
        let app = try EmbeddedDaemonTests.app("deep-stack")
            .withAllScreens(.spawn(executable: "item-screen", restart: restart, pool: size), kinds: ["item"])
        return EmbeddedDaemon(app: app) { $0.exitWhenAppFinishes = false }
    }

    static func isShutdown(_ body: Body) -> Bool { if case .shutdown = body { true } else { false } }

    /// Pooled processes alive (not exited): never more than the pool's size.
    static func idlePooled(_ daemon: EmbeddedDaemon) -> [EmbeddedChild] {
        daemon.children.filter { $0.wasPooled && $0.screen == nil && !$0.hasExited && $0.retiredBecause == nil }
    }

    /// Starts the app with a pool of 2: the root item takes the first pooled process (still starting), the
    /// pool refills; returns the daemon, the root's process and its Place, every pooled process handshaken.
    static func started(_ size: Int = 2, restart: RestartPolicy = .never) throws -> (EmbeddedDaemon, EmbeddedChild, Flowd_V1_Place) {
        let daemon = try pooledDeepStack(size, restart: restart)
        #expect(daemon.children.allSatisfy { $0.wasPooled == (size > 0) }, "with a pool, every process starts pooled")
        let root = try #require(daemon.children.first { $0.screen != nil })
        let answer = root.connection.hello(role: .screenHost, name: "item-screen", token: root.token)
        let place = try #require(places(answer).first)
        ackAll(answer, root.connection)
        for child in idlePooled(daemon) {
            let welcome = child.connection.hello(role: .screenHost, name: "item-screen", token: child.token)
            #expect(welcome.count == 1, "an idle pooled process gets its Welcome and nothing else: \(welcome)")
        }
        #expect(idlePooled(daemon).count == size, "the pool refilled after the root took one")
        #expect(daemon.daemon.stats().pooledReady == UInt64(size))
        return (daemon, root, place)
    }

    @Test func aNewScreenGoesToAReadyPooledProcessInOnePlaceAndThePoolRefills() throws {
        let (daemon, root, rootPlace) = try Self.started()
        let spawnedBefore = daemon.children.count
        let ready = Self.idlePooled(daemon)
        Self.press(0, rootPlace.screenID, root.connection)
        Self.ackAll(root.connection.readBodies(), root.connection)  // covered by the push
        let takers = ready.filter { $0.screen != nil }
        try #require(takers.count == 1, "one pooled process took the pushed screen")
        let taker = takers[0]
        #expect(taker === ready[0], "the oldest ready one")
        let bodies = taker.connection.readBodies()
        let place = try #require(Self.places(bodies).first, "its Place came at once, with no handshake to wait for: \(bodies)")
        #expect(place.kind == "item" && place.serial == 1 && place.screenID == taker.screen?.rawValue)
        #expect(daemon.children.count == spawnedBefore, "no process starts while the user waits for the screen")
        Self.ackAll(bodies, taker.connection)
        #expect(daemon.children.count == spawnedBefore + 1, "one process spawned: the refill, once the screen was shown")
        #expect(daemon.children.last?.wasPooled == true && daemon.children.last?.screen == nil)
        let stats = daemon.daemon.stats()
        #expect(stats.poolHits == 2 && stats.poolMisses == 0, "the root and the push")
        #expect(stats.pooledReady == 1 && stats.pooledStarting == 1)
        #expect(stats.screens == 2 && stats.pendingAcks == 0)
        let tree = daemon.daemon.tree()
        #expect(tree.connections.filter { $0.pooledKind == "item" }.count == 2, "the tree names the idle pooled processes")
        #expect(tree.connections.first { $0.id == taker.connectionID }?.pooledKind == "", "a process with a screen is no longer pooled")
        #expect(daemon.daemon.invariantViolations().isEmpty)
    }

    @Test func aPooledProcessThatDiesBeforeUseIsReplacedAndThePoolNeverExceedsItsSize() throws {
        let (daemon, _, _) = try Self.started()
        var handshaken = Set(Self.idlePooled(daemon).map(\.connectionID))
        for round in 0..<5 {
            // Deaths further apart than the pool's window: each is replaced, however many.
            daemon.advanceTime(by: SpawnPool.deathWindow)
            let victim = try #require(Self.idlePooled(daemon).first)
            if round.isMultiple(of: 2) { victim.crash() } else {
                victim.connection.hangUp()
                victim.exit()
            }
            let idle = Self.idlePooled(daemon)
            #expect(idle.count == 2, "round \(round): replaced, and no more than the size")
            for child in idle where handshaken.insert(child.connectionID).inserted {
                _ = child.connection.hello(role: .screenHost, name: "item-screen", token: child.token)
            }
            #expect(daemon.daemon.stats().pooledReady + daemon.daemon.stats().pooledStarting <= 2)
        }
        #expect(daemon.daemon.stats().flows == 1 && daemon.daemon.stats().screens == 1, "no flow heard of it")
        #expect(daemon.daemon.invariantViolations().isEmpty)
    }

    @Test func aPoolWhoseProcessesCannotStartStopsRefilling() throws {
        let daemon = try Self.pooledDeepStack(1)
        let root = try #require(daemon.children.first)
        SurvivalTests.join(root)  // the root shows: the pool refills
        // Every pooled process dies before its handshake, as an executable that crashes at start-up.
        var deaths = 0
        while let next = Self.idlePooled(daemon).first {
            deaths += 1
            try #require(deaths < 20, "the pool respawns forever")
            next.crash()
        }
        #expect(deaths == SpawnPool.maxDeaths, "replaced until \(SpawnPool.maxDeaths) died within \(SpawnPool.deathWindow) ms")
    }

    @Test func aDismissedScreenEndsItsFormerlyPooledProcess() throws {
        let (daemon, root, rootPlace) = try Self.started(1)
        Self.press(0, rootPlace.screenID, root.connection)
        Self.ackAll(root.connection.readBodies(), root.connection)
        let taker = try #require(daemon.children.first { $0.wasPooled && $0.screen != nil && $0 !== root })
        let place = try #require(Self.places(taker.connection.readBodies()).first)
        taker.connection.ack(place.screenID, serial: place.serial)
        // The user goes back: the pushed item is dismissed.
        RestoreTests.back(place.screenID, from: taker.connection)
        let bodies = taker.connection.readBodies()
        Self.ackAll(bodies, taker.connection)
        let after = taker.connection.readBodies()
        let shutdown = after.lazy.compactMap { if case .shutdown(let s) = $0 { s } else { nil } }.first
        #expect(shutdown?.reason == .screenDismissed, "it exits as spawned processes do: \(bodies) \(after)")
        #expect(taker.retiredBecause != nil)
        #expect(Self.idlePooled(daemon).count == 1, "the pool is not refilled for it: it refilled when the screen took it")
    }

    @Test func aRestartedScreenGoesToAPooledProcess() throws {
        let (daemon, root, rootPlace) = try Self.started(1, restart: .standard)
        let spare = try #require(Self.idlePooled(daemon).first)
        root.crash()
        #expect(spare.screen?.rawValue == rootPlace.screenID, "the running spare took the crashed screen")
        let bodies = spare.connection.readBodies()
        let place = try #require(Self.places(bodies).first, "its re-Place came at once")
        #expect(place.screenID == rootPlace.screenID && place.serial > rootPlace.serial)
        #expect(Self.idlePooled(daemon).isEmpty, "not replaced before the screen is shown again")
        Self.ackAll(bodies, spare.connection)
        #expect(daemon.daemon.stats().screenRestarts == 1 && daemon.daemon.stats().flows == 1)
        #expect(Self.idlePooled(daemon).count == 1, "refilled")
    }

    @Test func shutdownStopsPooledProcessesAndSpawnsNoMore() throws {
        let (daemon, root, _) = try Self.started()
        let idle = Self.idlePooled(daemon)
        let spawned = daemon.children.count
        daemon.shutdown()
        for child in idle {
            let bodies = child.connection.readBodies()
            let shutdown = bodies.lazy.compactMap { if case .shutdown(let s) = $0 { s } else { nil } }.first
            #expect(shutdown?.reason == .daemonExiting, "\(bodies)")
            #expect(child.retiredBecause != nil, "made sure it exits")
        }
        Self.ackAll(root.connection.readBodies(), root.connection)
        for child in daemon.children where !child.hasExited {
            child.connection.hangUp()
            child.exit()
        }
        #expect(daemon.children.count == spawned, "nothing refilled during the shutdown")
        #expect(daemon.phase == .stopped)
        #expect(daemon.finish().isClean, "\(daemon.finish())")
    }

    @Test func withoutAPoolEveryScreenSpawnsItsOwnProcess() throws {
        let (daemon, _, _) = try Self.started(0)
        #expect(daemon.children.count == 1 && daemon.children[0].wasPooled == false)
        #expect(daemon.daemon.stats().pooledReady == 0 && daemon.daemon.stats().poolMisses == 0)
    }
}
