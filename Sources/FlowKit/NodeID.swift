/// The identity of one node of the navigation model: the window, a stack, a tab bar or a screen.
///
/// Screens are nodes, so a `ScreenID` is a `NodeID`. Ids are never reused within one runtime.
public struct NodeID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The raw number; `0` means "no node".
    public let rawValue: UInt64

    /// Wraps a raw number (the daemon uses this to decode ids from the wire).
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// "No node": an empty tab slot, no modal, no parent.
    public static let none = NodeID(rawValue: 0)

    /// The window, the root of every navigation model.
    public static let window = NodeID(rawValue: 1)

    /// Orders ids by creation.
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#<number>`.
    public var description: String { "#\(rawValue)" }
}

/// The identity of one screen (a screen is a node of the navigation model).
public typealias ScreenID = NodeID
