import FlowKit
import FlowWire

/// What debug clients and people see and ask, as one part: the live event stream, the `TerminateFlow`
/// requests waiting for their flow's unwinding, and the contract watch (screens waiting for a host,
/// kinds hosts offer that the app does not use, commands hosts refused).
struct DebugSurface {
    /// A debug client's request answered once its flow is unwound.
    struct PendingReply {
        var connection: UInt64
        var seq: UInt64
        var text: String
    }

    /// The live event stream, this part's alone (the core reaches it through `AppCore+Events`).
    let events: EventBus
    /// Where the app and its hosts disagree.
    var contract: ContractWatch
    /// The journal's inputs as moments (`flowctl history`, `flowctl at`): made at the first question
    /// and kept, with its scratch runtime, to answer the next ones by replaying only what came since.
    var timeline: Timeline?
    /// A debug client's `GetHistory` or `GetMoment`, waiting while the timeline catches up.
    struct HistoryQuestion {
        enum Ask {
            case history(Flowd_V1_GetHistory)
            case moment(Flowd_V1_GetMoment)
        }
        var connection: UInt64
        var seq: UInt64
        /// The client's maximum frame size: the answer is cut to it.
        var maxFrameSize: Int
        var ask: Ask
    }
    /// The questions waiting for the timeline, oldest first.
    var historyQuestions: [HistoryQuestion] = []
    /// The most questions of one client that may wait for the timeline (more are refused).
    static let historyQuestionsPerClient = 16
    /// `TerminateFlow` requests waiting for their flow's unwinding, by flow.
    private var terminations: [FlowID: PendingReply] = [:]

    init(events: EventBus, contract: ContractWatch) {
        self.events = events
        self.contract = contract
    }

    /// A termination of `flow` will be answered with `reply` once the flow is unwound.
    mutating func awaitUnwinding(of flow: FlowID, _ reply: PendingReply) { terminations[flow] = reply }

    /// The questions that waited for the timeline, taken.
    mutating func takeHistoryQuestions() -> [HistoryQuestion] {
        defer { historyQuestions = [] }
        return historyQuestions
    }

    /// The answer waiting for `flow`'s unwinding, taken (nil: none waits, or it was refused).
    mutating func takeReply(for flow: FlowID) -> PendingReply? { terminations.removeValue(forKey: flow) }
}
