import FlowDaemon
import FlowDaemonTesting
import FlowWire
import FlowWireFuzzing

/// What a daemon restored from the journal must show: the shape of its tree (flows and navigation,
/// `TreeShape`: ids, types, owners, containers, visibility) and how many inputs it replays.
struct Committed: Sendable {
    /// nil: any tree the journal's commits led to (the app ended because its root screen was lost:
    /// the journal keeps its last commit before that iteration, which the program cannot see).
    var shape: [String]?
    var inputs: UInt64
    /// The screens the tree shows.
    var screens: Set<UInt64>

    /// What `daemon`'s journal holds now: its tree, and the inputs a restart replays (every input
    /// restored or committed since the journal's start or its checkpoint). Once
    /// the app ended the journal is cleared: then `fresh`, what a fresh start shows. Throws if inputs
    /// the daemon applied still wait for their commit (every loop iteration ends with one).
    init(_ daemon: EmbeddedDaemon, fresh: Committed?) throws(FuzzViolation) {
        let tree = daemon.daemon.tree()
        if case .ended(.screenLost)? = daemon.daemon.appOutcome {
            shape = nil
            inputs = tree.stats.journalInputs
            screens = []
            return
        }
        if let fresh, daemon.daemon.appOutcome != nil {
            self = fresh
            return
        }
        guard tree.stats.journalPending == 0 else {
            throw FuzzViolation("\(tree.stats.journalPending) inputs the daemon applied were not committed at the end of its loop iteration")
        }
        shape = TreeShape.lines(tree)
        inputs = tree.stats.journalInputs
        screens = Set(EmbeddedDaemonFuzzTarget.screenIDs(tree))
    }
}

extension EmbeddedDaemonFuzzTarget {
    /// The history's last moment (`GetHistory`, `GetMoment` on a debug connection) is what a restore
    /// must show, `committed`: the timeline replays the same records in a scratch runtime of its own.
    static func checkHistory(_ daemon: EmbeddedDaemon, committed: Committed) throws(FuzzViolation) {
        // A root screen lost: the journal holds a commit the program cannot see (`Committed.shape`).
        guard let committedShape = committed.shape else { return }
        let debug = daemon.connect()
        defer { debug.hangUp() }
        _ = debug.hello(role: .debug, name: "fuzz-history")
        var ask = Flowd_V1_GetHistory()
        ask.limit = 1
        _ = debug.send(.getHistory(ask))
        let answer = debug.readBodies().filter { if case .welcome = $0 { false } else { true } }
        // An app that finished has no history (its journal was cleared): that is said.
        if daemon.daemon.appOutcome != nil {
            guard case .error(let refusal)? = answer.first, refusal.message.contains("finished") else {
                throw FuzzViolation("GetHistory after the app finished was answered with \(answer.map(\.name))")
            }
            return
        }
        guard case .history(let history)? = answer.first else {
            throw FuzzViolation("GetHistory was answered with \(answer.map { body in if case .error(let e) = body { "Error: \(e.message)" } else { body.name } })")
        }
        guard history.stopped.isEmpty else { throw FuzzViolation("the history stops early: \(history.stopped)") }
        var get = Flowd_V1_GetMoment()
        get.index = history.count
        _ = debug.send(.getMoment(get))
        guard let moment = debug.readBodies().lazy.compactMap({ body -> Flowd_V1_Moment? in
            if case .moment(let moment) = body { moment } else { nil }
        }).first else {
            throw FuzzViolation("GetMoment \(history.count) was not answered with a Moment")
        }
        let shape = TreeShape.lines(moment.tree)
        if let difference = TreeShape.firstDifference(committedShape, shape) {
            throw FuzzViolation("""
                the history's last moment (\(history.count)) is not the committed tree: \(difference)
                committed:
                \(committedShape.joined(separator: "\n"))
                moment:
                \(shape.joined(separator: "\n"))
                """)
        }
    }

    /// Kills `daemon` and starts a new one on its journal, which must restore `committed` (and
    /// complete the dismissals the old one waited for: their hosts are gone). Returns it and the
    /// screens its tree shows.
    static func restore(_ daemon: EmbeddedDaemon, expecting committed: Committed) throws(FuzzViolation) -> (EmbeddedDaemon, Set<UInt64>) {
        let restored: EmbeddedDaemon
        do {
            restored = try daemon.crashAndRestore()
        } catch {
            throw FuzzViolation("the daemon did not start again on its journal: \(error)")
        }
        let tree = restored.daemon.tree()
        let shape = TreeShape.lines(tree)
        if let committedShape = committed.shape, let difference = TreeShape.firstDifference(committedShape, shape) {
            throw FuzzViolation("the restored tree is not the committed one: \(difference)\ncommitted:\n\(committedShape.joined(separator: "\n"))\nrestored:\n\(shape.joined(separator: "\n"))")
        }
        guard tree.stats.restoredInputs == committed.inputs else {
            throw FuzzViolation("the restore replayed \(tree.stats.restoredInputs) of the \(committed.inputs) committed inputs (the rest was moved aside?)")
        }
        guard restored.daemon.pendingDismissals == 0 else {
            throw FuzzViolation("after the restore \(restored.daemon.pendingDismissals) dismissals wait for hosts that went with the old daemon")
        }
        // Screens the delivery holds that the restored tree does not show, none of them in the committed tree either.
        let shown = Set(screenIDs(tree))
        let strays = restored.daemon.delivery.screens.keys.map(\.rawValue).filter { !shown.contains($0) }.sorted()
        if !strays.isEmpty, committed.screens.isDisjoint(with: strays) {
            throw FuzzViolation("""
                the restore placed screens \(strays), which the tree before the crash no longer had (lost): \
                \(restored.daemon.invariantViolations())
                """)
        }
        return (restored, shown)
    }

    /// Connects a peer to `daemon` for each of `peers` (their connections went with the crashed
    /// daemon); those whose handshake had finished say `Hello` again with the same role. With
    /// `presentingOldTokens`, screen hosts first try to resume with their old token, which the new
    /// daemon must refuse, then connect without it (as ScreenKit does). Every screen of `screens`
    /// (the restored tree's) is placed again: on the screen hosts that came back, or on a process
    /// spawned for it.
    static func reconnect(_ peers: [Peer], to daemon: EmbeddedDaemon, kinds: [String], presentingOldTokens: Bool,
                          screens: Set<UInt64>) throws(FuzzViolation) -> [Peer] {
        var reconnected: [Peer] = []
        /// What each peer that said `Hello` again was told (for a violation's message).
        var told: [(peer: Int, role: Flowd_V1_Role, answer: [Flowd_V1_Envelope.OneOf_Body])] = []
        for (index, old) in peers.enumerated() {
            var peer = Peer(daemon.connect())
            if let role = old.role {
                if role == .screenHost, presentingOldTokens, !old.resumeToken.isEmpty {
                    let answer = peer.connection.hello(role: .screenHost, name: "fuzz-\(index)", provides: kinds, resumeToken: old.resumeToken)
                    guard answer.contains(where: { if case .error(let e) = $0 { e.code == .resumeRefused } else { false } }) else {
                        throw FuzzViolation("a resume token of the crashed daemon was not refused: \(answer)")
                    }
                    peer.connection.hangUp()
                    peer = Peer(daemon.connect())
                }
                let answer = peer.connection.hello(role: role, name: "fuzz-\(index)", provides: role == .debug ? [] : kinds)
                told.append((index, role, answer))
                peer.welcomed(answer, as: role)
            }
            reconnected.append(peer)
        }
        let spawnedFor = Set(daemon.children.filter { !$0.hasExited }.compactMap { $0.screen?.rawValue })
        let placed = Set(reconnected.flatMap(\.screens)).union(spawnedFor)
        let hostCameBack = reconnected.contains { $0.role == .screenHost }
        if hostCameBack || !spawnedFor.isEmpty, !screens.isSubset(of: placed) {
            throw FuzzViolation("""
                screens \(screens.subtracting(placed).sorted()) of the restored tree were not placed again; the tree:
                \(TreeShape.lines(daemon.daemon.tree()).joined(separator: "\n"))
                \(told.map { "peer \($0.peer) (\($0.role)) was told \($0.answer)" }.joined(separator: "\n"))
                """)
        }
        return reconnected
    }

    /// The ids of the screens a tree's navigation shows.
    static func screenIDs(_ tree: Flowd_V1_Tree) -> [UInt64] {
        var found: [UInt64] = []
        func walk(_ node: Flowd_V1_NavNode) {
            if node.kind == .screen { found.append(node.id) }
            node.children.forEach(walk)
            if node.hasPresented { walk(node.presented) }
        }
        if tree.hasWindow { walk(tree.window) }
        return found
    }
}
