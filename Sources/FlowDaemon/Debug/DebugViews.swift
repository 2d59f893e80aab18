import FlowApp
import FlowKit
import FlowWire
import Foundation

/// What debug clients ask to see — `Stats`, `Tree`, the app's contract — read from the parts that
/// know it. A view: it holds nothing and changes nothing; each part it reads is passed in.
enum DebugViews {
    /// The parts a view reads, borrowed for the one call.
    struct Sources {
        let appName: String
        let runtime: FlowRuntime?
        let delivery: ScreenDelivery
        let connections: ConnectionTable
        let hosts: Hosts
        let persistence: Persistence
        let debug: DebugSurface
        let openHandles: Int
    }

    /// The debug counters: they return to their starting values once everything a client caused
    /// has been unwound.
    static func stats(_ parts: Sources) -> Flowd_V1_Stats {
        var stats = Flowd_V1_Stats()
        stats.flows = UInt64(parts.runtime?.liveFlowCount ?? 0)
        stats.screens = UInt64(parts.runtime?.liveScreenCount ?? 0)
        stats.connections = UInt64(parts.connections.count)
        stats.childProcesses = UInt64(parts.hosts.processCount)
        stats.openDescriptors = UInt64(max(0, ResourceLimits.openDescriptorCount()))
        stats.libuvHandles = UInt64(parts.openHandles)
        stats.pendingAcks = UInt64(parts.delivery.pendingAckCount)
        stats.eventsSent = parts.debug.events.sent
        let counts = parts.hosts.counts
        stats.screenRestarts = counts.screenRestarts
        stats.restartsGivenUp = counts.restartsGivenUp
        stats.hostsResumed = counts.hostsResumed
        stats.resumesExpired = counts.resumesExpired
        stats.hostsHung = counts.hostsHung
        stats.screensHeld = UInt64(parts.delivery.heldScreenCount)
        stats.journaledInputs = UInt64(parts.persistence.journal?.committed ?? 0)
        stats.restoredInputs = UInt64(parts.persistence.restoredInputs)
        stats.journalPending = UInt64(parts.persistence.journal?.pendingCount ?? 0)
        let contract = parts.debug.contract
        stats.unknownKindsOffered = contract.unknownKindsOffered
        stats.screensWithoutHost = contract.screensWithoutHost
        stats.commandsRefused = contract.commandsRefused
        let pool = parts.delivery.pool
        stats.pooledReady = UInt64(pool.readyCount)
        stats.pooledStarting = UInt64(pool.startingCount)
        stats.poolHits = pool.hits
        stats.poolMisses = pool.misses
        stats.unchangedUpdates = parts.runtime?.unchangedUpdates ?? 0
        stats.placeCarriedOver = parts.persistence.placeCarriedOver
        stats.journalArchive = parts.persistence.journalArchive
        stats.carriedOver = parts.persistence.carriedOver
        let compaction = parts.persistence.compaction
        stats.journalCheckpoints = UInt64(compaction.taken)
        stats.journalCheckpointsRefused = UInt64(compaction.refused)
        stats.lastCheckpointRefusal = compaction.lastRefusal
        stats.journalBytes = UInt64(parts.persistence.journal?.journal.size ?? 0)
        stats.journalInputs = UInt64(parts.persistence.journal?.held ?? 0)
        return stats
    }

    /// A snapshot of flows, navigation and connections, for `flowctl tree`.
    static func tree(_ parts: Sources) -> Flowd_V1_Tree {
        var tree = Flowd_V1_Tree()
        tree.app = parts.appName
        tree.stats = stats(parts)
        tree.lastEventSeq = parts.debug.events.lastSeq
        tree.connections = parts.connections.all.map { connectionInfo($0, delivery: parts.delivery, hosts: parts.hosts) }
        guard let runtime = parts.runtime else { return tree }
        let snapshot = runtime.debugTree()
        if let root = snapshot.wireRootFlow() { tree.rootFlow = root }
        // Only the two parts a screen's line reads, borrowed: not the whole `Sources` per screen.
        let (delivery, connections) = (parts.delivery, parts.connections)
        tree.window = snapshot.wireWindow { screenInfo($0, $1, delivery: delivery, connections: connections) }
        tree.otherWindows = snapshot.wireOtherWindows { screenInfo($0, $1, delivery: delivery, connections: connections) }
        tree.setPlaces(of: runtime)
        if let displays = runtime.displays {
            tree.displays = Flowd_V1_DisplayList.with { $0.displays = displays.map(Flowd_V1_ProvidedDisplay.init) }
        }
        return tree
    }

    /// The app's screen contract, for `Describe` (`flowctl describe`).
    static func contract(of app: FlowApp.App?, appName: String) -> Flowd_V1_AppContract {
        var reply = Flowd_V1_AppContract()
        reply.app = appName
        let contract = app.map { AppContract($0).json } ?? .object(["app": .string(appName), "screens": .array([])])
        reply.contract = .json(Data(contract.text.utf8))
        return reply
    }

    private static func screenInfo(_ id: ScreenID, _ info: DebugTree.NodeInfo, delivery: ScreenDelivery, connections: ConnectionTable) -> Flowd_V1_ScreenInfo {
        var screen = Flowd_V1_ScreenInfo()
        let delivered = delivery.screens[id]
        screen.kind = info.screenKind ?? delivered?.kind ?? ""
        screen.flowID = info.owner?.rawValue ?? 0
        screen.visible = info.placement?.isVisible ?? false
        if let delivered {
            screen.lastSerial = delivered.serials.lastSent
            screen.ackedSerial = delivered.serials.acked
            screen.dismissing = delivered.isDismissing
            screen.restarts = delivered.restarts
            screen.delivery = delivered.phase.summary
            if let hostID = delivered.host {
                screen.connectionID = hostID
                if let host = connections[hostID] {
                    screen.hostName = host.agreement?.name ?? ""
                    screen.pid = host.peerPID
                }
            }
        }
        return screen
    }

    /// The audit log, oldest first (`GetTree {audit: true}`).
    static func audit(_ parts: Sources) -> [Flowd_V1_AuditEntry] { parts.hosts.auditEntries.map(\.wire) }

    private static func connectionInfo(_ connection: Connection, delivery: ScreenDelivery, hosts: Hosts) -> Flowd_V1_ConnectionInfo {
        var info = Flowd_V1_ConnectionInfo()
        info.id = connection.id
        info.pid = connection.peerPID
        info.identity = hosts.identity(of: connection.id).wire
        info.writeQueueBytes = UInt64(connection.pendingBytes)
        if case .spawned = connection.protocolState.origin { info.spawned = true }
        if let member = delivery.pool.members[connection.id] { info.pooledKind = member.kind }
        if let agreement = connection.agreement {
            info.role = agreement.role.name
            if agreement.role == .debug { info.debugPower = hosts.debugPower(of: connection.id).map { "\($0)" } ?? "" }
            info.name = agreement.name
            info.provides = agreement.provides
            info.screens = UInt32(delivery.hosts[connection.id]?.screens.count ?? 0)
        } else {
            info.role = "handshaking"
        }
        return info
    }
}
