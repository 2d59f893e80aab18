/// The identity of one request a flow made for outside data (a timer, asynchronous work). Given by
/// the runtime in order, from 1, so the same inputs give the same ids: a journal's answers address
/// the requests of the replay that reads it. `0` is "no request".
public struct RequestID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The raw number.
    public let rawValue: UInt64

    /// Wraps a raw number (the daemon uses this to decode journaled ids).
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// "No request": what a flow that has ended gets back when it asks for one.
    public static let none = RequestID(rawValue: 0)

    /// Orders ids by request.
    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `request#<number>`.
    public var description: String { "request#\(rawValue)" }
}
