/// Outside data a flow asked for (`FlowContext.after(milliseconds:_:)`, `FlowContext.run(_:then:)`):
/// the runtime announces it as `RuntimeEffect.request`, keeps it among `outstandingRequests` until it
/// is answered, cancelled or its flow ends, and takes the answer as an input (`FlowInput.timerFired`,
/// `.workSucceeded`, `.workFailed`), which a journal stores like any other.
public struct ExternalRequest: Sendable, CustomStringConvertible {
    /// What is asked for.
    public enum Kind: Sendable {
        /// Answer with `FlowInput.timerFired(id)` once `milliseconds` passed.
        case timer(milliseconds: UInt64)
        /// Run the work off the runtime's thread; answer with `runtime.input(for: result)`.
        case work(ExternalWork)
    }

    /// The request's id.
    public let id: RequestID
    /// The flow that asked (its end cancels the request).
    public let owner: FlowID
    /// What is asked for.
    public let kind: Kind
    /// When a timer fires, in milliseconds since the Unix epoch on the driver's wall clock, once the
    /// driver said (`FlowInput.timerStarted`): a driver that starts it again after a restart waits
    /// only for what is left. Nil for work, and for a timer the driver has not started.
    public internal(set) var deadline: UInt64?

    /// Whether this is a timer.
    public var isTimer: Bool {
        if case .timer = kind { true } else { false }
    }

    /// `timer request#3 of flow#2 (2000 ms)` or `work request#4 of flow#2`.
    public var description: String {
        switch kind {
        case .timer(let milliseconds): "timer \(id) of \(owner) (\(milliseconds) ms)"
        case .work: "work \(id) of \(owner)"
        }
    }
}
