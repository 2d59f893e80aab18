import FlowKit
import FlowWire

extension Daemon {
    /// An `Ack` from a screen host.
    func receiveAck(_ ack: Flowd_V1_Ack, seq: UInt64, from connection: Connection) {
        guard let directory else {
            refuseWithoutApp(screen: ack.screenID, seq: seq, to: connection)
            return
        }
        if let error = directory.acknowledge(ack, from: connection.id) {
            refuse(error, seq: seq, to: connection)
        }
    }

    /// An `Output` from a screen host, or injected by a debug client (`injected`).
    func receiveOutput(_ output: Flowd_V1_Output, seq: UInt64, from connection: Connection, injected: Bool) {
        guard let directory, let runtime else {
            refuseWithoutApp(screen: output.screenID, seq: seq, to: connection)
            return
        }
        let screen: ScreenID
        switch directory.screen(output.screenID, hostedBy: injected ? nil : connection.id) {
        case .failure(let error):
            refuse(error, seq: seq, to: connection)
            return
        case .success(let found):
            screen = found
        }
        if directory.isDismissing(screen) {
            // A late tap on a screen being removed: dropped without an error (docs/protocol.md).
            if injected { refuse(Flowd_V1_Error(code: .unknownScreen, message: "screen \(screen.rawValue) is being dismissed", screenID: output.screenID), seq: seq, to: connection) }
            return
        }
        guard output.payload.isJSON else {
            refuse(Flowd_V1_Error(
                code: .badPayload, message: "output content type '\(output.payload.contentType)' is not supported; send application/json",
                screenID: output.screenID), seq: seq, to: connection)
            return
        }
        let kind = directory.kind(of: screen) ?? ""
        let text = String(decoding: output.payload.data.prefix(200), as: UTF8.self)
        events.emit(injected ? .injected : .output, screen: screen, flow: runtime.owner(of: screen), connection: connection.id,
                    name: kind, payload: output.payload, text: "\(injected ? "injected " : "")output \(kind) \(screen) \(text)")
        if injected {
            logger.notice("debug client injected an output", metadata: ["pid": "\(connection.peerPID)", "screen": "\(screen)", "output": "\(text)"])
        }
        do {
            try runtime.receiveOutput(screen: screen, payload: output.payload.data)
        } catch {
            let code: Flowd_V1_ErrorCode = error.code == .outputDecodingFailed ? .badPayload : .unknownScreen
            refuse(Flowd_V1_Error(code: code, message: error.message, screenID: output.screenID), seq: seq, to: connection)
            return
        }
        if injected { reply(to: connection, seq: seq, "output delivered to the flow owning screen \(screen.rawValue)") }
    }

    /// User navigation from a screen host, or injected by a debug client.
    func receiveNavigation(_ message: Flowd_V1_UserNavigation, seq: UInt64, from connection: Connection, injected: Bool) {
        guard let directory, let runtime else {
            refuseWithoutApp(screen: message.screenID, seq: seq, to: connection)
            return
        }
        let screen: ScreenID
        switch directory.screen(message.screenID, hostedBy: injected ? nil : connection.id) {
        case .failure(let error):
            refuse(error, seq: seq, to: connection)
            return
        case .success(let found):
            screen = found
        }
        if case .closeModal(let close)? = message.action, close.phase == .begin || close.phase == .cancel {
            if injected { reply(to: connection, seq: seq, "nothing to do for close-modal \(close.phase)") }
            return
        }
        guard let navigation = UserNavigation(message) else {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: "UserNavigation has no action or an unknown phase", screenID: message.screenID), seq: seq, to: connection)
            return
        }
        events.emit(.userNavigation, screen: screen, flow: runtime.owner(of: screen), connection: connection.id,
                    name: directory.kind(of: screen) ?? "", payload: EventPayloads.navigation(message), text: "\(injected ? "injected " : "")user \(navigation) on \(screen)")
        if injected {
            logger.notice("debug client injected navigation", metadata: ["pid": "\(connection.peerPID)", "screen": "\(screen)", "navigation": "\(navigation)"])
        }
        directory.dismissReason = .userNavigation
        defer { directory.dismissReason = .flowFinished }
        do {
            try runtime.receiveUserNavigation(navigation, from: screen)
        } catch {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: error.message, screenID: message.screenID), seq: seq, to: connection)
            return
        }
        if injected { reply(to: connection, seq: seq, "\(navigation) applied on screen \(screen.rawValue)") }
    }

    /// Refuses a screen message on a daemon started without an app.
    private func refuseWithoutApp(screen: UInt64, seq: UInt64, to connection: Connection) {
        refuse(Flowd_V1_Error(code: .unknownScreen, message: "this daemon runs no app, so it has no screens", screenID: screen), seq: seq, to: connection)
    }

    /// Answers a request with a non-fatal `Error` (fatal ones go through `reject`).
    func refuse(_ error: Flowd_V1_Error, seq: UInt64, to connection: Connection) {
        logger.debug("refused a request", metadata: ["connection": "\(connection.label)", "code": "\(error.code)", "reason": "\(error.message)"])
        events.emit(.error, screen: error.screenID == 0 ? nil : ScreenID(rawValue: error.screenID), connection: connection.id,
                    text: "error to #\(connection.id): \(error.code) \(error.message)")
        send(.error(error), to: connection, replyTo: seq)
    }

    /// Answers a debug command with success.
    func reply(to connection: Connection, seq: UInt64, _ message: String) {
        var result = Flowd_V1_CommandResult()
        result.message = message
        send(.commandResult(result), to: connection, replyTo: seq)
    }
}
