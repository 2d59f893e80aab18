import FlowApp
import FlowKit
import FlowWire
import Foundation

/// Where an app and its screen hosts disagree, so that a screen never waits silently: hosts that
/// offer kinds the app does not use, screens no host provides a kind for after `--host-wait`, and
/// commands a host refused (a State it cannot decode). Counted for `Stats`.
struct ContractWatch {
    /// Attached screens waiting for a host, by the time they are reported.
    var hostWaits = TimerQueue<ScreenID>()
    var unknownKindsOffered: UInt64 = 0
    var screensWithoutHost: UInt64 = 0
    var commandsRefused: UInt64 = 0
}

extension DaemonCore {
    /// Starts the host-wait clock of a screen just placed, if it waits for an attached host.
    mutating func watchHostWait(_ screen: ScreenID) {
        guard configuration.hostWaitMilliseconds > 0, delivery.screens[screen]?.phase == .waitingForHost else { return }
        debug.contract.hostWaits.add(screen, at: loop.now + configuration.hostWaitMilliseconds)
    }

    /// Reports each screen still waiting for a host when its clock ran out (it keeps waiting).
    mutating func reportScreensWithoutHost(now: UInt64) {
        for screen in debug.contract.hostWaits.expired(now: now) {
            guard let waiting = delivery.screens[screen], waiting.phase == .waitingForHost else { continue }
            debug.contract.screensWithoutHost += 1
            let seconds = Double(configuration.hostWaitMilliseconds) / 1000
            let text = "no host provides kind \(waiting.kind): screen \(screen.rawValue) has waited \(seconds) s for one; "
                + "connect a host whose Hello lists \"\(waiting.kind)\" (`flowd describe \(appName)` shows its contract)"
            logger.warning("\(text)", metadata: ["screen": "\(screen)", "kind": "\(waiting.kind)"])
            debug.events.emit(.noHost, screen: screen, flow: runtime?.owner(of: screen), name: waiting.kind, text: text)
        }
    }

    /// A screen host offered kinds the app does not use (it is told with `UNKNOWN_KIND`).
    mutating func reportUnknownKinds(_ kinds: [String], from connection: Connection) {
        debug.contract.unknownKindsOffered += 1
        let text = "#\(connection.id) offers kinds app \(appName) does not use: \(kinds.joined(separator: ", "))"
        logger.warning("\(text)", metadata: ["connection": "\(connection.label)"])
        debug.events.emit(.unknownKinds, connection: connection.id, name: kinds.joined(separator: ","), text: text)
    }

    /// A screen host refused a command for one of its screens (its message names the kind and, for a
    /// State it cannot decode, the field).
    mutating func reportRefusal(_ error: Flowd_V1_Error, from connection: Connection) {
        debug.contract.commandsRefused += 1
        let screen = ScreenID(rawValue: error.screenID)
        let kind = delivery.screens[screen]?.kind ?? ""
        logger.warning("screen host refused a command", metadata: [
            "connection": "\(connection.label)", "screen": "\(error.screenID)", "kind": "\(kind)", "serial": "\(error.serial)",
            "code": "\(error.code)", "message": "\(error.message)",
        ])
        debug.events.emit(.screenRefused, screen: screen, flow: runtime?.owner(of: screen), connection: connection.id, name: kind,
                  serial: error.serial, text: "#\(connection.id) refused \(kind) \(error.screenID) serial \(error.serial): \(error.message)")
    }

    /// The app's screen contract, for `Describe` (`flowctl describe`).
    package func appContract() -> Flowd_V1_AppContract {
        var reply = Flowd_V1_AppContract()
        reply.app = appName
        let contract = app.map { AppContract($0).json } ?? .object(["app": .string(appName), "screens": .array([])])
        reply.contract = .json(Data(contract.text.utf8))
        return reply
    }
}
