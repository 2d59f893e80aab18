/// The identity of one running (or finished) flow. Never reused within one runtime; `0` is the runtime's host.
public struct FlowID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The raw number; a sub-flow always has a larger number than its parent.
    public let rawValue: UInt64

    /// Wraps a raw number (the daemon uses this to decode ids from the wire).
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The runtime's host: the owner of whatever the root flow leaves in place.
    public static let host = FlowID(rawValue: 0)

    /// Orders ids by start.
    public static func < (lhs: FlowID, rhs: FlowID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `flow#<number>`.
    public var description: String { "flow#\(rawValue)" }
}
