import FlowApp
import Foundation
import FlowJournal
import FlowKit

/// A checkpoint by place: everything a restore needs instead of the history before it
/// (docs/restore.md, "Long sessions"). The app's fresh start, with the user's place opened as a link
/// through the real flows, arrives at the live tree — checked when the checkpoint is taken — so the
/// history that led there can go. What the fresh start numbers differently, `assignment` numbers as
/// the live runtime did; the counters, the placement check and the keys of the latest inputs carry on
/// from the live daemon's, so the inputs after the checkpoint replay as they were journaled.
///
/// The journal's record kind 65, the first record of a compacted journal (docs/journal.md).
struct Checkpoint: Equatable {
    /// The record kind (input kinds stay below 64; 64 is the place).
    static let kind: Int64 = 65
    /// The layout of the body; a body of another layout does not restore. Layout 1 (no window
    /// places) still does.
    static let layout: UInt64 = 2

    /// The place's link text ("": the app's start, no link opened).
    var place: String
    /// The link text of the place in each window a flow opened beside the main one, oldest window
    /// first ("": no link names it); opened after `place`, in order.
    var windowPlaces: [String]
    /// The place as the journal's place record holds it (`PlaceText`).
    var placeText: String { PlaceText.joined([place] + windowPlaces) }
    /// Where the live runtime's counters were.
    var counters: IDCounters
    /// The live ids of what the fresh start makes.
    var assignment: IDAssignment
    /// The journal's placement check at the checkpoint.
    var check: Int64
    /// The keys of the latest inputs applied, oldest first.
    var appliedKeys: [UInt64]
    /// The mementos of the flows that keep one (`LinkHandling.memento`), by live id.
    var mementos: [FlowID: Data]

    /// Takes a checkpoint of `live`, which runs `app`, is quiet and runs only flows that handle links
    /// (the others have not said what their place is), at the user's place. A fresh runtime opens the
    /// place with each flow paired with its live kin as it starts (its id and memento) and gives the
    /// nodes' assignment by their place in the tree; a second fresh runtime rebuilt with the
    /// assignment — the rebuild a restore does — must equal the live one in everything FlowKit keeps
    /// (`RuntimeImage`). Fails, changing nothing, with the first difference.
    static func take(of live: FlowRuntime, app: FlowApp.App, check: Int64, appliedKeys: AppliedKeys) -> Result<Checkpoint, CheckpointMismatch> {
        guard live.isQuiet else { return .failure(CheckpointMismatch("something is in flight")) }
        // A flow's fields beyond what its screens show are only its place and its memento if it said so.
        if let flow = live.flowsNotHandlingLinks.first {
            return .failure(CheckpointMismatch("\(flow) does not handle links, so its place and memento cannot stand for it"))
        }
        let place = live.place?.description ?? ""
        let windowPlaces = live.windowPlaces.map { $0.link?.description ?? "" }
        let target = live.image()
        let mementos: [FlowID: Data]
        do {
            mementos = try live.mementos()
        } catch {
            return .failure(CheckpointMismatch("a flow's memento does not encode: \(error)"))
        }
        var checkpoint = Checkpoint(place: place, windowPlaces: windowPlaces, counters: live.idCounters, assignment: IDAssignment(flows: [:], nodes: [:]),
                                    check: check, appliedKeys: appliedKeys.oldestFirst, mementos: mementos)
        var buffer: [RuntimeEffect] = []
        let drop: (FlowRuntime) -> Void = { $0.settle(reusing: &buffer) { _ in } }
        do throws(CheckpointMismatch) {
            // First the assignment: flows take the live ids of their kin (and their mementos) as they
            // start; the nodes, numbered naturally, are paired with the live ones by their place.
            let natural = FlowRuntime()
            natural.reportsFlowEvents = false
            natural.beginRebuild(pairingFlowsWith: target, mementos: mementos)
            var opened: CheckpointMismatch?
            do throws(CheckpointMismatch) { try checkpoint.open(app, on: natural, settle: drop) } catch { opened = error }
            let chosen = natural.chosenFlowIDs
            _ = natural.endRebuild(counters: natural.idCounters)
            if let opened { throw opened }
            let pairing = try natural.image().assignment(toMatch: target).get()
            guard pairing.flows.allSatisfy({ $0.key == $0.value }) else {
                throw CheckpointMismatch("the place starts its flows under other parents than the live ones")
            }
            let flows = chosen.filter { $0.value < IDAssignment.transientBase }
            let ordered = flows.sorted { $0.key < $1.key }.map(\.value)
            guard zip(ordered, ordered.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw CheckpointMismatch("the live flows were started in another order than the place starts them")
            }
            checkpoint.assignment = IDAssignment(flows: flows, nodes: pairing.nodes)
            let rebuilt = FlowRuntime()
            rebuilt.reportsFlowEvents = false
            try checkpoint.rebuild(app, on: rebuilt, settle: drop)
            if let difference = rebuilt.image().difference(from: target) { throw CheckpointMismatch(difference) }
        } catch {
            return .failure(error)
        }
        return .success(checkpoint)
    }

    /// Rebuilds the checkpoint on `runtime`, a fresh one: the app starts, the place opens with the
    /// live ids, each flow takes its memento back as it starts, and the counters carry on from the
    /// live ones. `settle` takes the effects (a restore places the screens from them).
    func rebuild(_ app: FlowApp.App, on runtime: FlowRuntime, settle: (FlowRuntime) -> Void) throws(CheckpointMismatch) {
        runtime.beginRebuild(assignment, mementos: mementos)
        var failure: CheckpointMismatch?
        do throws(CheckpointMismatch) { try open(app, on: runtime, settle: settle) } catch { failure = error }
        let problems = runtime.endRebuild(counters: counters)
        if let failure { throw failure }
        if let problem = problems.first { throw CheckpointMismatch(problem) }
    }

    /// Starts the app on `runtime` and opens the place, then each window's, one segment more at a
    /// time: each flow on the way has started, and taken its memento back, before it plans its part —
    /// as it had when the user went there (a student renamed: the list routes the new name).
    private func open(_ app: FlowApp.App, on runtime: FlowRuntime, settle: (FlowRuntime) -> Void) throws(CheckpointMismatch) {
        app.start(runtime)
        settle(runtime)
        for text in [place] + windowPlaces where !text.isEmpty {
            do {
                let link = try Link(parsing: text)
                for count in 1...link.segments.count {
                    let whole = count == link.segments.count
                    try runtime.open(Link(Array(link.segments.prefix(count)), query: whole ? link.query : []))
                    settle(runtime)
                }
            } catch {
                throw CheckpointMismatch("the place \(text) does not open: \(error)")
            }
        }
    }

    // MARK: The record

    /// The record's body: the layout, the place, the window places (count, then each), the counters, the check, the assignment's pairs, the
    /// keys and the mementos (flow id, length, JSON), as unsigned LEB128 varints (strings with their length first).
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64) { JournalBatch.appendVarint(value, to: &bytes) }
        put(Self.layout)
        put(UInt64(place.utf8.count))
        bytes += place.utf8
        put(UInt64(windowPlaces.count))
        for text in windowPlaces {
            put(UInt64(text.utf8.count))
            bytes += text.utf8
        }
        put(counters.flow)
        put(counters.node)
        put(counters.request)
        put(UInt64(bitPattern: check))
        for pairs in [assignment.flows, assignment.nodes] {
            put(UInt64(pairs.count))
            for (natural, live) in pairs.sorted(by: { $0.key < $1.key }) {
                put(natural)
                put(live)
            }
        }
        put(UInt64(appliedKeys.count))
        for key in appliedKeys { put(key) }
        put(UInt64(mementos.count))
        for (flow, data) in mementos.sorted(by: { $0.key < $1.key }) {
            put(flow.rawValue)
            put(UInt64(data.count))
            bytes += data
        }
        return bytes
    }

    /// Reads a record's body; throws what is wrong with it.
    init(decoding body: [UInt8]) throws(CheckpointMismatch) {
        var reader = JournalBatch.Reader(bytes: body)
        func next() throws(CheckpointMismatch) -> UInt64 {
            guard let value = reader.varint() else { throw CheckpointMismatch("the checkpoint record is cut short") }
            return value
        }
        let layout = try next()
        guard layout == 1 || layout == Self.layout else {
            throw CheckpointMismatch("the checkpoint record has layout \(layout); this flowd reads layouts 1 and \(Self.layout)")
        }
        func text() throws(CheckpointMismatch) -> String {
            guard let bytes = reader.bytes(try next()) else { throw CheckpointMismatch("the checkpoint record is cut short") }
            return String(decoding: bytes, as: UTF8.self)
        }
        place = try text()
        windowPlaces = []
        if layout >= 2 {
            let count = try next()
            guard count <= UInt64(body.count) else { throw CheckpointMismatch("the checkpoint record is cut short") }
            for _ in 0..<count { windowPlaces.append(try text()) }
        }
        counters = IDCounters(flow: try next(), node: try next(), request: try next())
        check = Int64(bitPattern: try next())
        var maps: [[UInt64: UInt64]] = []
        for _ in 0..<2 {
            let count = try next()
            guard count <= UInt64(body.count) else { throw CheckpointMismatch("the checkpoint record is cut short") }
            var pairs: [UInt64: UInt64] = [:]
            for _ in 0..<count { pairs[try next()] = try next() }
            maps.append(pairs)
        }
        assignment = IDAssignment(flows: maps[0], nodes: maps[1])
        let keys = try next()
        guard keys <= UInt64(body.count) else { throw CheckpointMismatch("the checkpoint record is cut short") }
        appliedKeys = []
        for _ in 0..<keys { appliedKeys.append(try next()) }
        let count = try next()
        guard count <= UInt64(body.count) else { throw CheckpointMismatch("the checkpoint record is cut short") }
        mementos = [:]
        for _ in 0..<count {
            let flow = FlowID(rawValue: try next())
            guard let data = reader.bytes(try next()) else { throw CheckpointMismatch("the checkpoint record is cut short") }
            mementos[flow] = Data(data)
        }
        guard reader.atEnd else { throw CheckpointMismatch("the checkpoint record has bytes after its end") }
    }

    init(place: String, windowPlaces: [String] = [], counters: IDCounters, assignment: IDAssignment, check: Int64, appliedKeys: [UInt64],
         mementos: [FlowID: Data]) {
        (self.place, self.windowPlaces, self.counters, self.assignment, self.check) = (place, windowPlaces, counters, assignment, check)
        (self.appliedKeys, self.mementos) = (appliedKeys, mementos)
    }
}
