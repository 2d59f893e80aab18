import FlowKit
import FlowWire
import Foundation

/// A live screen found for a request, or the error to answer it with.
enum ScreenLookup {
    case success(ScreenID)
    case failure(Flowd_V1_Error)
}

extension DaemonCore {
    /// An `Ack` from a screen host.
    mutating func receiveAck(_ ack: Flowd_V1_Ack, seq: UInt64, from connection: Connection) {
        guard runtime != nil else {
            refuseWithoutApp(screen: ack.screenID, seq: seq, to: connection)
            return
        }
        let screen = ScreenID(rawValue: ack.screenID)
        let (result, actions) = delivery.ack(screen, serial: ack.serial, from: connection.id)
        switch result {
        case .unknownScreen, .notYourScreen:
            if case .failure(let error) = lookup(ack.screenID, hostedBy: connection.id) { refuse(error, seq: seq, to: connection) }
        case .unknownSerial(let lastSent):
            refuse(Flowd_V1_Error(
                code: .unknownSerial,
                message: "ack for serial \(ack.serial) of screen \(ack.screenID), but the last serial sent is \(lastSent)",
                screenID: ack.screenID, serial: ack.serial), seq: seq, to: connection)
        case .stale:
            break
        case .accepted(let kind):
            debug.events.emit(.ack, screen: screen, flow: runtime?.owner(of: screen), connection: connection.id, name: kind,
                      serial: ack.serial, text: "ack \(kind) \(screen) serial \(ack.serial)")
        }
        perform(actions)
        drive()
    }

    /// The screen named by `id` if it is live and `connectionID` hosts it (nil `connectionID`: a debug
    /// injection, any host); otherwise the error to answer.
    mutating func lookup(_ id: UInt64, hostedBy connectionID: UInt64?) -> ScreenLookup {
        switch delivery.refusal(of: ScreenID(rawValue: id), by: connectionID) {
        case nil: .success(ScreenID(rawValue: id))
        case .unknownScreen:
            .failure(Flowd_V1_Error(code: .unknownScreen, message: "screen \(id) is not live (never placed, or already dismissed)", screenID: id))
        case .notYourScreen:
            .failure(Flowd_V1_Error(
                code: .notYourScreen, message: "screen \(id) is hosted by another connection; a host may act only on its own screens",
                screenID: id))
        }
    }

    /// An `Output` from a screen host, or injected by a debug client (`injected`).
    mutating func receiveOutput(_ output: Flowd_V1_Output, seq: UInt64, from connection: Connection, injected: Bool) {
        guard let (runtime, screen) = screenOfInput(output.screenID, key: output.key, what: "output", seq: seq, from: connection,
                                                    injected: injected) else { return }
        // Read in place, once each: a read through `delivery.screens` copies the whole screen out, and
        // each read of `output.payload` copies the payload out of the message's storage.
        let (kind, isDismissing) = delivery.kindAndDismissing(of: screen) ?? ("", false)
        if isDismissing {
            // A late tap on a screen being removed: dropped without an error (docs/protocol.md).
            if injected { refuse(Flowd_V1_Error(code: .unknownScreen, message: "screen \(screen.rawValue) is being dismissed", screenID: output.screenID), seq: seq, to: connection) }
            return
        }
        let message = output.payload
        // The module's content type, or JSON (what people and simple clients write), turned into it.
        let payload: Data
        do {
            payload = try runtime.acceptedOutput(screen: screen, contentType: message.contentType, data: message.data)
        } catch {
            refuse(Flowd_V1_Error(code: .badPayload, message: error.message, screenID: output.screenID), seq: seq, to: connection)
            return
        }
        debug.events.emit(injected ? .injected : .output, screen: screen, flow: runtime.owner(of: screen), connection: connection.id,
                    name: kind, payload: runtime.eventPayload(output: message, of: screen),
                    text: "\(injected ? "injected " : "")output \(kind) \(screen) \(Self.outputText(message, screen: screen, runtime: runtime))")
        if injected {
            logger.notice("debug client injected an output", metadata: [
                "pid": "\(connection.peerPID)", "screen": "\(screen)", "output": "\(Self.outputText(message, screen: screen, runtime: runtime))",
            ])
        }
        do {
            try feed(.output(screen, payload: payload), key: output.key)
        } catch {
            let code: Flowd_V1_ErrorCode = error.code == .outputDecodingFailed ? .badPayload : .unknownScreen
            refuse(Flowd_V1_Error(code: code, message: error.message, screenID: output.screenID), seq: seq, to: connection)
            return
        }
        drive()
        if injected { reply(to: connection, seq: seq, "output delivered to the flow owning screen \(screen.rawValue)") }
    }

    /// An output's first 200 bytes of JSON, for a log line or an event's text.
    static func outputText(_ payload: Flowd_V1_Payload, screen: ScreenID, runtime: FlowRuntime) -> String {
        String(decoding: runtime.eventPayload(output: payload, of: screen).data.prefix(200), as: UTF8.self)
    }

    /// User navigation from a screen host, or injected by a debug client.
    mutating func receiveNavigation(_ message: Flowd_V1_UserNavigation, seq: UInt64, from connection: Connection, injected: Bool) {
        guard let (runtime, screen) = screenOfInput(message.screenID, key: message.key, what: "navigation", seq: seq, from: connection,
                                                    injected: injected) else { return }
        if case .closeModal(let close)? = message.action, close.phase == .begin || close.phase == .cancel {
            if injected { reply(to: connection, seq: seq, "nothing to do for close-modal \(close.phase)") }
            return
        }
        guard let navigation = UserNavigation(message) else {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: "UserNavigation has no action or an unknown phase", screenID: message.screenID), seq: seq, to: connection)
            return
        }
        debug.events.emit(.userNavigation, screen: screen, flow: runtime.owner(of: screen), connection: connection.id,
                    name: delivery.screens[screen]?.kind ?? "", payload: EventPayloads.navigation(message), text: "\(injected ? "injected " : "")user \(navigation) on \(screen)")
        if injected {
            logger.notice("debug client injected navigation", metadata: ["pid": "\(connection.peerPID)", "screen": "\(screen)", "navigation": "\(navigation)"])
        }
        do {
            try feed(.userNavigation(navigation, screen: screen), key: message.key)
        } catch {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: error.message, screenID: message.screenID), seq: seq, to: connection)
            return
        }
        drive()
        if injected { reply(to: connection, seq: seq, "\(navigation) applied on screen \(screen.rawValue)") }
    }

    /// The runtime and the live screen an input from `connection` names (any host's, when
    /// `injected`), or nil once answered: refused (no app, no such screen, not its host), or dropped
    /// as a repeat of an input already applied — sent again by a host that did not know whether it
    /// arrived: it did, and may have removed its screen since (docs/protocol.md §20).
    private mutating func screenOfInput(_ id: UInt64, key: UInt64, what: String, seq: UInt64, from connection: Connection,
                                        injected: Bool) -> (FlowRuntime, ScreenID)? {
        guard let runtime else {
            refuseWithoutApp(screen: id, seq: seq, to: connection)
            return nil
        }
        if persistence.hasApplied(key) {
            logger.debug("dropped a repeated \(what)", metadata: ["screen": "\(id)", "key": "\(key)"])
            return nil
        }
        switch lookup(id, hostedBy: injected ? nil : connection.id) {
        case .failure(let error):
            refuse(error, seq: seq, to: connection)
            return nil
        case .success(let screen):
            return (runtime, screen)
        }
    }

    /// A host's saved state for one of its screens (docs/protocol.md §19): kept with the screen and
    /// journaled, handed back in every later `Place` of it. Not an input: the flows never see it.
    mutating func receiveSaveState(_ saved: Flowd_V1_SaveState, seq: UInt64, from connection: Connection) {
        guard runtime != nil else { return refuseWithoutApp(screen: saved.screenID, seq: seq, to: connection) }
        guard saved.data.count <= WireProtocol.maxSavedStateBytes else {
            let message = "the saved state of screen \(saved.screenID) has \(saved.data.count) bytes; at most "
                + "\(WireProtocol.maxSavedStateBytes) are kept (keep what the user has not sent, not the screen's contents)"
            return refuse(Flowd_V1_Error(code: .limitExceeded, message: message, screenID: saved.screenID), seq: seq, to: connection)
        }
        switch lookup(saved.screenID, hostedBy: connection.id) {
        case .failure(let error):
            refuse(error, seq: seq, to: connection)
        case .success(let screen):
            // A screen being dismissed keeps nothing more (as a late output is dropped).
            guard delivery.save(saved.data, for: screen) else { return }
            persistence.recordSavedState(saved.data, for: screen)
        }
    }

    /// Refuses a screen message on a daemon started without an app.
    private mutating func refuseWithoutApp(screen: UInt64, seq: UInt64, to connection: Connection) {
        refuse(Flowd_V1_Error(code: .unknownScreen, message: "this daemon runs no app, so it has no screens", screenID: screen), seq: seq, to: connection)
    }

    /// Answers a request with a non-fatal `Error` (fatal ones go through `reject`).
    mutating func refuse(_ error: Flowd_V1_Error, seq: UInt64, to connection: Connection) {
        logger.debug("refused a request", metadata: ["connection": "\(connection.label)", "code": "\(error.code)", "reason": "\(error.message)"])
        debug.events.emit(.error, screen: error.screenID == 0 ? nil : ScreenID(rawValue: error.screenID), connection: connection.id,
                    text: "error to #\(connection.id): \(error.code) \(error.message)")
        send(.error(error), to: connection, replyTo: seq)
    }

    /// Answers a debug command with success.
    mutating func reply(to connection: Connection, seq: UInt64, _ message: String) {
        var result = Flowd_V1_CommandResult()
        result.message = message
        send(.commandResult(result), to: connection, replyTo: seq)
    }
}
