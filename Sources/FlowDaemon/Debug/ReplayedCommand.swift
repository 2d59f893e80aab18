import FlowWire
import Foundation

/// One command for a screen (place, update, placement change, dismiss) as
/// `flowd replay` compares them: what a recording says the daemon sent, or
/// what the replayed flows sent to the fake screens.
public struct ReplayedCommand: Equatable, Sendable, CustomStringConvertible {
    /// Which command.
    public enum Kind: String, Sendable {
        case place, update, placementChanged = "placement-changed", dismiss
    }

    /// Which command.
    public var kind: Kind
    /// The screen it is for.
    public var screen: UInt64
    /// The screen's kind name.
    public var screenKind: String
    /// The command's serial for that screen.
    public var serial: UInt64
    /// Where the screen is (place and placement-changed).
    public var placement: Flowd_V1_Placement?
    /// The screen's JSON state (place and update; nil when not recorded).
    public var state: Data?

    /// A command.
    public init(kind: Kind, screen: UInt64, screenKind: String, serial: UInt64, placement: Flowd_V1_Placement? = nil, state: Data? = nil) {
        self.kind = kind
        self.screen = screen
        self.screenKind = screenKind
        self.serial = serial
        self.placement = placement
        self.state = state
    }

    /// The command a recorded event reports, if it reports one.
    public init?(_ event: Flowd_V1_Event) {
        let kind: Kind
        switch event.kind {
        case .place: kind = .place
        case .update: kind = .update
        case .placementChanged: kind = .placementChanged
        case .dismiss: kind = .dismiss
        default: return nil
        }
        self.init(kind: kind, screen: event.screenID, screenKind: event.name, serial: event.serial,
                  placement: event.hasPlacement ? event.placement : nil,
                  state: event.hasPayload && (kind == .place || kind == .update) ? event.payload.data : nil)
    }

    /// Equal in kind, screen, screen kind, serial and placement; states are
    /// compared when both sides have one.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.kind == rhs.kind, lhs.screen == rhs.screen, lhs.screenKind == rhs.screenKind, lhs.serial == rhs.serial,
              lhs.placement == rhs.placement else { return false }
        if let left = lhs.state, let right = rhs.state { return left == right }
        return true
    }

    /// `place tutorial screen 3 serial 1 at window/stack 2/screen 3[0] (visible, top) {"title":...}`.
    public var description: String {
        var text = "\(kind.rawValue) \(screenKind) screen \(screen) serial \(serial)"
        if let placement { text += " at \(placement.summary)" }
        if let state { text += " " + String(decoding: state.prefix(160), as: UTF8.self) }
        return text
    }
}

extension Flowd_V1_Placement {
    /// `window/stack 2/screen 3[1] (visible, top)`: each element with its index in the one before.
    var summary: String {
        var parts: [String] = []
        for (position, element) in path.enumerated() {
            var part: String
            switch element.kind {
            case .window: part = "window"
            case .stack: part = "stack \(element.id)"
            case .tabBar: part = "tabs \(element.id)"
            case .screen: part = "screen \(element.id)"
            default: part = "node \(element.id)"
            }
            if element.presented { part = "modal " + part }
            let parentKind = position > 0 ? path[position - 1].kind : .unspecified
            if parentKind == .stack || parentKind == .tabBar { part += "[\(element.index)]" }
            parts.append(part)
        }
        let flags = [visible ? "visible" : "hidden", topMost ? "top" : nil].compactMap { $0 }
        return parts.joined(separator: "/") + " (\(flags.joined(separator: ", ")))"
    }
}
