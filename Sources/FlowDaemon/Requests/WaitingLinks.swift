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

    /// Keeps `request` until the dismissals complete; false (nothing kept) when `limit` already wait.
    mutating func wait(_ request: Request) -> Bool {
        guard waiting.count < Self.limit else { return false }
        waiting.append(request)
        return true
    }

    /// The first link, taken, if `mayOpen` (no dismissal in flight, or the shutdown began: then it is
    /// answered as such). One at a time: opening a link may start dismissals the next must wait for.
    mutating func next(mayOpen: Bool) -> Request? {
        guard mayOpen, !waiting.isEmpty else { return nil }
        return waiting.removeFirst()
    }
}
