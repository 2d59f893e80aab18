import FlowKit
import FlowWire

/// Where an app and its screen hosts disagree, so that a screen never waits silently: hosts that
/// offer kinds the app does not use, screens no host provides a kind for after `--host-wait`, and
/// commands a host refused (a State it cannot decode). Counts them for `Stats` and words what to
/// tell; the screens' phases and owners come in from the core.
struct ContractWatch {
    /// Milliseconds a screen waits for a host before it is reported (0: never reported).
    let hostWait: UInt64
    /// The app's name, for the advice.
    let appName: String
    /// Attached screens waiting for a host, by the time they are reported.
    private(set) var hostWaits = TimerQueue<ScreenID>()
    private(set) var unknownKindsOffered: UInt64 = 0
    private(set) var screensWithoutHost: UInt64 = 0
    private(set) var commandsRefused: UInt64 = 0

    init(hostWait: UInt64 = 0, appName: String = "") {
        self.hostWait = hostWait
        self.appName = appName
    }

    /// A screen was placed, or its host left: if it waits for an attached host, its clock starts.
    mutating func placed(_ screen: ScreenID, waitsForHost: Bool, now: UInt64) {
        guard hostWait > 0, waitsForHost else { return }
        hostWaits.add(screen, at: now + hostWait)
    }

    /// The screens whose clock ran out by `now` (each is reported with `withoutHost` if it still waits).
    mutating func expire(now: UInt64) -> [ScreenID] { hostWaits.expired(now: now) }

    /// When the next screen's clock runs out.
    var nextDeadline: UInt64? { hostWaits.next }

    /// A screen of `kind` still waits for a host after `hostWait` (it keeps waiting).
    mutating func withoutHost(_ screen: ScreenID, kind: String, owner: FlowID?) -> Notice {
        screensWithoutHost += 1
        let text = "no host provides kind \(kind): screen \(screen.rawValue) has waited \(Double(hostWait) / 1000) s for one; "
            + "connect a host whose Hello lists \"\(kind)\" (`flowd describe \(appName)` shows its contract)"
        return Notice(.warning, text, ["screen": "\(screen)", "kind": "\(kind)"],
                      event: .init(kind: .noHost, screen: screen, flow: owner, name: kind, text: text))
    }

    /// Host `connection` (`label`) offered kinds the app does not use (it is told with `UNKNOWN_KIND`);
    /// `listed` names them for people, bounded (`AppCore.listed`). The event's `name` holds the first
    /// 16 of them, comma-separated.
    mutating func unknownKinds(_ kinds: [String], listed: String, from connection: UInt64, label: String) -> Notice {
        unknownKindsOffered += 1
        let text = "#\(connection) offers \(kinds.count) kind\(kinds.count == 1 ? "" : "s") app \(appName) does not use: \(listed)"
        return Notice(.warning, text, ["connection": "\(label)"],
                      event: .init(kind: .unknownKinds, connection: connection, name: kinds.prefix(16).map { $0.bounded(64) }.joined(separator: ","),
                                   text: text))
    }

    /// Host `connection` (`label`) refused a command for its screen of `kind` (the message names the
    /// kind and, for a State it cannot decode, the field).
    mutating func refused(_ error: Flowd_V1_Error, kind: String, owner: FlowID?, from connection: UInt64, label: String) -> Notice {
        commandsRefused += 1
        return Notice(.warning, "screen host refused a command", [
            "connection": "\(label)", "screen": "\(error.screenID)", "kind": "\(kind)", "serial": "\(error.serial)",
            "code": "\(error.code)", "message": "\(error.message.bounded(1024))",
        ], event: .init(kind: .screenRefused, screen: ScreenID(rawValue: error.screenID), flow: owner, connection: connection, name: kind,
                        serial: error.serial, text: "#\(connection) refused \(kind) \(error.screenID) serial \(error.serial): \(error.message)"))
    }
}
