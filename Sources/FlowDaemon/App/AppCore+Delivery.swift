import FlowApp
import FlowKit
import FlowKitWire
import FlowWire
import Foundation

extension AppCore {
    /// Applies what the runtime caused, and what that causes in turn (dismissals completed, screens
    /// lost, unwindings and the app's end), until the runtime is quiet. Every entry point that feeds
    /// the runtime or the delivery ends here; the runtime is never called from inside itself.
    mutating func drive() {
        loop.assertOnLoop()
        guard let runtime else { return }
        // The buffer is reused from one input to the next: no allocation per input.
        var effects = effectBuffer
        effectBuffer = []
        defer { effectBuffer = effects }
        runtime.settle(reusing: &effects) { effect in
            switch effect {
            case .flow(let event):
                if debug.events.hasSubscribers { debug.events.flow(event) } else { debug.events.countUnheard() }
            case .command(let command):
                persistence.observe(command)
                deliver(command)
            case .request(let request):
                startRequest(request)
            case .cancelRequest(let id):
                cancelRequest(id)
            case .unwound(.all, let report):
                flowsUnwound(report)
            case .unwound(.flow(let flow), let report):
                terminated(flow, report: report)
            case .root(let outcome):
                appReported(outcome)
            }
        }
    }

    /// Gives one screen command to the delivery state machine, reports it, and performs what it says.
    mutating func deliver(_ command: ScreenCommand) {
        let listened = debug.events.hasSubscribers
        let kind = listened ? delivery.screens[command.screen]?.kind ?? "" : ""
        var actions = deliveryBuffer
        deliveryBuffer = []
        // Static, given the one field it reads: a method on `self` here copied the whole `AppCore`
        // (1.6 KB, ~0.2 k instructions per command in `memcpy`, callgrind of `flowd-echo`).
        let route = Self.route(for: command, app: app)
        displays.observe(command)
        let serial = delivery.apply(command, route: route, now: loop.now, into: &actions)
        // A deferred factory's pool is decided at its first screen, after that screen's own spawn:
        // the pool's processes start after the call, so none of them could serve it any sooner.
        if case .place(let place) = command, !poolsDecided.contains(place.kind) { decidePool(of: place.kind) }
        if let serial {
            if listened {
                debug.events.command(command, kind: kind, serial: serial, runtime: runtime, contentType: stateContentType(of: command.screen),
                                     delivered: delivery.screens[command.screen] != nil)
            } else {
                debug.events.countUnheard()
            }
        }
        if case .place(let place) = command { watchHostWait(place.screen) }
        perform(&actions)
        deliveryBuffer = actions
    }

    /// The content type of a screen's states (its `Place`'s, kept by the delivery).
    mutating func stateContentType(of screen: ScreenID) -> String {
        delivery.stateContentType(of: screen) ?? WireProtocol.jsonContentType
    }

    /// How a placed screen's host is found: the app's factory for its kind.
    private static func route(for command: ScreenCommand, app: FlowApp.App?) -> ScreenDelivery.Route {
        guard case .place(let place) = command, let app else { return .attached }
        if case .spawn(_, _, _, let restart, _) = app.factory(for: place.kind).resolved { return .spawn(restart) }
        return .attached
    }

    /// Performs the delivery's actions: what concerns the flows here, the rest as the daemon's actions.
    mutating func perform(_ actions: [ScreenDelivery.Action]) {
        var actions = actions
        perform(&actions)
    }

    /// Performs `actions`, leaving the buffer empty (its storage kept for reuse).
    mutating func perform(_ actions: inout [ScreenDelivery.Action]) {
        actions.takeEach { action in
            switch action {
            case .send(let outgoing, let host):
                act(.command(outgoing, to: host, stateContentType: stateContentType(of: outgoing.command.screen)))
            case .spawn(let screen, let kind):
                act(.spawn(screen, kind: kind))
            case .dismissalCompleted(let screen, let outcome):
                _ = try? feed(.dismissalCompleted(screen, outcome))
            case .screenLost(let screen, let kind, let host):
                logger.notice("screen lost", metadata: ["screen": "\(screen)", "kind": "\(kind)", "connection": "\(host.map(String.init) ?? "none")"])
                let owner = runtime?.owner(of: screen)
                _ = try? feed(.screenLost(screen))
                if debug.events.hasSubscribers {
                    debug.events.screenLost(screen, kind: kind, owner: owner, host: host, runtime: runtime)
                } else {
                    debug.events.countUnheard()
                }
            case .ackTimedOut(let screen, let kind, let serial, let host):
                logger.warning("screen did not acknowledge in time; removed by force", metadata: [
                    "screen": "\(screen)", "kind": "\(kind)", "serial": "\(serial)",
                ])
                if let host {
                    act(.send(.error(Flowd_V1_Error(
                        code: .ackTimeout,
                        message: "screen \(screen.rawValue) did not acknowledge serial \(serial) within \(configuration.ackTimeoutMilliseconds) ms; it was removed",
                        screenID: screen.rawValue, serial: serial)), to: host, replyTo: 0))
                }
            case .retire(let host, let reason):
                act(.retire(host: host, shutdown: .init(reason: .screenDismissed, message: reason), reason: reason))
            case .restarted(let screen, _, _, _), .restartGaveUp(let screen, _, _, _):
                act(.survival(action, owner: runtime?.owner(of: screen)))
            case .detached, .resumed, .resumeExpired:
                act(.survival(action, owner: nil))
            case .waitingForHost(let screen, let kind):
                logger.info("screen waits for the next host of its kind", metadata: ["screen": "\(screen)", "kind": "\(kind)"])
                watchHostWait(screen)
            case .spawnPooled, .tookPooled, .stopPooled, .poolSuspended:
                performPool(action)
            case .hostFull(let screen, let kind, let host, let count):
                throttle.log(logger, .warning, "host-full", "a screen host is full; the screen waits for a host with room", [
                    "screen": "\(screen)", "kind": "\(kind.bounded(64))", "connection": "\(host)", "screens": "\(count)",
                ], now: loop.now)
                act(.send(.error(Flowd_V1_Error(
                    code: .limitExceeded,
                    message: "screen \(screen.rawValue) (kind \(kind.bounded(64))) was not given to this host: it shows \(count) screens, "
                        + "the limit of one host (flowd --max-screens-per-host); it waits for a host of its kind with room",
                    screenID: screen.rawValue)), to: host, replyTo: 0))
                watchHostWait(screen)
            case .hostHasRoom(let host):
                perform(delivery.hostHasRoom(host, now: loop.now))
            }
        }
    }

    /// Whether `screen` still waits for the process the daemon is to start for it (not dismissed
    /// since it asked): the daemon starts none for a screen that no longer does.
    func awaitsProcess(_ screen: ScreenID) -> Bool {
        delivery.screens[screen]?.phase == .spawning
    }

    /// The process the daemon started for `screen` runs, on connection `host`.
    mutating func spawned(_ screen: ScreenID, host: UInt64) {
        perform(delivery.spawned(screen, host: host, now: loop.now))
        drive()
    }

    /// No process could be started for `screen`.
    mutating func spawnFailed(_ screen: ScreenID) {
        perform(delivery.spawnFailed(screen))
        drive()
    }

    /// A screen host finished its handshake on `host` (`resuming` the screens of the dropped host
    /// with that id, if set). `spawned`: flowd started it, for the screen or pool it was started for.
    mutating func hostJoined(_ host: UInt64, label: String, pid: Int32, provides: [String], spawned: Bool, resuming old: UInt64? = nil) {
        if !spawned, let app {
            let known = appKinds
            let unknown = provides.filter { !known.isEmpty && !known.contains($0) }
            if !unknown.isEmpty {
                let listed = Self.listed(unknown)
                tell(debug.contract.unknownKinds(unknown, listed: listed, from: host, label: label))
                act(.send(.error(Flowd_V1_Error(
                    code: .unknownKind,
                    message: "app \(app.name) uses none of the kinds \(listed); it uses \(Self.listed(known.sorted()))")),
                    to: host, replyTo: 0))
            }
        }
        if let old {
            perform(delivery.resume(old, as: host, provides: provides, now: loop.now))
        } else {
            perform(delivery.hostJoined(host, provides: spawned ? [] : provides, now: loop.now))
            if let member = delivery.pool.members[host] { pooledProcessReady(host, label: label, pid: pid, kind: member.kind) }
        }
        drive()
    }

    /// What a peer whose frame size is `limit` can do about a frame over it, when the daemon allows
    /// up to `ceiling`.
    static func frameSizeAdvice(limit: Int, ceiling: Int) -> String {
        limit < ceiling
            ? "connect with a larger max_frame_size in Hello (this daemon allows up to \(ceiling) bytes)."
            : "start flowd with a larger --max-frame-size (now \(ceiling) bytes)."
    }

    /// Names from a peer, for a message or a log line: at most 16, each bounded, then how many more
    /// (a host offering 1,000 unknown kinds gets an error that fits any frame, and the log one line).
    static func listed(_ names: [String]) -> String {
        let shown = names.prefix(16).map { $0.bounded(64) }.joined(separator: ", ")
        return names.count > 16 ? "\(shown) and \(names.count - 16) more" : shown
    }

    /// The connection `host` closed: its screens are lost, held for a restart or a resume, or
    /// complete their dismissal as `hostLost`.
    mutating func hostLeft(_ host: UInt64, resumable: Bool) {
        // Once the shutdown began the delivery holds nothing (`holdsScreensOfLostHosts`).
        perform(delivery.hostLost(host, now: loop.now, resumable: resumable))
        drive()
    }

    /// The process flowd started on connection `host` exited: the delivery restarts, holds or loses its screen.
    mutating func processExited(_ host: UInt64, abnormally: Bool) {
        perform(delivery.processExited(host, abnormally: abnormally, now: loop.now))
        drive()
    }

    /// A screen command could not be sent to `host`: its frame is `length` bytes, over the host's
    /// maximum frame size `limit` (`ceiling`: the daemon's own). The host is told with a non-fatal
    /// `LIMIT_EXCEEDED` naming the screen, the serial, the size and the limit; the screen is removed
    /// at once as a screen its host cannot show (`ScreenDelivery.undeliverable`), and its flow hears it
    /// was lost. Never an `ACK_TIMEOUT` for a serial that was not sent.
    mutating func undeliverable(_ outgoing: ScreenDelivery.Outgoing, host: UInt64, length: Int, limit: Int, ceiling: Int) {
        let command = outgoing.command
        let screen = command.screen
        let kind = delivery.screens[screen]?.kind ?? ""
        let name = switch command {
        case .place: "Place"
        case .update: "Update"
        case .placementChanged: "PlacementChanged"
        case .dismiss: "Dismiss"
        }
        act(.send(.error(Flowd_V1_Error(
            code: .limitExceeded,
            message: "the \(name) of screen \(screen.rawValue) (kind \(kind.bounded(64)), serial \(outgoing.serial)) is \(length) bytes, "
                + "over this connection's maximum frame size of \(limit) bytes; it was not sent and the screen was removed. "
                + "Keep the screen's state smaller, or: \(Self.frameSizeAdvice(limit: limit, ceiling: ceiling))",
            screenID: screen.rawValue, serial: outgoing.serial)), to: host, replyTo: 0))
        if case .place = command {
            perform(delivery.undeliverable(screen, host: host, hostHasScreen: false))
        } else {
            perform(delivery.undeliverable(screen, host: host, hostHasScreen: true))
        }
        drive()
    }

    /// A host reported an `Error` about one of its screens: the contract watch counts and tells it.
    mutating func hostRefused(_ error: Flowd_V1_Error, host: UInt64, label: String) {
        let screen = ScreenID(rawValue: error.screenID)
        tell(debug.contract.refused(error, kind: delivery.screens[screen]?.kind ?? "", owner: runtime?.owner(of: screen), from: host, label: label))
    }

    /// Starts the host-wait clock of a screen just placed (or whose host left), if it waits for an attached host.
    mutating func watchHostWait(_ screen: ScreenID) {
        guard debug.contract.hostWait > 0 else { return }
        debug.contract.placed(screen, waitsForHost: delivery.screens[screen]?.phase == .waitingForHost, now: loop.now)
    }
}
