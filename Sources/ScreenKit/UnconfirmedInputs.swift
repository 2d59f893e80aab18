import FlowWire

#if canImport(Glibc)
import Glibc
#endif

/// The outputs and navigation a host sent that the daemon has not confirmed yet, each with its key
/// (docs/protocol.md §20). The daemon handles a connection's frames in order and journals an input
/// before it writes anything after it, so a `Pong` confirms every input sent before its `Ping`.
/// After a drop the host sends the unconfirmed ones again with the same keys: the daemon drops those
/// it already applied (even across its own restart) and applies the others — nothing is lost or
/// applied twice.
struct UnconfirmedInputs {
    /// Inputs kept at most; the oldest is dropped (confirmed by then in any realistic session).
    static let capacity = 256

    /// An input as it was sent.
    struct Entry {
        var number: UInt64
        var body: Flowd_V1_Envelope.OneOf_Body
    }

    private(set) var entries: [Entry] = []
    /// The number the next input gets; the key is `keyBase + number`.
    private var nextNumber: UInt64 = 1
    /// Per `Ping` nonce: the number of the last input sent before it.
    private var marks: [UInt64: UInt64] = [:]
    /// Random, so that keys of different hosts (and of this host's earlier runs) do not meet.
    private let keyBase: UInt64 = UInt64.random(in: 1...(UInt64.max / 2))

    /// Gives `body` its key; call `sent` once it was written.
    mutating func keyed(_ body: Flowd_V1_Envelope.OneOf_Body) -> (Flowd_V1_Envelope.OneOf_Body, number: UInt64) {
        let number = nextNumber
        nextNumber += 1
        var body = body
        switch body {
        case .output(var output):
            output.key = keyBase &+ number
            body = .output(output)
        case .userNavigation(var navigation):
            navigation.key = keyBase &+ number
            body = .userNavigation(navigation)
        default:
            break
        }
        return (body, number)
    }

    /// `body` (keyed as `number`) went out: it waits for a confirmation.
    mutating func sent(_ body: Flowd_V1_Envelope.OneOf_Body, number: UInt64) {
        entries.append(Entry(number: number, body: body))
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    /// A `Ping` with `nonce` went out after the inputs sent so far.
    mutating func pinged(_ nonce: UInt64) {
        marks[nonce] = nextNumber - 1
    }

    /// Its `Pong` came back: every input sent before that `Ping` is confirmed.
    mutating func ponged(_ nonce: UInt64) {
        guard let last = marks.removeValue(forKey: nonce) else { return }
        entries.removeAll { $0.number <= last }
        marks = marks.filter { $0.value > last }
    }

    /// On a new connection: no `Pong` of the old one will come.
    mutating func connectionChanged() {
        marks.removeAll()
    }
}
