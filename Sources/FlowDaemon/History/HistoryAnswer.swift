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

    /// Why `timeline` cannot answer a question expecting `epoch` (0: any), or nil.
    static func refusal(_ timeline: Timeline, expecting epoch: UInt64) -> Refusal? {
        if timeline.moments.isEmpty {
            return Refusal("there is no history: \(timeline.stopped ?? "the app's start was not replayed")")
        }
        if epoch > timeline.epoch {
            return Refusal("this daemon never numbered its history \(epoch) (its epoch is \(timeline.epoch)): ask again without expect_epoch")
        }
        if epoch != 0, epoch != timeline.epoch {
            return Refusal("""
                the history was numbered again since (epoch \(epoch) is now \(timeline.epoch)): the journal was compacted, and \
                its moments start from the checkpoint; ask again without expect_epoch
                """)
        }
        return nil
    }

    /// The inputs `request` asks for, from its `from` on, as many as `limit` allows and a frame of
    /// `maxFrameSize` carries (at least one, when any is left: a single input over the frame is `cut`,
    /// without payload or events).
    static func history(_ timeline: Timeline, _ request: Flowd_V1_GetHistory, app: FlowApp.App,
                        maxFrameSize: Int) -> Result<Flowd_V1_History, Refusal> {
        if let refusal = refusal(timeline, expecting: request.expectEpoch) { return .failure(refusal) }
        var history = Flowd_V1_History()
        history.app = app.name
        history.appVersion = app.version
        history.count = UInt64(timeline.count)
        history.fromCheckpoint = timeline.startsFromCheckpoint
        history.stopped = timeline.stopped ?? ""
        history.epoch = timeline.epoch
        let count = UInt64(timeline.count)
        let first = max(1, request.from)
        guard first <= count else { return .success(history) }
        // Wire values are any UInt64: the range is computed without overflowing.
        let last = request.limit == 0 ? count : first + min(request.limit - 1, count - first)
        // Room for the envelope and the fields above; each input then costs its size and its tag.
        var room = maxFrameSize - 80 - history.app.utf8.count - history.appVersion.utf8.count - history.stopped.utf8.count
        for index in first...last {
            guard var input = timeline.moments[Int(index)].input else { continue }
            if !request.events { input.events = [] }
            var size = ((try? input.serializedBytes() as [UInt8])?.count ?? 0) + 6
            if size > room {
                guard history.inputs.isEmpty else { break }
                input.events = []
                input.clearPayload()
                input.cut = true
                size = ((try? input.serializedBytes() as [UInt8])?.count ?? 0) + 6
            }
            room -= size
            history.inputs.append(input)
        }
        return .success(history)
    }

    /// Moment `request.index`, with the records that rebuild it when asked; refused past the history
    /// or when the answer would not fit in a frame of `maxFrameSize`.
    static func moment(_ timeline: Timeline, _ request: Flowd_V1_GetMoment, app: FlowApp.App,
                       maxFrameSize: Int) -> Result<Flowd_V1_Moment, Refusal> {
        if let refusal = refusal(timeline, expecting: request.expectEpoch) { return .failure(refusal) }
        guard request.index <= UInt64(timeline.count) else {
            let held = timeline.count == 0 ? "no input yet (only moment 0, the start)" : "inputs 1 to \(timeline.count) (moments 0 to \(timeline.count))"
            var why = "there is no moment \(request.index): the history holds \(held)"
            if let stopped = timeline.stopped { why += "; it stops early because \(stopped)" }
            return .failure(Refusal(why))
        }
        let kept = timeline.moments[Int(request.index)]
        var moment = (try? Flowd_V1_Moment(serializedBytes: kept.view)) ?? Flowd_V1_Moment()
        moment.index = request.index
        moment.count = UInt64(timeline.count)
        moment.epoch = timeline.epoch
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
    /// Where the timeline is for a question: caught up, still replaying (the question waits for the
    /// next slice), or unable to answer.
    enum TimelineState {
        case ready(Timeline)
        case catchingUp
        case refused(HistoryAnswer.Refusal)
    }

    /// The time one slice of the timeline's replay may hold the loop: the first question on a long
    /// history is answered over several loop iterations, with the app's own frames served between.
    static let timelineSlice: UInt64 = 5_000_000

    /// The timeline caught up with the journal (made at the first question), or how far it is. The
    /// journal is read again only when its records changed since the last question.
    mutating func caughtUpTimeline() -> TimelineState {
        guard let app else { return .refused(HistoryAnswer.Refusal("flowd runs no app: there is no history")) }
        // Its journal was cleared: a history now would start from a fresh start the daemon does not show.
        if let outcome {
            return .refused(HistoryAnswer.Refusal("app \(app.name) finished (\(outcome)); its journal was cleared, and there is no history"))
        }
        let timeline = debug.timeline ?? Timeline(app: app)
        debug.timeline = timeline
        let mark = persistence.recordsMark
        // Records read for an earlier slice are replayed first: the journal is not read again per slice.
        if timeline.caughtUpTo == mark || timeline.isCatchingUp {
            guard timeline.resume(budget: Self.timelineSlice) else { return .catchingUp }
            if timeline.caughtUpTo == mark { return .ready(timeline) }
        }
        let records: [Journal.Record]
        do {
            records = try persistence.startRecords()
        } catch {
            return .refused(HistoryAnswer.Refusal("flowd cannot give the history of its inputs: \(error)"))
        }
        timeline.caughtUpTo = mark
        return timeline.catchUp(records, budget: Self.timelineSlice) ? .ready(timeline) : .catchingUp
    }
}

extension AppCore {
    /// A debug client's `GetHistory` or `GetMoment`: answered from the timeline once it caught up (a
    /// `.send` action); until then the question waits and the loop's next wake-up replays another slice
    /// (`answerWaitingHistoryQuestions`). Returns whether the loop must wake for that.
    mutating func ask(_ question: DebugSurface.HistoryQuestion) -> Bool {
        // While the timeline catches up, a question waits its turn: no slice more per question.
        if !debug.historyQuestions.isEmpty {
            guard debug.historyQuestions.count(where: { $0.connection == question.connection }) < DebugSurface.historyQuestionsPerClient else {
                refuse(Flowd_V1_Error(code: .limitExceeded, message: """
                    \(DebugSurface.historyQuestionsPerClient) questions of this client already wait for the history to catch up; \
                    wait for their answers
                    """), seq: question.seq, to: question.connection)
                return false
            }
            debug.historyQuestions.append(question)
            return false
        }
        switch caughtUpTimeline() {
        case .ready(let timeline):
            answer(question, from: timeline)
            return false
        case .catchingUp:
            debug.historyQuestions.append(question)
            return true
        case .refused(let refusal):
            refuse(refusal.error, seq: question.seq, to: question.connection)
            return false
        }
    }

    /// The questions that waited for the timeline: another slice, and their answers once it caught
    /// up, for the clients still connected (`isConnected`). Returns whether the loop must wake for
    /// another slice.
    mutating func answerWaitingHistoryQuestions(isConnected: (UInt64) -> Bool) -> Bool {
        guard !debug.historyQuestions.isEmpty else { return false }
        switch caughtUpTimeline() {
        case .ready(let timeline):
            // A client gone while the timeline caught up is not worth the answer's work.
            for question in debug.takeHistoryQuestions() where isConnected(question.connection) { answer(question, from: timeline) }
            return false
        case .catchingUp:
            return true
        case .refused(let refusal):
            for question in debug.takeHistoryQuestions() { refuse(refusal.error, seq: question.seq, to: question.connection) }
            return false
        }
    }

    /// The answer to `question`, cut to its client's frame (a client gone meanwhile is not sent it).
    private mutating func answer(_ question: DebugSurface.HistoryQuestion, from timeline: Timeline) {
        guard let running = app else { return }
        let answer: Result<Flowd_V1_Envelope.OneOf_Body, HistoryAnswer.Refusal> = switch question.ask {
        case .history(let request): HistoryAnswer.history(timeline, request, app: running, maxFrameSize: question.maxFrameSize).map { .history($0) }
        case .moment(let request): HistoryAnswer.moment(timeline, request, app: running, maxFrameSize: question.maxFrameSize).map { .moment($0) }
        }
        switch answer {
        case .success(let body): act(.send(body, to: question.connection, replyTo: question.seq))
        case .failure(let refusal): refuse(refusal.error, seq: question.seq, to: question.connection)
        }
    }
}
