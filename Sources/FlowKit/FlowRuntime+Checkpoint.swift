import Foundation

/// The counters a runtime hands its ids out from: what a runtime rebuilt from a checkpoint continues
/// from, so that the inputs after the checkpoint get the ids they got the first time.
package struct IDCounters: Equatable, Sendable {
    /// The natural id of the next flow, node and request.
    package var flow: UInt64
    package var node: UInt64
    package var request: UInt64

    package init(flow: UInt64, node: UInt64, request: UInt64) {
        (self.flow, self.node, self.request) = (flow, node, request)
    }
}

/// The ids a runtime hands out while it rebuilds a checkpoint (docs/restore.md, "Long sessions"). A
/// fresh runtime that opens the user's place numbers its flows and nodes 1, 2, 3…; the live runtime
/// got there over a long history, with other numbers. Each map turns the fresh runtime's natural id
/// into the live one, so that the rebuilt tree has the live ids — the ids hosts know and the
/// journal's checks name. What a map does not name (a flow or node made and gone again during the
/// rebuild) gets an id above every live one (`transient`), which no host ever sees.
package struct IDAssignment: Equatable, Sendable {
    package var flows: [UInt64: UInt64]
    package var nodes: [UInt64: UInt64]

    package init(flows: [UInt64: UInt64], nodes: [UInt64: UInt64]) {
        (self.flows, self.nodes) = (flows, nodes)
    }

    /// Where ids of what the rebuild makes and removes again start: far above any count a live
    /// runtime reaches, and exact in a JavaScript number.
    package static let transientBase: UInt64 = 1 << 48

    static func transient(_ natural: UInt64) -> UInt64 { transientBase + natural }
}

/// Everything of a runtime a checkpoint must give back: the navigation model node by node (kinds,
/// parents, children, modals, owners, selected tabs, the placements last reported), every flow (type,
/// parent, sub-flows, screens, first screen, phase, whether its parent started it while starting),
/// every screen's kind and state bytes, the outstanding requests, and the back gesture. A rebuilt
/// runtime whose image equals the live one's shows the same tree to every host and decides alike on
/// everything FlowKit keeps; only what the flows keep in their own fields is beyond it.
package struct RuntimeImage: Equatable {
    package struct Flow: Equatable {
        var id: FlowID
        var typeName: String
        var parent: FlowID?
        var children: [FlowID]
        var screens: [ScreenID]
        var initialScreen: ScreenID?
        var phase: FlowController.Phase
        var isStructural: Bool
    }

    package struct Screen: Equatable {
        var kind: String
        var state: Data
        var stateType: String
        var outputType: String
    }

    package struct OtherWindow: Equatable {
        var window: NodeID
        var display: String
    }

    /// The host first, then the flows by id.
    var flows: [Flow]
    var nodes: [NodeID: NavigationModel.Node]
    var screens: [ScreenID: Screen]
    var front: NodeID?
    var frontAtCommit: NodeID?
    /// The windows flows opened beside the main one, oldest first: each window node and its display.
    var otherWindows: [OtherWindow]
    var otherFrontsAtCommit: [NodeID]
    var requests: [RequestID]
    var pendingDismissals: [ScreenID]
    var backGesture: NodeID?

    /// The assignment that gives this image's ids (a fresh runtime's, numbered naturally) the ids of
    /// `live`, pairing flows and nodes by their place in the two trees; or why no assignment can (the
    /// trees differ in shape or kind, or the pairing would change the order of the ids, which decides
    /// which flow is the newest, what unwinds first and how a debug tree lists them).
    package func assignment(toMatch live: RuntimeImage) -> Result<IDAssignment, CheckpointMismatch> {
        var flowPairs: [UInt64: UInt64] = [:]
        var nodePairs: [UInt64: UInt64] = [:]
        let mine = Dictionary(uniqueKeysWithValues: flows.map { ($0.id, $0) })
        let theirs = Dictionary(uniqueKeysWithValues: live.flows.map { ($0.id, $0) })
        var pending: [(FlowID, FlowID)] = [(.host, .host)]
        while let (a, b) = pending.popLast() {
            guard let flow = mine[a], let other = theirs[b] else { return .failure(.init("flow \(b) is missing")) }
            guard flow.typeName == other.typeName else {
                return .failure(.init("flow \(b) is a \(other.typeName), the place opens a \(flow.typeName)"))
            }
            guard flow.children.count == other.children.count else {
                return .failure(.init("\(other.typeName) \(b) runs \(other.children.count) sub-flows, the place opens \(flow.children.count)"))
            }
            if a != .host { flowPairs[a.rawValue] = b.rawValue }
            pending += zip(flow.children, other.children).map { ($0, $1) }
        }
        guard otherWindows.map(\.display) == live.otherWindows.map(\.display) else {
            return .failure(.init("the live windows are on \(Self.displays(live.otherWindows)), the place opens \(Self.displays(otherWindows))"))
        }
        var nodesPending: [(NodeID, NodeID)] = [(.window, .window)] + zip(otherWindows, live.otherWindows).map { ($0.window, $1.window) }
        while let (a, b) = nodesPending.popLast() {
            guard let node = nodes[a], let other = live.nodes[b] else { return .failure(.init("node \(b) is missing")) }
            guard node.kind == other.kind, screens[a]?.kind == live.screens[b]?.kind else {
                return .failure(.init("node \(b) is a \(live.screens[b]?.kind ?? "\(other.kind)"), the place opens a \(screens[a]?.kind ?? "\(node.kind)")"))
            }
            guard node.children.count == other.children.count, (node.modal == .none) == (other.modal == .none) else {
                return .failure(.init("node \(b) holds other content than the place opens"))
            }
            if a != .window || b != .window { nodePairs[a.rawValue] = b.rawValue }
            for (x, y) in zip(node.children, other.children) {
                guard (x == .none) == (y == .none) else { return .failure(.init("a tab of node \(b) is filled differently")) }
                if x != .none { nodesPending.append((x, y)) }
            }
            if node.modal != .none { nodesPending.append((node.modal, other.modal)) }
        }
        for (name, pairs) in [("flows", flowPairs), ("nodes", nodePairs)] {
            let ordered = pairs.sorted { $0.key < $1.key }.map(\.value)
            guard zip(ordered, ordered.dropFirst()).allSatisfy({ $0 < $1 }) else {
                return .failure(.init("the live \(name) were made in another order than the place opens them"))
            }
        }
        return .success(IDAssignment(flows: flowPairs, nodes: nodePairs))
    }

    /// `[customer, rear]`, or `no other window`.
    private static func displays(_ windows: [OtherWindow]) -> String {
        windows.isEmpty ? "no other window" : "[" + windows.map(\.display).joined(separator: ", ") + "]"
    }

    /// The first difference from `other`, said for a log line (nil: none).
    package func difference(from other: RuntimeImage) -> String? {
        if flows != other.flows {
            for (a, b) in zip(flows, other.flows) where a != b { return "flow \(b.id) (\(b.typeName)) differs" }
            return "\(other.flows.count - 1) flows run, the place opens \(flows.count - 1)"
        }
        if otherWindows != other.otherWindows {
            return "the live windows are on \(Self.displays(other.otherWindows)), the place opens \(Self.displays(otherWindows))"
        }
        if nodes != other.nodes {
            let differing = Set(nodes.keys).symmetricDifference(other.nodes.keys).min()
                ?? nodes.keys.filter { nodes[$0] != other.nodes[$0] }.min()
            return "node \(differing.map { "\($0)" } ?? "?") differs"
        }
        if screens != other.screens {
            let screen = screens.keys.filter { screens[$0] != other.screens[$0] }.min()
            return "screen \(screen.map { "\($0)" } ?? "?")'s state differs (a flow keeps something the place does not name)"
        }
        if requests != other.requests { return "the outstanding requests differ" }
        if pendingDismissals != other.pendingDismissals { return "the dismissals in flight differ" }
        if front != other.front || frontAtCommit != other.frontAtCommit || otherFrontsAtCommit != other.otherFrontsAtCommit {
            return "the visible screen differs"
        }
        if backGesture != other.backGesture { return "a back gesture is in progress" }
        return nil
    }
}

/// Why a checkpoint of the live runtime cannot be taken: said in the log, and the history is kept.
package struct CheckpointMismatch: Error, Equatable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// What a runtime rebuilding a checkpoint gives out: the live ids and each flow's memento.
struct Rebuilding {
    /// How a started flow gets its id: from the assignment, or paired with a live flow.
    enum FlowIDs {
        /// The checkpoint's assignment, natural id to live id.
        case assigned([UInt64: UInt64])
        /// While the assignment is being found: the live flows under each parent, oldest first, as
        /// `(type name, id)`; a flow takes the oldest live one of its type under its parent not
        /// taken yet, so it gets its memento back as it starts.
        case paired([FlowID: [(String, FlowID)]])
        /// Carrying mementos from another version of the app: the ids are the natural ones.
        case natural
    }

    var flowIDs: FlowIDs
    /// Mementos by (live) flow id, removed as they are given.
    var mementos: [FlowID: Data]
    /// Mementos that did not decode, said for the log.
    var failures: [String] = []
    /// The id each natural id took.
    var chosen: [UInt64: UInt64] = [:]
    /// Mementos another version of the app left, by the flow's key, removed as they are given.
    var carried: [String: CarriedMemento] = [:]
    /// What became of them so far.
    var report = CarryReport()

    mutating func flowID(natural: UInt64, parent: FlowID, typeName: String) -> FlowID {
        let id: UInt64
        switch flowIDs {
        case .assigned(let flows):
            id = flows[natural] ?? IDAssignment.transient(natural)
        case .natural:
            id = natural
        case .paired(var live):
            if let index = live[parent]?.firstIndex(where: { $0.0 == typeName }) {
                id = live[parent]![index].1.rawValue
                live[parent]!.remove(at: index)
                flowIDs = .paired(live)
            } else {
                id = IDAssignment.transient(natural)
            }
        }
        chosen[natural] = id
        return FlowID(rawValue: id)
    }
}

extension FlowRuntime {
    /// The screens placed now, by id (scans them: for an upgrade's start, not the hot path).
    package var screenIDs: [ScreenID] { Array(screens.keys) }

    /// The counters the next ids come from.
    package var idCounters: IDCounters {
        IDCounters(flow: nextFlow, node: model.nextID, request: nextRequest)
    }

    /// Begins rebuilding a checkpoint on this fresh runtime: until `endRebuild`, flows and nodes get
    /// the ids `assignment` gives, and a flow that starts with an id in `mementos` gets its memento
    /// back right after its `start` (`LinkHandling.restore`).
    package func beginRebuild(_ assignment: IDAssignment, mementos: [FlowID: Data] = [:]) {
        rebuilding = Rebuilding(flowIDs: .assigned(assignment.flows), mementos: mementos)
        model.assignedIDs = assignment.nodes
    }

    /// Begins finding a checkpoint's assignment on this fresh runtime: each flow that starts takes the
    /// id of a live flow of `live` (its type, under its parent) and gets that flow's memento back;
    /// nodes are numbered naturally. `chosenFlowIDs` says which natural id took which.
    package func beginRebuild(pairingFlowsWith live: RuntimeImage, mementos: [FlowID: Data]) {
        var children: [FlowID: [(String, FlowID)]] = [:]
        for flow in live.flows where flow.id != .host {
            children[flow.parent ?? .host, default: []].append((flow.typeName, flow.id))
        }
        rebuilding = Rebuilding(flowIDs: .paired(children), mementos: mementos)
    }

    /// The id each natural flow id took during this rebuild.
    package var chosenFlowIDs: [UInt64: UInt64] { rebuilding?.chosen ?? [:] }

    /// Ends a rebuild: ids are counted again, from `counters` (the live runtime's at the checkpoint).
    /// Returns what went wrong with the mementos: one that did not decode, or whose flow never started.
    package func endRebuild(counters: IDCounters) -> [String] {
        var problems = rebuilding?.failures ?? []
        for id in (rebuilding?.mementos.keys).map(Array.init)?.sorted() ?? [] { problems.append("no flow \(id) started to take its memento") }
        rebuilding = nil
        model.assignedIDs = nil
        nextFlow = counters.flow
        model.nextID = counters.node
        nextRequest = counters.request
        return problems
    }

    /// Begins carrying `mementos`, which another version of the app left at a stop, on this fresh
    /// runtime: until `endCarrying`, a flow that starts where one of them was (`carryKey(of:)`) takes it
    /// back right after its `start` returns, decoded or migrated (`LinkHandling.mementoMigrations`).
    /// Ids are numbered as usual.
    package func beginCarrying(_ mementos: [CarriedMemento]) {
        rebuilding = Rebuilding(flowIDs: .natural, mementos: [:])
        rebuilding?.carried = Dictionary(mementos.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Ends carrying: what was given back, what was refused and why, and what no flow started to take.
    package func endCarrying() -> CarryReport {
        var report = rebuilding?.report ?? CarryReport()
        report.unclaimed = (rebuilding?.carried.keys).map { $0.sorted() } ?? []
        rebuilding = nil
        return report
    }

    /// The mementos of the running flows that keep one, each named by the flow's place among the
    /// flows, for the app's next version (a stop leaves them). Throws when one does not encode.
    package func carriedMementos() throws -> [CarriedMemento] {
        var found: [CarriedMemento] = []
        for flow in controllers.values.sorted(by: { $0.id < $1.id }) where flow.isRunning {
            if let (version, data) = try flow.carriedMemento() {
                found.append(CarriedMemento(key: carryKey(of: flow), version: version, data: data))
            }
        }
        return found
    }

    /// A flow's place among the flows, the same in every version whose flows have the same names and
    /// link ids: each flow from the root as its type name, `[linkID]` when it has one, and `#N` when it
    /// is the Nth running sibling of that name (`LauncherFlow/StudentsFlow/EditStudentFlow[Bob]`).
    func carryKey(of flow: FlowController) -> String {
        var parts: [String] = []
        var current: FlowController? = flow
        while let node = current, node.id != .host {
            let name = Self.keySegment(of: node)
            let earlier = node.parent?.children.values.filter { $0.id < node.id && $0.isRunning && Self.keySegment(of: $0) == name }.count ?? 0
            parts.append(earlier == 0 ? name : "\(name)#\(earlier + 1)")
            current = node.parent
        }
        return parts.reversed().joined(separator: "/")
    }

    private static func keySegment(of flow: FlowController) -> String {
        guard let id = flow.linkIdentity?.id, !id.isEmpty else { return flow.typeName }
        return "\(flow.typeName)[\(id)]"
    }

    /// A screen's place for the app's next version: its owner's `carryKey`, its kind and which of the
    /// owner's live screens of that kind it is (`LauncherFlow/LoginFlow:login#1`). Nil when it is gone.
    package func carryKey(ofScreen screen: ScreenID) -> String? {
        guard let kind = readRecord(screen, { $0.outlet.kind }), let owner = model[screen]?.owner,
              let flow = controller(owner) else { return nil }
        let same = flow.liveItems.filter { readRecord($0, { $0.outlet.kind }) == kind }
        let index = (same.firstIndex(of: screen) ?? 0) + 1
        return "\(owner == .host ? "" : carryKey(of: flow)):\(kind)#\(index)"
    }

    /// Gives a flow just started during a rebuild its memento.
    func restoreMemento(of flow: FlowController) {
        if rebuilding?.carried.isEmpty == false {
            let key = carryKey(of: flow)
            guard let carried = rebuilding?.carried.removeValue(forKey: key) else { return }
            do throws(MementoRefused) {
                try flow.restoreCarried(carried.data, version: carried.version)
                rebuilding?.report.carried.append(key)
            } catch {
                rebuilding?.report.refused.append(CarryReport.Refusal(key: key, reason: error.description))
            }
            return
        }
        guard let data = rebuilding?.mementos.removeValue(forKey: flow.id) else { return }
        do {
            try flow.restoreMemento(data)
        } catch {
            rebuilding?.failures.append("the memento of \(flow.typeName) \(flow.id) does not decode: \(error)")
        }
    }

    /// The mementos of the running flows that keep one, by id (`LinkHandling.memento`). Throws when
    /// one does not encode.
    package func mementos() throws -> [FlowID: Data] {
        var found: [FlowID: Data] = [:]
        for flow in controllers.values where flow.isRunning {
            if let data = try flow.encodedMemento() { found[flow.id] = data }
        }
        return found
    }

    /// The running flows that do not handle links, as `Type id`: they have not said what their place
    /// and memento are, so no checkpoint can stand for their state.
    package var flowsNotHandlingLinks: [String] {
        controllers.values.filter { !$0.handlesLinks }.sorted { $0.id < $1.id }.map { "\($0.typeName) \($0.id)" }
    }

    /// Whether nothing is in flight: no dismissal waited for, no request outstanding, no back gesture
    /// begun. Only then is the state a checkpoint can hold all of the runtime's.
    package var isQuiet: Bool {
        dismissals.isEmpty && requests.isEmpty && backGesture == nil && !hasEffects
    }

    /// The runtime's image (scans everything: for checkpoints and tests, not the hot path).
    package func image() -> RuntimeImage {
        let flows = [host] + controllers.values.sorted { $0.id < $1.id }
        return RuntimeImage(
            flows: flows.map { flow in
                RuntimeImage.Flow(id: flow.id, typeName: flow.typeName, parent: flow.id == .host ? nil : (flow.parent?.id ?? .host),
                                  children: flow.children.keys.sorted(), screens: flow.liveItems, initialScreen: flow.initialScreen,
                                  phase: flow.phase, isStructural: flow.isStructural)
            },
            nodes: model.nodes.mapValues { $0 },
            screens: screens.mapValues { record in
                RuntimeImage.Screen(kind: record.outlet.kind, state: record.state,
                                    stateType: record.contentTypes.state, outputType: record.contentTypes.output)
            },
            front: model.front(), frontAtCommit: model.frontAtCommit,
            otherWindows: model.otherWindows.map { RuntimeImage.OtherWindow(window: $0.window, display: $0.display) },
            otherFrontsAtCommit: model.otherFrontsAtCommit,
            requests: requests.keys.sorted(), pendingDismissals: dismissals.keys.sorted(), backGesture: backGesture)
    }
}
