import DemoApps
import FlowWire
import Foundation
import Testing

extension RawClient {
    /// Sends the JSON output `{"didPressButton":{"index":N}}` for `screen`.
    @discardableResult
    func press(_ index: Int, on screen: UInt64) throws -> UInt64 {
        var output = Flowd_V1_Output()
        output.screenID = screen
        output.payload = .json(Data(#"{"didPressButton":{"index":\#(index)}}"#.utf8))
        return try send(.output(output))
    }

    /// Acknowledges every command in `frames`.
    func ackAll(_ frames: [Flowd_V1_Envelope]) throws {
        for frame in frames {
            guard let (screen, serial) = frame.command else { continue }
            var ack = Flowd_V1_Ack()
            ack.screenID = screen
            ack.serial = serial
            try send(.ack(ack))
        }
    }

    /// Everything the daemon sends until our Ping's Pong, acknowledged as it comes.
    func settle(ack: Bool = true) throws -> [Flowd_V1_Envelope] {
        let frames = try ping()
        if ack { try ackAll(frames) }
        return frames
    }
}

extension Flowd_V1_Envelope {
    /// The screen and serial of a placement command, if this is one.
    var command: (screen: UInt64, serial: UInt64)? {
        switch body {
        case .place(let m): (m.screenID, m.serial)
        case .update(let m): (m.screenID, m.serial)
        case .placementChanged(let m): (m.screenID, m.serial)
        case .dismiss(let m): (m.screenID, m.serial)
        default: nil
        }
    }

    var place: Flowd_V1_Place? { if case .place(let m) = body { m } else { nil } }
    var update: Flowd_V1_Update? { if case .update(let m) = body { m } else { nil } }
    var placementChanged: Flowd_V1_PlacementChanged? { if case .placementChanged(let m) = body { m } else { nil } }
    var dismiss: Flowd_V1_Dismiss? { if case .dismiss(let m) = body { m } else { nil } }
    var error: Flowd_V1_Error? { if case .error(let m) = body { m } else { nil } }
    var shutdown: Flowd_V1_Shutdown? { if case .shutdown(let m) = body { m } else { nil } }
}

extension Flowd_V1_Payload {
    /// The payload's JSON as a dictionary (for assertions); a demo card's protobuf state is read as
    /// its Swift value's JSON.
    var object: [String: Any] {
        let json = contentType == CardState.payloadContentType ? (try? JSONEncoder().encode(CardState(binaryPayload: data))) ?? Data() : data
        return (try? JSONSerialization.jsonObject(with: json) as? [String: Any]) ?? [:]
    }
}

extension RawClient {
    /// The screens of the `modal` app after its usual walk: home presents the detail flow, whose first
    /// screen pushes a second (each step acknowledged). Handshakes first, providing `item`.
    func walkModalAppToAPushInTheModal() throws -> (home: Flowd_V1_Place, detail: Flowd_V1_Place, pushed: Flowd_V1_Place) {
        try handshake(provides: ["item"])
        let home = try #require(try settle().compactMap(\.place).first)
        try press(0, on: home.screenID)
        let detail = try #require(try settle().compactMap(\.place).first)
        try press(0, on: detail.screenID)
        let pushed = try #require(try settle().compactMap(\.place).first)
        return (home, detail, pushed)
    }

    /// The user's back from `screen`, in `phase`; returns what it caused.
    @discardableResult
    func back(from screen: UInt64, phase: Flowd_V1_NavigationPhase = .immediate) throws -> [Flowd_V1_Envelope] {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screen
        var back = Flowd_V1_Back()
        back.phase = phase
        navigation.back = back
        try send(.userNavigation(navigation))
        return try settle()
    }
}
