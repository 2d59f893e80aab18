import DequeModule
import FlowKit
import FlowWire
import Foundation
import Logging

/// The daemon's `ScreenTransport`: it knows which connection hosts each
/// screen, turns FlowKit's commands into `Place`/`Update`/`PlacementChanged`/
/// `Dismiss` frames with per-screen serials, holds commands until a host is
/// ready, and completes dismissals on ack, timeout or host loss. Loop thread only.
final class ScreenDirectory: ScreenTransport {
    /// One live screen as the wire sees it.
    struct Entry {
        let kind: String
        /// The connection hosting it; nil while it waits for an attached host.
        var hostID: UInt64?
        var serials = ScreenSerials()
        /// Completes the screen's dismissal, once `Dismiss` was sent.
        var dismissal: ((DismissOutcome) -> Void)?
    }

    /// A connection that hosts screens.
    final class Host {
        let connectionID: UInt64
        var provides: [String] = []
        var screens: Set<ScreenID> = []
        /// Commands held until the handshake is done (spawned hosts).
        var held: [(ScreenID, Flowd_V1_Envelope.OneOf_Body)] = []
        var isReady = false
        var isGone = false
        /// Set for hosts the daemon spawned for one screen.
        var spawned: SpawnedScreen?

        init(connectionID: UInt64) { self.connectionID = connectionID }
    }

    unowned let daemon: Daemon
    let app: App
    var entries: [ScreenID: Entry] = [:]
    private(set) var hosts: [UInt64: Host] = [:]
    /// Attached hosts by the kinds they provide, oldest first.
    private var hostsByKind: [String: [UInt64]] = [:]
    /// Screens of attached kinds that wait for a host, by kind, in order.
    private var waiting: [String: Deque<ScreenID>] = [:]
    /// Commands waiting for their ack, in send order (one timeout for all, so FIFO).
    private var ackDeadlines: Deque<(screen: ScreenID, serial: UInt64, at: UInt64)> = []
    /// Spawned processes that have not exited yet, by pid.
    private(set) var children: [Int32: SpawnedScreen] = [:]
    /// The reason put in `Dismiss` frames sent while it is set.
    var dismissReason: Flowd_V1_Dismiss.Reason = .flowFinished
    /// Set by the daemon once the runtime exists (the runtime retains us).
    unowned(unsafe) var runtime: FlowRuntime!
    let encoder = JSONEncoder()

    init(daemon: Daemon, app: App) {
        self.daemon = daemon
        self.app = app
    }

    var logger: Logger { daemon.logger }

    /// Screens with a command not acknowledged yet.
    var pendingAckCount: Int { entries.values.count { $0.hostID != nil && $0.serials.isPending } }

    // MARK: ScreenTransport

    func place(_ screen: ScreenID, kind: String, state: Data, placement: FlowKit.Placement) {
        var entry = Entry(kind: kind)
        var place = Flowd_V1_Place()
        place.screenID = screen.rawValue
        place.kind = kind
        place.state = .json(state)
        place.placement = Flowd_V1_Placement(placement, screen: screen, tabCounts: tabCounts(for: placement))
        place.serial = entry.serials.next()
        if let owner = runtime.owner(of: screen) {
            place.flowID = owner.rawValue
            place.flowType = runtime.typeName(of: owner) ?? ""
        }
        entries[screen] = entry
        daemon.events.emit(.place, screen: screen, flow: runtime.owner(of: screen), name: kind, serial: place.serial,
                           placement: place.placement, payload: place.state, text: "place \(kind) \(screen) at \(placement)")

        switch app.factory(for: kind).resolved {
        case .attached:
            if let host = attachedHost(for: kind) {
                assign(screen, to: host)
            } else {
                waiting[kind, default: []].append(screen)
                logger.notice("screen waits for a host", metadata: ["screen": "\(screen)", "kind": "\(kind)"])
            }
        case .spawn(let executable, let arguments, let environment):
            do {
                let host = try spawnHost(for: screen, kind: kind, executable: executable, arguments: arguments, environment: environment)
                assign(screen, to: host)
            } catch {
                logger.error("cannot spawn a screen", metadata: ["screen": "\(screen)", "kind": "\(kind)", "error": "\(error)"])
                entries[screen] = nil
                entry.hostID = nil
                // FlowKit may not be re-entered from inside place(); report the loss next iteration.
                daemon.later { [weak self] in self?.runtime.screenLost(screen) }
                return
            }
        case .deferred:
            preconditionFailure("ScreenFactory.resolved never returns .deferred")
        }
        // A screen waiting for an attached host has no ack clock until one arrives.
        if entries[screen]?.hostID != nil { expectAck(screen, serial: place.serial) }
        deliver(.place(place), for: screen)
    }

    func update(_ screen: ScreenID, state: Data) {
        // One hash look-up, the entry mutated in place: this runs for every output a flow answers.
        guard let index = entries.index(forKey: screen), entries.values[index].dismissal == nil else { return }
        var update = Flowd_V1_Update()
        update.screenID = screen.rawValue
        update.serial = entries.values[index].serials.next()
        update.state = .json(state)
        let entry = entries.values[index]
        daemon.events.emit(.update, screen: screen, flow: runtime.owner(of: screen), name: entry.kind, serial: update.serial,
                           payload: update.state, text: "update \(entry.kind) \(screen)")
        if entry.hostID != nil { expectAck(screen, serial: update.serial) }
        deliver(.update(update), for: screen)
    }

    func placementChanged(_ screen: ScreenID, placement: FlowKit.Placement, change: PlacementChange) {
        guard let index = entries.index(forKey: screen), entries.values[index].dismissal == nil else { return }
        var message = Flowd_V1_PlacementChanged()
        message.screenID = screen.rawValue
        message.serial = entries.values[index].serials.next()
        message.change = Flowd_V1_PlacementChanged.Change(change)
        message.placement = Flowd_V1_Placement(placement, screen: screen, tabCounts: tabCounts(for: placement))
        let entry = entries.values[index]
        daemon.events.emit(.placementChanged, screen: screen, flow: runtime.owner(of: screen), name: entry.kind, serial: message.serial,
                           placement: message.placement, text: "\(change) \(entry.kind) \(screen) now \(placement)")
        if entry.hostID != nil { expectAck(screen, serial: message.serial) }
        deliver(.placementChanged(message), for: screen)
    }

    func dismiss(_ screen: ScreenID, animated: Bool, completion: @escaping (DismissOutcome) -> Void) {
        guard var entry = entries[screen] else {
            completion(.hostLost)
            return
        }
        guard let hostID = entry.hostID, hosts[hostID]?.isGone == false else {
            // Never shown (no host yet) or its host is gone: nothing to wait for.
            if entry.hostID == nil { waiting[entry.kind]?.removeAll { $0 == screen } }
            entries[screen] = nil
            held[screen] = nil
            daemon.events.emit(.dismiss, screen: screen, flow: runtime.owner(of: screen), name: entry.kind,
                               serial: entry.serials.lastSent + 1, text: "dismiss \(entry.kind) \(screen) (never shown or host gone)")
            completion(entry.hostID == nil ? .acknowledged : .hostLost)
            return
        }
        var message = Flowd_V1_Dismiss()
        message.screenID = screen.rawValue
        message.serial = entry.serials.nextDismiss()
        message.animated = animated
        message.reason = dismissReason
        entry.dismissal = completion
        entries[screen] = entry
        expectAck(screen, serial: message.serial)
        daemon.events.emit(.dismiss, screen: screen, flow: runtime.owner(of: screen), name: entry.kind, serial: message.serial,
                           text: "dismiss \(entry.kind) \(screen)\(animated ? " animated" : "") (\(dismissReason))")
        deliver(.dismiss(message), for: screen)
    }

    // MARK: Hosts

    /// The oldest ready attached host that provides `kind`.
    private func attachedHost(for kind: String) -> Host? {
        for id in hostsByKind[kind] ?? [] {
            if let host = hosts[id], host.isReady, !host.isGone { return host }
        }
        return nil
    }

    private func assign(_ screen: ScreenID, to host: Host) {
        entries[screen]?.hostID = host.connectionID
        host.screens.insert(screen)
    }

    /// Starts the ack clock of a command.
    private func expectAck(_ screen: ScreenID, serial: UInt64) {
        ackDeadlines.append((screen, serial, daemon.loop.now + daemon.configuration.ackTimeoutMilliseconds))
        if ackDeadlines.count == 1 { daemon.armDeadlineTimer() }
    }

    /// Sends a command to the screen's host now, or holds it until the host is ready.
    private func deliver(_ body: Flowd_V1_Envelope.OneOf_Body, for screen: ScreenID) {
        guard let hostID = entries[screen]?.hostID, let host = hosts[hostID], !host.isGone else {
            if entries[screen]?.hostID == nil { held[screen, default: []].append(body) }
            return
        }
        guard host.isReady, let connection = daemon.connections[hostID] else {
            host.held.append((screen, body))
            return
        }
        daemon.send(body, to: connection)
    }

    /// Commands for screens that wait for an attached host.
    private var held: [ScreenID: [Flowd_V1_Envelope.OneOf_Body]] = [:]

    /// A screen host finished its handshake: attached hosts take waiting
    /// screens of their kinds; spawned hosts get their held commands.
    func hostJoined(_ connection: Connection, provides: [String]) {
        let host = hosts[connection.id] ?? Host(connectionID: connection.id)
        hosts[connection.id] = host
        host.isReady = true
        if host.spawned == nil {
            let known = Set(app.screens.keys)
            host.provides = provides
            let unknown = provides.filter { !known.isEmpty && !known.contains($0) }
            if !unknown.isEmpty {
                daemon.send(.error(Flowd_V1_Error(
                    code: .unknownKind,
                    message: "app \(app.name) uses none of the kinds \(unknown.joined(separator: ", ")); it uses \(known.sorted().joined(separator: ", "))")),
                    to: connection)
            }
            for kind in provides {
                hostsByKind[kind, default: []].append(connection.id)
                while let screen = waiting[kind]?.popFirst() {
                    assign(screen, to: host)
                    for body in held.removeValue(forKey: screen) ?? [] {
                        if let serial = Flowd_V1_Envelope.serial(of: body) { expectAck(screen, serial: serial) }
                        deliver(body, for: screen)
                    }
                }
            }
        }
        let pending = host.held
        host.held.removeAll()
        for (_, body) in pending { daemon.send(body, to: connection) }
    }

    /// A hosting connection closed: its screens are lost (or, mid-dismissal, gone).
    func hostLeft(_ connectionID: UInt64) {
        guard let host = hosts[connectionID] else { return }
        host.isGone = true
        for kind in host.provides { hostsByKind[kind]?.removeAll { $0 == connectionID } }
        let lost = host.screens.sorted(by: >)
        for screen in lost {
            guard let entry = entries[screen], entry.hostID == connectionID else { continue }
            if entry.dismissal != nil {
                finishDismissal(screen, .hostLost)
            } else {
                logger.notice("screen lost with its host", metadata: ["screen": "\(screen)", "kind": "\(entry.kind)", "connection": "\(connectionID)"])
                forget(screen)
                runtime.screenLost(screen)
            }
        }
        hosts[connectionID] = nil
        if let spawned = host.spawned { spawned.connectionClosed() }
    }

    /// Completes a dismissal: forgets the screen and retires a spawned host.
    func finishDismissal(_ screen: ScreenID, _ outcome: DismissOutcome) {
        guard let entry = entries.removeValue(forKey: screen) else { return }
        if let hostID = entry.hostID, let host = hosts[hostID] {
            host.screens.remove(screen)
            if let spawned = host.spawned, host.screens.isEmpty, !host.isGone {
                spawned.retire(reason: "its screen \(screen) was dismissed")
            }
        }
        entry.dismissal?(outcome)
    }

    // MARK: Deadlines

    /// The earliest ack deadline, for the daemon's one timer.
    var nextAckDeadline: UInt64? { ackDeadlines.first?.at }

    /// Force-removes screens whose host did not acknowledge a command in
    /// time: a late `Dismiss` completes as timed out; any other late command
    /// makes the screen lost for its flow (and the host is told to drop it).
    func expireAckDeadlines(now: UInt64) {
        while let first = ackDeadlines.first, first.at <= now {
            ackDeadlines.removeFirst()
            guard let entry = entries[first.screen], entry.serials.acked < first.serial else { continue }
            let timeout = daemon.configuration.ackTimeoutMilliseconds
            logger.warning("screen did not acknowledge in time; removed by force", metadata: [
                "screen": "\(first.screen)", "kind": "\(entry.kind)", "serial": "\(first.serial)",
            ])
            let connection = entry.hostID.flatMap { daemon.connections[$0] }
            if let connection {
                daemon.send(.error(Flowd_V1_Error(
                    code: .ackTimeout,
                    message: "screen \(first.screen.rawValue) did not acknowledge serial \(first.serial) within \(timeout) ms; it was removed",
                    screenID: first.screen.rawValue, serial: first.serial)), to: connection)
            }
            if entry.dismissal != nil {
                finishDismissal(first.screen, .timedOut)
                continue
            }
            if let connection {
                var dismiss = Flowd_V1_Dismiss()
                dismiss.screenID = first.screen.rawValue
                dismiss.serial = entries[first.screen]!.serials.nextDismiss()
                dismiss.reason = .removed
                daemon.send(.dismiss(dismiss), to: connection)
            }
            forget(first.screen)
            runtime.screenLost(first.screen)
        }
    }

    /// Drops a screen without waiting for anything (its flow is told separately).
    private func forget(_ screen: ScreenID) {
        guard let entry = entries.removeValue(forKey: screen) else { return }
        if let hostID = entry.hostID, let host = hosts[hostID] {
            host.screens.remove(screen)
            if let spawned = host.spawned, host.screens.isEmpty, !host.isGone {
                spawned.retire(reason: "its screen \(screen) was removed")
            }
        }
    }

    // MARK: Spawning

    private func spawnHost(for screen: ScreenID, kind: String, executable: String, arguments: [String], environment: [String: String]) throws -> Host {
        let spawned = try SpawnedScreen.start(
            daemon: daemon, screen: screen, kind: kind, executable: executable, arguments: arguments, environment: environment)
        let host = Host(connectionID: spawned.connectionID)
        host.spawned = spawned
        hosts[spawned.connectionID] = host
        children[spawned.pid] = spawned
        spawned.onExit = { [unowned self] child in
            children[child.pid] = nil
            daemon.childExited()
        }
        return host
    }

    /// Counts of tabs for every tab bar on a placement's path.
    private func tabCounts(for placement: FlowKit.Placement) -> [NodeID: Int] {
        var counts: [NodeID: Int] = [:]
        for step in placement.path {
            if case .tab(let bar, _) = step { counts[bar] = runtime.model[bar]?.children.count ?? 0 }
        }
        return counts
    }
}
