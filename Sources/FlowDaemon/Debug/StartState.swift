import FlowJournal
import FlowWire
import Foundation
import SwiftProtobuf

extension Flowd_V1_StartState {
    /// The starting state of app version `appVersion` made of `records`, oldest first.
    init(appVersion: String, records: [Journal.Record]) {
        self.init()
        self.appVersion = appVersion
        self.records = records.map { record in
            var message = Flowd_V1_StateRecord()
            message.kind = record.kind
            message.body = Data(record.body)
            message.key = record.key
            if let check = record.check { message.check = check }
            return message
        }
    }

    /// The records, as a journal holds them.
    var journalRecords: [Journal.Record] {
        records.map { Journal.Record(kind: $0.kind, body: Array($0.body), key: $0.key, check: $0.hasCheck ? $0.check : nil) }
    }
}

extension AppCore {
    /// What rebuilds the state the runtime is in now (the journal's records, or the inputs kept in
    /// memory), for a recording to start from; nil without an app.
    func startState() throws -> Flowd_V1_StartState? {
        guard let app else { return nil }
        return Flowd_V1_StartState(appVersion: app.version, records: try persistence.startRecords())
    }
}

/// The answer to `GetTree {start_state: true}`, decided apart from any connection: the tree with the
/// state that rebuilds it, or the non-fatal error that refuses it.
enum StartStateAnswer {
    case tree(Flowd_V1_Tree)
    case refused(Flowd_V1_Error)

    /// `tree` with `state` (nil: no app, the tree alone), or a `LIMIT_EXCEEDED` refusal when the state
    /// cannot be had (`state` is a failure) or the answer would be larger than `maxFrameSize`.
    static func answer(_ tree: Flowd_V1_Tree, state: Result<Flowd_V1_StartState?, any Error>, seq: UInt64,
                       maxFrameSize: Int) -> StartStateAnswer {
        var tree = tree
        do {
            guard let state = try state.get() else { return .tree(tree) }
            tree.startState = state
        } catch {
            return .refused(Flowd_V1_Error(code: .limitExceeded, message: "flowd cannot give the state a recording starts from: \(error)"))
        }
        // Measured as it goes out (the largest seq): a frame over the limit would not be sent at all.
        let envelope = Flowd_V1_Envelope(.tree(tree), seq: UInt64.max, replyTo: seq)
        let size = (try? envelope.serializedBytes() as [UInt8])?.count ?? Int.max
        guard size <= maxFrameSize else {
            return .refused(Flowd_V1_Error(code: .limitExceeded, message: """
                the state a recording starts from takes \(size) bytes, more than a frame of this connection carries \
                (\(maxFrameSize)): \(tree.startState.records.count) records since the app's start or its last \
                checkpoint; start flowd with a larger --max-frame-size (and ask for it in Hello), or record once the journal \
                was compacted (flowctl stats: journal inputs)
                """))
        }
        return .tree(tree)
    }
}

extension DaemonCore {
    /// Answers `GetTree`: the tree, and with `start_state` what rebuilds the state it shows, read in this
    /// one call, so the state is the tree's (`StartStateAnswer`).
    mutating func answerTree(_ request: Flowd_V1_GetTree, seq: UInt64, on connection: Connection) {
        var tree = tree()
        if request.audit { tree.audit = DebugViews.audit(viewed) }
        guard request.startState else { return send(.tree(tree), to: connection, replyTo: seq) }
        let state = Result { try app.startState() }
        switch StartStateAnswer.answer(tree, state: state, seq: seq, maxFrameSize: connection.maxFrameSize) {
        case .tree(let tree): send(.tree(tree), to: connection, replyTo: seq)
        case .refused(let refusal): app.refuse(refusal, seq: seq, to: connection.id)
        }
    }
}
