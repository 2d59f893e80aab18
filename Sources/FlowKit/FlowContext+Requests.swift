import Foundation

/// Outside data, brought in as inputs. A flow must decide the same way every time it gets the same
/// inputs (docs/flows.md, Determinism): it reads no clock, no randomness, no environment, no file and
/// no network itself. What it needs from outside it asks the runtime for, and gets back as an input
/// that the daemon journals: a restore replays the answer instead of asking again.
extension FlowContext {
    /// Asks for a timer: `fired` runs once, `milliseconds` from now, when the driver answers with
    /// `FlowInput.timerFired`. Returns the request's id, for `cancel(_:)`. Ending the flow cancels it;
    /// on a flow that has ended this does nothing and returns `.none`.
    @discardableResult
    public func after(milliseconds: UInt64, _ fired: @escaping () -> Void) -> RequestID {
        controller.runtime.request({ _ in .timer(milliseconds: milliseconds) }, by: controller) { answer in
            if case .fired = answer { fired() }
        }
    }

    /// Asks for asynchronous work: the driver runs `work` off the runtime's thread, and `then` gets
    /// its value (or the error it threw, as text) on the flow's thread, when the driver answers with
    /// `FlowInput.workSucceeded` (the value encoded with the runtime's codec: what the journal keeps)
    /// or `.workFailed`. `work` must not touch the flow: everything it needs, it captures as values.
    /// A restore replays the journaled result and does not run the work again, unless it was still
    /// running when the daemon died. Returns the request's id, for `cancel(_:)`. Ending the flow
    /// cancels it; on a flow that has ended this does nothing and returns `.none`.
    @discardableResult
    public func run<T: Codable & Sendable>(
        _ work: @escaping @Sendable () async throws -> T, then: @escaping (Result<T, ExternalWorkError>) -> Void
    ) -> RequestID {
        let codec = controller.runtime.codec
        return controller.runtime.request({ id in
            .work(ExternalWork(request: id) {
                do {
                    let value = try await work()
                    return ExternalWorkResult(request: id, outcome: .success { encoder in try encoder.encode(value) })
                } catch {
                    return ExternalWorkResult(request: id, outcome: .failure(String(describing: error)))
                }
            })
        }, by: controller) { answer in
            switch answer {
            case .succeeded(let payload):
                let value: T
                do {
                    value = try codec.decode(T.self, from: payload)
                } catch {
                    then(.failure(ExternalWorkError("the result did not decode as \(T.self) (\(error)); make its Codable conformance symmetric")))
                    return
                }
                then(.success(value))
            case .failed(let message):
                then(.failure(ExternalWorkError(message)))
            case .fired:
                break
            }
        }
    }

    /// Cancels one of this flow's requests: its answer will not come (the driver stops the timer or
    /// drops the work's result). Ignored for a request answered already, cancelled, or not this flow's.
    public func cancel(_ request: RequestID) {
        controller.runtime.cancel(request, ownedBy: controller)
    }

    /// This flow's requests not answered yet, oldest first.
    public var outstandingRequests: [RequestID] { controller.requests.sorted() }
}
