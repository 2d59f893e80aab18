import FlowApp
import FlowJournal
import FlowWire
import Foundation

/// The answers to `GetHistory` and `GetMoment`, decided apart from any connection: what the timeline
/// holds, cut to what one frame of the asking connection carries, or the non-fatal error that refuses.
enum HistoryAnswer {
    /// A non-fatal `LIMIT_EXCEEDED` saying why the history cannot answer.
    struct Refusal: Error {
        let error: Flowd_V1_Error
        init(_ message: String) { error = Flowd_V1_Error(code: .limitExceeded, message: message) }
    }

    /// The inputs `request` asks for, from its `from` on, as many as `limit` allows and a frame of
    /// `maxFrameSize` carries (at least one, when any is left: a single input over the frame is cut
    /// to its line, without payload or events).
    static func history(_ timeline: Timeline, _ request: Flowd_V1_GetHistory, app: FlowApp.App, maxFrameSize: Int) -> Flowd_V1_History {
        var history = Flowd_V1_History()
        history.app = app.name
        history.appVersion = app.version
        history.count = UInt64(timeline.count)
        history.fromCheckpoint = timeline.startsFromCheckpoint
        history.stopped = timeline.stopped ?? ""
        let first = max(1, Int(clamping: request.from))
        guard first <= timeline.count else { return history }
        let last = request.limit == 0 ? timeline.count : min(timeline.count, first + Int(clamping: request.limit) - 1)
        // Room for the envelope and the fields above; each input then costs its size and its tag.
        var room = maxFrameSize - 64 - history.app.utf8.count - history.appVersion.utf8.count - history.stopped.utf8.count
        for index in first...last {
            guard var input = timeline.moments[index].input else { continue }
            if !request.events { input.events = [] }
            let size = ((try? input.serializedBytes() as [UInt8])?.count ?? 0) + 6
            if size > room {
                guard history.inputs.isEmpty else { break }
                input.events = []
                input.clearPayload()
            }
            room -= size
            history.inputs.append(input)
        }
        return history
    }

    /// Moment `request.index`, with the records that rebuild it when asked; refused past the history
    /// or when the answer would not fit in a frame of `maxFrameSize`.
    static func moment(_ timeline: Timeline, _ request: Flowd_V1_GetMoment, app: FlowApp.App,
                       maxFrameSize: Int) -> Result<Flowd_V1_Moment, Refusal> {
        guard request.index <= UInt64(timeline.count) else {
            let held = timeline.count == 0 ? "no input yet (only moment 0, the start)" : "inputs 1 to \(timeline.count) (moments 0 to \(timeline.count))"
            var why = "there is no moment \(request.index): the history holds \(held)"
            if let stopped = timeline.stopped { why += "; it stops early because \(stopped)" }
            return .failure(Refusal(why))
        }
        let kept = timeline.moments[Int(request.index)]
        var moment = Flowd_V1_Moment()
        moment.index = request.index
        moment.count = UInt64(timeline.count)
        moment.tree = kept.tree
        moment.screens = kept.screens
        if var input = kept.input {
            input.events = []
            moment.input = input
        }
        if request.startState {
            moment.tree.startState = Flowd_V1_StartState(appVersion: app.version, records: timeline.startRecords(at: Int(request.index)))
        }
        let size = (try? Flowd_V1_Envelope(.moment(moment), seq: UInt64.max, replyTo: UInt64.max).serializedBytes() as [UInt8])?.count ?? Int.max
        guard size <= maxFrameSize else {
            return .failure(Refusal("""
                moment \(request.index) takes \(size) bytes, more than a frame of this connection carries (\(maxFrameSize))\
                \(request.startState ? " with the \(moment.tree.startState.records.count) records that rebuild it" : ""); \
                start flowd with a larger --max-frame-size and ask for it in Hello
                """))
        }
        return .success(moment)
    }
}

extension AppCore {
    /// The timeline caught up with the journal (made at the first question), or why there is none.
    mutating func caughtUpTimeline() -> Result<Timeline, HistoryAnswer.Refusal> {
        guard let app else { return .failure(HistoryAnswer.Refusal("flowd runs no app: there is no history")) }
        let timeline = debug.timeline ?? Timeline(app: app)
        debug.timeline = timeline
        // The journal is read again only when its records changed since the last question.
        let mark = persistence.recordsMark
        guard timeline.caughtUpTo != mark else { return .success(timeline) }
        let records: [Journal.Record]
        do {
            records = try persistence.startRecords()
        } catch {
            return .failure(HistoryAnswer.Refusal("flowd cannot give the history of its inputs: \(error)"))
        }
        timeline.catchUp(records)
        timeline.caughtUpTo = mark
        return .success(timeline)
    }
}

extension DaemonCore {
    /// Answers `GetHistory` from the timeline, caught up first.
    mutating func answerHistory(_ request: Flowd_V1_GetHistory, seq: UInt64, on connection: Connection) {
        switch app.caughtUpTimeline() {
        case .success(let timeline):
            guard let running = app.app else { return }
            send(.history(HistoryAnswer.history(timeline, request, app: running, maxFrameSize: connection.maxFrameSize)), to: connection, replyTo: seq)
        case .failure(let refusal):
            app.refuse(refusal.error, seq: seq, to: connection.id)
        }
    }

    /// Answers `GetMoment` from the timeline, caught up first.
    mutating func answerMoment(_ request: Flowd_V1_GetMoment, seq: UInt64, on connection: Connection) {
        let answer = app.caughtUpTimeline().flatMap { timeline in
            HistoryAnswer.moment(timeline, request, app: app.app!, maxFrameSize: connection.maxFrameSize)
        }
        switch answer {
        case .success(let moment): send(.moment(moment), to: connection, replyTo: seq)
        case .failure(let refusal): app.refuse(refusal.error, seq: seq, to: connection.id)
        }
    }
}
