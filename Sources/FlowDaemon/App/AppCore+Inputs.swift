import FlowKit
import FlowWire
import Foundation

/// What hosts and debug clients send the flows: acks, outputs, navigation, saved states. Each is
/// checked (an app runs, the screen is live, the sender hosts it, the key is new) and fed through
/// `feed`, or refused with a non-fatal `Error` to its sender.
extension AppCore {
    /// An `Ack` from the screen host on `host`.
    mutating func receiveAck(screen id: UInt64, serial: UInt64, seq: UInt64, from host: UInt64) {
        guard runtime != nil else {
            refuseWithoutApp(screen: id, seq: seq, to: host)
            return
        }
        let screen = ScreenID(rawValue: id)
        let (result, actions) = delivery.ack(screen, serial: serial, from: host)
        switch result {
        case .unknownScreen, .notYourScreen:
            if let error = refusal(of: id, hostedBy: host) { refuse(error, seq: seq, to: host) }
        case .unknownSerial(let lastSent):
            refuse(Flowd_V1_Error(
                code: .unknownSerial,
                message: "ack for serial \(serial) of screen \(id), but the last serial sent is \(lastSent)",
                screenID: id, serial: serial), seq: seq, to: host)
        case .stale:
            break
        case .accepted(let kind):
            debug.events.emit(.ack, screen: screen, flow: runtime?.owner(of: screen), connection: host, name: kind,
                      serial: serial, text: "ack \(kind) \(screen) serial \(serial)")
        }
        // An ack reaches the flows only through its actions (a dismissal it completes, fed to the
        // runtime): without any, there is nothing to settle (~0.15 k instructions an ack).
        guard !actions.isEmpty else { return }
        perform(actions)
        drive()
    }

    /// The error to answer an input about screen `id` with, unless it is live and `host` hosts it
    /// (nil `host`: a debug injection, any host).
    mutating func refusal(of id: UInt64, hostedBy host: UInt64?) -> Flowd_V1_Error? {
        delivery.refusal(of: ScreenID(rawValue: id), by: host).map { Self.error($0, screen: id) }
    }

    /// The error a host is answered for an input on screen `id` that `refusal` names.
    private static func error(_ refusal: ScreenDelivery.LookupError, screen id: UInt64) -> Flowd_V1_Error {
        switch refusal {
        case .unknownScreen:
            Flowd_V1_Error(code: .unknownScreen, message: "screen \(id) is not live (never placed, or already dismissed)", screenID: id)
        case .notYourScreen:
            Flowd_V1_Error(
                code: .notYourScreen, message: "screen \(id) is hosted by another connection; a host may act only on its own screens",
                screenID: id)
        }
    }

    /// An `Output` from the screen host on `host`, or injected by the debug client there (`injectedBy` its pid).
    mutating func receiveOutput(_ output: HostOutput, seq: UInt64, from host: UInt64, injectedBy pid: Int32? = nil) {
        let injected = pid != nil
        // The screen's facts come with the check of the host (one look-up): read in place, once each,
        // as a read through `delivery.screens` copies the whole screen out.
        guard let (runtime, screen, kind, isDismissing, outputContentType) = screenOfOutput(
            output.screenID, key: output.key, seq: seq, from: host, injected: injected) else { return }
        if isDismissing {
            // A late tap on a screen being removed: dropped without an error (docs/protocol.md).
            if injected { refuse(Flowd_V1_Error(code: .unknownScreen, message: "screen \(screen.rawValue) is being dismissed", screenID: output.screenID), seq: seq, to: host) }
            return
        }
        // The module's content type (the usual case, checked against the delivery's record just read),
        // or JSON (what people and simple clients write), turned into it by the runtime.
        let payload: Data
        do {
            payload = output.contentType == outputContentType
                ? output.data : try runtime.acceptedOutput(screen: screen, contentType: output.contentType, data: output.data)
        } catch {
            refuse(Flowd_V1_Error(code: .badPayload, message: error.message, screenID: output.screenID), seq: seq, to: host)
            return
        }
        debug.events.emit(injected ? .injected : .output, screen: screen, flow: runtime.owner(of: screen), connection: host,
                    name: kind, payload: runtime.eventPayload(output: output.payload, of: screen),
                    text: "\(injected ? "injected " : "")output \(kind) \(screen) \(Self.outputText(output.payload, screen: screen, runtime: runtime))")
        if let pid {
            throttle.log(logger, .notice, "injected", "debug client injected an output", [
                "pid": "\(pid)", "screen": "\(screen)", "output": "\(Self.outputText(output.payload, screen: screen, runtime: runtime))",
            ], now: loop.now)
        }
        do {
            try persistence.feedOutput(of: screen, payload: payload, key: output.key, at: loop.wallClock, into: runtime)
        } catch {
            let code: Flowd_V1_ErrorCode = error.code == .outputDecodingFailed ? .badPayload : .unknownScreen
            refuse(Flowd_V1_Error(code: code, message: error.message, screenID: output.screenID), seq: seq, to: host)
            return
        }
        drive()
        if injected { reply(to: host, seq: seq, "output delivered to the flow owning screen \(screen.rawValue)") }
    }

    /// An output's first 200 bytes of JSON, for a log line or an event's text.
    static func outputText(_ payload: Flowd_V1_Payload, screen: ScreenID, runtime: FlowRuntime) -> String {
        String(decoding: runtime.eventPayload(output: payload, of: screen).data.prefix(200), as: UTF8.self)
    }

    /// User navigation from the screen host on `host`, or injected by the debug client there (`injectedBy` its pid).
    /// `anyScreen`: from a display, which may navigate on any screen, as an injection may.
    mutating func receiveNavigation(_ message: Flowd_V1_UserNavigation, seq: UInt64, from host: UInt64, anyScreen: Bool = false,
                                    injectedBy pid: Int32? = nil) {
        let injected = pid != nil
        guard let (runtime, screen) = screenOfInput(message.screenID, key: message.key, what: "navigation", seq: seq, from: host,
                                                    injected: injected || anyScreen) else { return }
        if case .closeModal(let close)? = message.action, close.phase == .begin || close.phase == .cancel {
            if injected { reply(to: host, seq: seq, "nothing to do for close-modal \(close.phase)") }
            return
        }
        if case .closeWindow(let close)? = message.action, close.phase == .begin || close.phase == .cancel {
            if injected { reply(to: host, seq: seq, "nothing to do for close-window \(close.phase)") }
            return
        }
        guard let navigation = UserNavigation(message) else {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: "UserNavigation has no action or an unknown phase", screenID: message.screenID), seq: seq, to: host)
            return
        }
        debug.events.emit(.userNavigation, screen: screen, flow: runtime.owner(of: screen), connection: host,
                    name: delivery.screens[screen]?.kind ?? "", payload: EventPayloads.navigation(message), text: "\(injected ? "injected " : "")user \(navigation) on \(screen)")
        if let pid {
            throttle.log(logger, .notice, "injected", "debug client injected navigation",
                         ["pid": "\(pid)", "screen": "\(screen)", "navigation": "\(navigation)"], now: loop.now)
        }
        do {
            try feed(.userNavigation(navigation, screen: screen), key: message.key)
        } catch {
            refuse(Flowd_V1_Error(code: .invalidNavigation, message: error.message, screenID: message.screenID), seq: seq, to: host)
            return
        }
        drive()
        if injected { reply(to: host, seq: seq, "\(navigation) applied on screen \(screen.rawValue)") }
    }

    /// The runtime and the live screen an input from `host` names (any host's, when `injected`), or
    /// nil once answered: refused (no app, no such screen, not its host), or dropped as a repeat of
    /// an input already applied — sent again by a host that did not know whether it arrived: it
    /// did, and may have removed its screen since (docs/protocol.md §20).
    /// `screenOfInput` for an output, with what `ScreenDelivery.outputFacts(of:by:)` tells of the screen,
    /// read in the same look-up as the check of its host: the same checks in the same order.
    private mutating func screenOfOutput(_ id: UInt64, key: UInt64, seq: UInt64, from host: UInt64, injected: Bool)
        -> (FlowRuntime, ScreenID, kind: String, isDismissing: Bool, contentType: String)? {
        guard let runtime else {
            refuseWithoutApp(screen: id, seq: seq, to: host)
            return nil
        }
        if persistence.hasApplied(key) {
            logger.debug("dropped a repeated output", metadata: ["screen": "\(id)", "key": "\(key)"])
            return nil
        }
        let facts = delivery.outputFacts(of: ScreenID(rawValue: id), by: injected ? nil : host)
        if let refusal = facts.refusal {
            refuse(Self.error(refusal, screen: id), seq: seq, to: host)
            return nil
        }
        if persistence.journalFails, refusedByJournal(screen: id, seq: seq, from: host) { return nil }
        return (runtime, ScreenID(rawValue: id), facts.kind, facts.isDismissing, facts.contentType)
    }

    private mutating func screenOfInput(_ id: UInt64, key: UInt64, what: String, seq: UInt64, from host: UInt64,
                                        injected: Bool) -> (FlowRuntime, ScreenID)? {
        guard let runtime else {
            refuseWithoutApp(screen: id, seq: seq, to: host)
            return nil
        }
        if persistence.hasApplied(key) {
            logger.debug("dropped a repeated \(what)", metadata: ["screen": "\(id)", "key": "\(key)"])
            return nil
        }
        if let error = refusal(of: id, hostedBy: injected ? nil : host) {
            refuse(error, seq: seq, to: host)
            return nil
        }
        // A stored flag first: this runs once per input (a call that returns nil cost ~40 instructions).
        if persistence.journalFails, refusedByJournal(screen: id, seq: seq, from: host) { return nil }
        return (runtime, ScreenID(rawValue: id))
    }

    /// A host's saved state for one of its screens (docs/protocol.md §19): kept with the screen and
    /// journaled, handed back in every later `Place` of it. Not an input: the flows never see it.
    mutating func receiveSaveState(_ saved: Flowd_V1_SaveState, seq: UInt64, from host: UInt64) {
        guard runtime != nil else { return refuseWithoutApp(screen: saved.screenID, seq: seq, to: host) }
        guard saved.data.count <= WireProtocol.maxSavedStateBytes else {
            let message = "the saved state of screen \(saved.screenID) has \(saved.data.count) bytes; at most "
                + "\(WireProtocol.maxSavedStateBytes) are kept (keep what the user has not sent, not the screen's contents)"
            return refuse(Flowd_V1_Error(code: .limitExceeded, message: message, screenID: saved.screenID), seq: seq, to: host)
        }
        if let error = refusal(of: saved.screenID, hostedBy: host) { return refuse(error, seq: seq, to: host) }
        if refusedByJournal(screen: saved.screenID, savedBytes: saved.data.count, seq: seq, from: host) { return }
        let screen = ScreenID(rawValue: saved.screenID)
        // A screen being dismissed keeps nothing more (as a late output is dropped).
        guard delivery.save(saved.data, for: screen) else { return }
        persistence.recordSavedState(saved.data, for: screen)
    }

    /// Refuses an input (or a saved state of `savedBytes`) the journal cannot take now with a
    /// non-fatal `LIMIT_EXCEEDED`: its writes fail and what waits in memory is at its bound, or the
    /// saved states since the last checkpoint are. Nothing is applied. Logged once per episode.
    private mutating func refusedByJournal(screen: UInt64, savedBytes: Int = 0, seq: UInt64, from host: UInt64) -> Bool {
        guard let (message, first) = persistence.refusal(savedBytes: savedBytes) else { return false }
        if first { logger.warning("refusing inputs the journal cannot take", metadata: ["reason": "\(message)", "connection": "#\(host)"]) }
        refuse(Flowd_V1_Error(code: .limitExceeded, message: message, screenID: screen), seq: seq, to: host)
        return true
    }

    /// Refuses a screen message on a daemon started without an app.
    private mutating func refuseWithoutApp(screen: UInt64, seq: UInt64, to host: UInt64) {
        refuse(Flowd_V1_Error(code: .unknownScreen, message: "this daemon runs no app, so it has no screens", screenID: screen), seq: seq, to: host)
    }

    /// Answers a request from connection `host` with a non-fatal `Error` (fatal ones are the daemon's `reject`).
    mutating func refuse(_ error: Flowd_V1_Error, seq: UInt64, to host: UInt64) {
        logger.debug("refused a request", metadata: ["connection": "#\(host)", "code": "\(error.code)", "reason": "\(error.message)"])
        debug.events.emit(.error, screen: error.screenID == 0 ? nil : ScreenID(rawValue: error.screenID), connection: host,
                    text: "error to #\(host): \(error.code) \(error.message)")
        act(.send(.error(error), to: host, replyTo: seq))
    }

    /// Answers a debug command from connection `client` with success.
    mutating func reply(to client: UInt64, seq: UInt64, _ message: String) {
        var result = Flowd_V1_CommandResult()
        result.message = message
        act(.send(.commandResult(result), to: client, replyTo: seq))
    }
}
