import FlowKit
import FlowWire

/// `OpenLink` requests that wait for the dismissals in flight to complete (docs/protocol.md §21),
/// in the order they came and at most `limit`: a link is opened once no `Dismiss` waits for its
/// ack, which takes at most the ack timeout, instead of being refused as busy.
struct WaitingLinks {
    /// One request, to be answered on its connection.
    struct Request {
        var connection: UInt64
        var seq: UInt64
        var message: Flowd_V1_OpenLink
    }

    /// How many links may wait.
    static let limit = 16

    private var waiting: [Request] = []

    /// Whether no link waits.
    var isEmpty: Bool { waiting.isEmpty }

    /// What becomes of an `OpenLink` that just came.
    enum Arrival: Equatable {
        /// Open it now.
        case openNow
        /// It waits for the dismissals in flight (kept).
        case waits
        /// `limit` links already wait: refused, nothing kept.
        case refused(String)
    }

    /// An `OpenLink` came while `dismissalsInFlight` dismissals wait for their acks: it waits behind
    /// them (and behind every link already waiting, so links open in order), is refused when `limit`
    /// wait, or opens now. A link that does not parse, or one that comes once the shutdown began
    /// (`running` false), opens now: it is refused at once with its own error.
    mutating func arrived(_ request: Request, dismissalsInFlight: Int, running: Bool) -> Arrival {
        guard running, dismissalsInFlight > 0 || !waiting.isEmpty, (try? Link(parsing: request.message.link)) != nil else { return .openNow }
        guard waiting.count < Self.limit else {
            return .refused("\(Self.limit) links already wait for dismissals in flight; \(request.message.link) was not opened, send it again later")
        }
        waiting.append(request)
        return .waits
    }

    /// The first link, taken, if `mayOpen` (no dismissal in flight, or the shutdown began: then it is
    /// answered as such). One at a time: opening a link may start dismissals the next must wait for.
    mutating func next(mayOpen: Bool) -> Request? {
        guard mayOpen, !waiting.isEmpty else { return nil }
        return waiting.removeFirst()
    }
}
