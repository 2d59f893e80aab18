import Foundation

extension FlowRuntime {
    /// One outstanding request: what was asked, and the owner's handler for the answer (typed in
    /// the closure, so nothing is cast).
    struct RequestRecord {
        var request: ExternalRequest
        let deliver: (RequestAnswer) -> Void
    }

    /// An answer to a request, as the inputs carry it.
    enum RequestAnswer {
        case fired
        case succeeded(Data)
        case failed(String)

        /// The kind of request it answers.
        var answersTimer: Bool {
            if case .fired = self { true } else { false }
        }
    }

    /// Requests for outside data not yet answered, oldest first: what a driver starts again after a
    /// restore's replay (the journal held no answer for them).
    public var outstandingRequests: [ExternalRequest] {
        requests.values.map(\.request).sorted { $0.id < $1.id }
    }

    /// The input that answers a request with what its work produced: the value encoded with the
    /// runtime's codec (`.workSucceeded`), or `.workFailed` with the error (or with why the value
    /// did not encode). Call on the runtime's thread, then feed the input.
    public func input(for result: ExternalWorkResult) -> FlowInput {
        switch result.outcome {
        case .success(let encode):
            do {
                return .workSucceeded(result.request, payload: try encode(codec))
            } catch {
                return .workFailed(result.request, message: "the result of \(result.request) did not encode (\(error)); make it encodable")
            }
        case .failure(let message):
            return .workFailed(result.request, message: message)
        }
    }

    /// Records a request of a running flow and announces it; returns its id (`.none` once the flow
    /// stopped running: nothing is asked).
    func request(_ kind: (RequestID) -> ExternalRequest.Kind, by owner: FlowController,
                 deliver: @escaping (RequestAnswer) -> Void) -> RequestID {
        guard owner.isRunning, owner.id != .host else { return .none }
        let id = RequestID(rawValue: nextRequest)
        nextRequest += 1
        let request = ExternalRequest(id: id, owner: owner.id, kind: kind(id))
        requests[id] = RequestRecord(request: request, deliver: deliver)
        owner.requests.insert(id)
        record(.request(request))
        return id
    }

    /// Cancels one of `owner`'s outstanding requests; anything else is ignored.
    func cancel(_ id: RequestID, ownedBy owner: FlowController) {
        guard requests[id]?.request.owner == owner.id else { return }
        requests[id] = nil
        owner.requests.remove(id)
        record(.cancelRequest(id))
    }

    /// Cancels every outstanding request of a flow that ends, oldest first.
    func cancelRequests(of flow: FlowController) {
        guard !flow.requests.isEmpty else { return }
        for id in flow.requests.sorted() {
            requests[id] = nil
            record(.cancelRequest(id))
        }
        flow.requests.removeAll()
    }

    /// Hands an answer to the flow that asked; the request is then done. Throws, changing nothing,
    /// when the request is not outstanding or is of another kind.
    func answer(_ id: RequestID, _ answer: RequestAnswer) throws(FlowKitError) {
        let record = try outstanding(id, isTimer: answer.answersTimer, answeredBy: answer.answersTimer ? "a timer firing" : "a work result")
        requests[id] = nil
        controller(record.request.owner)?.requests.remove(id)
        record.deliver(answer)
    }

    /// Keeps a timer's deadline on the driver's wall clock. Throws, changing nothing, when the timer
    /// is not outstanding.
    func timerStarted(_ id: RequestID, deadline: UInt64) throws(FlowKitError) {
        _ = try outstanding(id, isTimer: true, answeredBy: "a timer start")
        requests[id]?.request.deadline = deadline
    }

    private func outstanding(_ id: RequestID, isTimer: Bool, answeredBy what: String) throws(FlowKitError) -> RequestRecord {
        guard let record = requests[id], let owner = controller(record.request.owner), owner.isRunning else {
            throw FlowKitError(.unknownRequest, "\(what) for \(id) refused: no such request is outstanding (it was answered or cancelled, or its flow ended); drop late answers")
        }
        guard record.request.isTimer == isTimer else {
            throw FlowKitError(.unknownRequest, "\(what) for \(id) refused: it is \(record.request), not a \(isTimer ? "timer" : "work request")")
        }
        return record
    }
}
