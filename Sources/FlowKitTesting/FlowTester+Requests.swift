import FlowKit
import Foundation

/// The flows' requests for outside data, answered by the test: nothing fires or runs by itself, so a
/// test decides when a timer fires and what a piece of work returns.
extension FlowTester {
    /// Requests not answered, cancelled or ended with their flow, oldest first.
    public var outstandingRequests: [ExternalRequest] {
        settle()
        return runtime.outstandingRequests
    }

    /// Outstanding timers, oldest first.
    public var timers: [RequestID] { outstandingRequests.filter(\.isTimer).map(\.id) }

    /// Outstanding work, oldest first.
    public var work: [RequestID] { outstandingRequests.filter { !$0.isTimer }.map(\.id) }

    /// Fires a timer, as the driver would once its time passed. Throws, changing nothing, when no
    /// such timer is outstanding.
    public func fireTimer(_ timer: RequestID) throws(FlowKitError) {
        try answer(.timerFired(timer))
    }

    /// Fires every timer outstanding now, oldest first (not those their handlers start).
    public func fireTimers() {
        for timer in timers { try? fireTimer(timer) }
    }

    /// Answers a piece of work with `value`, encoded with the runtime's codec as the driver would.
    /// Throws when no such work is outstanding or the value does not encode.
    public func complete<T: Encodable>(_ work: RequestID, with value: T) throws {
        try answer(.workSucceeded(work, payload: runtime.codec.encode(value)))
    }

    /// Answers a piece of work as failed with `message`. Throws, changing nothing, when no such work
    /// is outstanding.
    public func fail(_ work: RequestID, message: String) throws(FlowKitError) {
        try answer(.workFailed(work, message: message))
    }

    /// Runs a piece of work's real closure (here, now) and answers with what it produced. Throws,
    /// changing nothing, when no such work is outstanding (before or after it ran).
    public func perform(_ work: RequestID) async throws(FlowKitError) {
        settle()
        guard let request = runtime.outstandingRequests.first(where: { $0.id == work }), case .work(let body) = request.kind else {
            throw FlowKitError(.unknownRequest, "no work \(work) is outstanding; outstanding: \(runtime.outstandingRequests)")
        }
        let result = await body.run()
        try answer(runtime.input(for: result))
    }

    private func answer(_ input: FlowInput) throws(FlowKitError) {
        settle()
        defer { settle() }
        try runtime.apply(input)
    }
}
