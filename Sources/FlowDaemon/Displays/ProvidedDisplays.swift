import FlowKit
import FlowWire

/// The displays the connections provide (`ProvideDisplays`, docs/protocol.md §24): each
/// connection's list and their union, which the runtime learns as `FlowInput.displaysChanged` so a
/// window placement that must not wait sees the same displays in a replay. A value with no I/O.
struct ProvidedDisplays {
    /// The most displays one connection may provide, and the longest id or name, in bytes.
    static let maxDisplays = 16
    static let maxBytes = 64

    /// Each providing connection's displays, in its order.
    private var byConnection: [UInt64: [Display]] = [:]

    /// Whether a connection provides displays.
    var isEmpty: Bool { byConnection.isEmpty }

    /// What is wrong with `message`, or nil: ids of 1 to 64 bytes, unique, names of at most 64, at
    /// most 16 displays.
    static func problem(in message: Flowd_V1_ProvideDisplays) -> String? {
        guard message.displays.count <= maxDisplays else {
            return "ProvideDisplays lists \(message.displays.count) displays; at most \(maxDisplays)"
        }
        var seen: Set<String> = []
        for display in message.displays {
            guard (1...maxBytes).contains(display.id.utf8.count) else {
                return "a display's id must be 1 to \(maxBytes) bytes, not \(display.id.utf8.count)"
            }
            guard display.name.utf8.count <= maxBytes else {
                return "the name of display '\(display.id)' is \(display.name.utf8.count) bytes; at most \(maxBytes)"
            }
            guard seen.insert(display.id).inserted else { return "the display '\(display.id)' is listed twice" }
        }
        return nil
    }

    /// `connection` provides `displays` now (replacing what it provided; none withdraws them).
    mutating func provide(_ displays: [Display], by connection: UInt64) {
        byConnection[connection] = displays.isEmpty ? nil : displays
    }

    /// `connection` closed: its displays go. Whether it provided any.
    mutating func left(_ connection: UInt64) -> Bool {
        byConnection.removeValue(forKey: connection) != nil
    }

    /// Every connection's displays by id, the oldest connection's entry for an id two provide.
    var all: [Display] {
        var byID: [String: Display] = [:]
        for connection in byConnection.keys.sorted() {
            for display in byConnection[connection] ?? [] where byID[display.id] == nil { byID[display.id] = display }
        }
        return byID.values.sorted { $0.id < $1.id }
    }
}

extension Display {
    /// A display as a connection described it (valid: `ProvidedDisplays.problem`).
    init(_ provided: Flowd_V1_ProvidedDisplay) {
        self.init(id: provided.id, name: provided.name, width: Int(provided.width), height: Int(provided.height))
    }
}

extension Flowd_V1_ProvidedDisplay {
    /// The wire form of `display`.
    init(_ display: Display) {
        self.init()
        id = display.id
        name = display.name
        width = UInt32(clamping: display.width)
        height = UInt32(clamping: display.height)
    }
}
