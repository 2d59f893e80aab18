import Foundation

/// The hosts' half of the delivery rules: spawned processes and attached hosts joining, a host with
/// room again, and what keeps screens alive when their hosts fail (a lost host's screens held for a
/// restart or a resume, or waiting for the next host of their kind; a resume taking them back; a
/// grace period ending).
extension ScreenDelivery {

    /// The process spawned for `screen` connected as `host` (its handshake is still to come). A
    /// screen dismissed while its process started was forgotten then: the process is retired.
    public mutating func spawned(_ id: ScreenID, host: UInt64, now: UInt64) -> [Action] {
        guard hosts[host] == nil else { return [] }
        guard screens[id]?.phase == .spawning else { return [.retire(host: host, reason: "its screen \(id.rawValue) was dismissed while it started")] }
        hosts[host] = Host(isSpawned: true)
        return assign(id, to: host, now: now)
    }

    /// The process for `screen` could not be spawned: the screen is lost.
    public mutating func spawnFailed(_ id: ScreenID) -> [Action] {
        guard let screen = removeScreen(id) else { return [] }
        return [.screenLost(id, kind: screen.kind, host: nil)]
    }

    /// A host finished its handshake. A spawned host gets its screen's held commands; an attached
    /// host (`provides` its kinds) takes the screens waiting for them, oldest first. An attached host
    /// that joins again adds the kinds it did not provide yet.
    public mutating func hostJoined(_ host: UInt64, provides: [String], now: UInt64) -> [Action] {
        var actions: [Action] = []
        if hosts[host]?.isSpawned == true {
            hosts[host]?.isReady = true
            pool.ready(host)
            for id in (hosts[host]?.screens ?? []).sorted() { actions += release(id, on: host, now: now) }
            return actions
        }
        var joined = hosts[host] ?? Host(isReady: true, isSpawned: false)
        let added = provides.filter { !joined.provides.contains($0) }
        joined.provides += added
        hosts[host] = joined
        for kind in added {
            hostsByKind[kind, default: []].append(host)
            actions += assignWaiting(kind, to: host, now: now)
        }
        return actions
    }

    /// The oldest ready attached host that provides `kind` and shows fewer than `maxScreensPerHost` screens.
    func readyHost(for kind: String) -> UInt64? {
        hostsByKind[kind]?.first { hosts[$0].map { $0.isReady && $0.screens.count < maxScreensPerHost } ?? false }
    }

    /// A screen of `kind` found no host with room: the first ready host of its kind that is full, to be
    /// told (none: no host provides the kind, and the screen simply waits).
    func fullHost(for id: ScreenID, kind: String) -> [Action] {
        guard let host = hostsByKind[kind]?.first(where: { hosts[$0]?.isReady == true }) else { return [] }
        return [.hostFull(id, kind: kind, host: host, screens: hosts[host]?.screens.count ?? 0)]
    }

    /// Gives attached `host` the screens waiting for `kind`, oldest first, as many as it has room for
    /// (`maxScreensPerHost`); the rest keep waiting.
    mutating func assignWaiting(_ kind: String, to host: UInt64, now: UInt64) -> [Action] {
        guard var queue = waiting.removeValue(forKey: kind), !queue.isEmpty else { return [] }
        let room = max(0, maxScreensPerHost - (hosts[host]?.screens.count ?? 0))
        var actions: [Action] = []
        for id in queue.prefix(room) { actions += assign(id, to: host, now: now) }
        queue.removeFirst(min(room, queue.count))
        if !queue.isEmpty { waiting[kind] = queue }
        return actions
    }

    /// Attached `host` has room again (`Action.hostHasRoom`): it takes the screens waiting for its
    /// kinds, oldest kind first, as many as fit.
    public mutating func hostHasRoom(_ host: UInt64, now: UInt64) -> [Action] {
        guard let kinds = hosts[host]?.provides else { return [] }
        var actions: [Action] = []
        for kind in kinds { actions += assignWaiting(kind, to: host, now: now) }
        return actions
    }

    /// Puts a screen on a host: its held commands go out once the host is ready.
    mutating func assign(_ id: ScreenID, to host: UInt64, now: UInt64) -> [Action] {
        guard var screen = screens[id] else { return [] }
        hosts[host]?.screens.insert(id)
        screen.phase = screen.isDismissing ? .dismissing(host: host) : .waitingForHandshake(host: host)
        screens[id] = screen
        guard hosts[host]?.isReady == true else { return [] }
        return release(id, on: host, now: now)
    }

    /// Sends a screen's held commands to its ready host. Their ack clocks start now, when they can be
    /// read: a spawned process's start-up and handshake are the handshake timeout's to bound, not the
    /// ack timeout's (a Python screen on a loaded machine took over 2 s to say Hello).
    mutating func release(_ id: ScreenID, on host: UInt64, now: UInt64) -> [Action] {
        guard var screen = screens[id] else { return [] }
        if case .waitingForHandshake = screen.phase { screen.phase = .live(host: host) }
        let held = screen.held
        screen.held = []
        screens[id] = screen
        for outgoing in held { expectAck(id, serial: outgoing.serial, host: host, now: now) }
        return held.map { .send($0, to: host) }
    }

    /// A host's connection closed. Screens being dismissed complete as `hostLost`. The others are
    /// lost, unless they are held for the host to come back: a spawned screen whose `RestartPolicy`
    /// restarts waits for its process's exit (`processExited`; decided at once if it already
    /// exited), and an attached host's screens wait for it to `resume` when the driver says the
    /// host may and a resume grace is set. `resumable` false: the host said goodbye or was cut off for
    /// breaking the protocol, so nothing is held for it (spawned or attached).
    public mutating func hostLost(_ host: UInt64, now: UInt64 = 0, resumable: Bool = true) -> [Action] {
        guard let gone = hosts.removeValue(forKey: host) else { return [] }
        if pool.members[host] != nil { return poolActions(pool.lost(host, now: now)) }
        let refill = pool.taken.isEmpty || pool.taken[host] == nil ? [] : poolActions(pool.released(host))
        // `resumable` false: it left on purpose or broke the protocol; nothing comes back for it.
        let holds = holdsScreensOfLostHosts && resumable && (gone.isSpawned || resumeGrace != nil)
        if gone.isSpawned || !holds { dropProvider(host, of: gone.provides) }
        var actions: [Action] = refill
        var held: Set<ScreenID> = []
        var rewait: [ScreenID] = []
        for id in gone.screens.sorted(by: >) {
            guard var screen = screens[id], screen.host == host else { continue }
            if screen.isDismissing {
                removeScreen(id)
                actions.append(.dismissalCompleted(id, .hostLost))
            } else if holds, !gone.isSpawned || restartBooks[id] != nil {
                holdForNewHost(&screen, id)
                screen.phase = gone.isSpawned ? .awaitingExit(host: host) : .awaitingResume(host: host)
                screens[id] = screen
                held.insert(id)
            } else if !gone.isSpawned, holdsScreensOfLostHosts, !kindsLostWithTheirHost.contains(screen.kind) {
                // Left for good (said goodbye, broke the protocol, or nothing is held for a resume):
                // the screen waits for the next host of its kind.
                holdForNewHost(&screen, id)
                screens[id] = screen
                rewait.append(id)
            } else {
                removeScreen(id)
                actions.append(.screenLost(id, kind: screen.kind, host: host))
            }
        }
        // Oldest first: a stack's lower screens before the ones on top of them.
        for id in rewait.sorted() { actions += waitForNextHost(id, now: now) }
        guard holds else { return actions }
        if !gone.isSpawned {
            detached[host] = held
            detachedKinds[host] = gone.provides
            resumeDeadlines.add(host, now: now)
            return actions + [.detached(host: host, screens: held.count)]
        }
        guard !held.isEmpty else { return actions }
        if let abnormally = gone.exitedAbnormally { return actions + restartOrGiveUp(held, host: host, abnormally: abnormally, now: now) }
        awaitingExit[host] = held
        return actions
    }

    /// `place` as a screen keeps it, its names shared with the screens placed before of the same
    /// kind, content type and flow type.
    mutating func current(of place: PlaceCommand) -> CurrentPlace {
        let key = PlaceNames.Key(kind: place.kind, contentType: place.contentType, outputContentType: place.outputContentType,
                                 flowType: place.flowType)
        let names = placeNames[key] ?? PlaceNames(key)
        if placeNames[key] == nil { placeNames[key] = names }
        return CurrentPlace(names: names, state: place.state, placement: place.placement, owner: place.owner)
    }

    /// An attached screen whose host is gone for good (prepared by `holdForNewHost`) waits for the
    /// next host of its kind: a ready one gets it now, else the first to join.
    mutating func waitForNextHost(_ id: ScreenID, now: UInt64) -> [Action] {
        guard var screen = screens[id] else { return [] }
        screen.phase = .waitingForHost
        screens[id] = screen
        if let host = readyHost(for: screen.kind) { return assign(id, to: host, now: now) }
        waiting[screen.kind, default: []].append(id)
        return [.waitingForHost(id, kind: screen.kind)] + fullHost(for: id, kind: screen.kind)
    }

    /// Prepares a screen whose host went away for the next one: a screen that was shown gets a `Place`
    /// with its current state and placement (without animation) before the commands held from now
    /// on. It takes the next serial, so its ack covers everything the old host was sent. A screen that
    /// was never shown keeps its held commands, its first `Place` among them.
    func holdForNewHost(_ screen: inout Screen, _ id: ScreenID) {
        guard case .live = screen.phase else { return }
        let place = screen.current.place(id, savedState: saved[id] ?? Data())
        screen.held = [Outgoing(command: .place(place), serial: screen.serials.next())]
    }

    /// The process spawned as `host` exited, `abnormally` (a signal or a non-zero status) or not. If
    /// its connection already closed, its screens restart (by their policy) or are lost now;
    /// otherwise the news waits for `hostLost`.
    public mutating func processExited(_ host: UInt64, abnormally: Bool, now: UInt64) -> [Action] {
        if let held = awaitingExit.removeValue(forKey: host) {
            return restartOrGiveUp(held, host: host, abnormally: abnormally, now: now)
        }
        if hosts[host] != nil { hosts[host]?.exitedAbnormally = abnormally }
        return []
    }

    /// Restarts each screen of a crashed process within its policy's intensity limit, or gives up.
    mutating func restartOrGiveUp(_ ids: Set<ScreenID>, host: UInt64, abnormally: Bool, now: UInt64) -> [Action] {
        var actions: [Action] = []
        for id in ids.sorted(by: >) {
            guard var screen = screens[id], screen.phase == .awaitingExit(host: host) else { continue }
            guard abnormally, holdsScreensOfLostHosts, var book = restartBooks[id], case .restart(let limit, let window) = book.policy else {
                // A process that ended on its own (status 0) meant to: its screen is gone with it.
                removeScreen(id)
                actions.append(.screenLost(id, kind: screen.kind, host: host))
                continue
            }
            book.recent.removeAll { now >= window && $0 <= now - window }
            if book.recent.count >= limit {
                removeScreen(id)
                actions += [.restartGaveUp(id, kind: screen.kind, restarts: Int(screen.restarts), policy: book.policy),
                            .screenLost(id, kind: screen.kind, host: host)]
                continue
            }
            book.recent.append(now)
            restartBooks[id] = book
            screen.restarts += 1
            screen.phase = .spawning
            screens[id] = screen
            actions.append(.restarted(id, kind: screen.kind, attempt: Int(screen.restarts), policy: book.policy))
            actions += startProcess(for: id, kind: screen.kind, now: now)
        }
        return actions
    }

    /// The new connection `host` presented the resume token of the dropped host `old`: it takes the
    /// old host's screens (each re-placed, then its held commands) and then joins like any attached
    /// host that `provides` kinds. Nothing happens unless `old` is waiting to resume and `host` is new.
    public mutating func resume(_ old: UInt64, as host: UInt64, provides: [String], now: UInt64) -> [Action] {
        guard hosts[host] == nil, let ids = detached.removeValue(forKey: old) else { return [] }
        // It takes the old host's place among the providers of the kinds it still provides (its
        // `provides` count as in a fresh Hello: a kind it dropped is no longer routed to it).
        var kept: [String] = []
        for kind in detachedKinds.removeValue(forKey: old) ?? [] {
            guard let index = hostsByKind[kind]?.firstIndex(of: old) else { continue }
            if provides.contains(kind) {
                hostsByKind[kind]?[index] = host
                kept.append(kind)
            } else {
                hostsByKind[kind]?.remove(at: index)
            }
        }
        hosts[host] = Host(provides: kept, isReady: true, isSpawned: false)
        var actions: [Action] = [.resumed(host: host, from: old, screens: ids.count)]
        // Oldest first: a stack's lower screens before the ones on top of them.
        for id in ids.sorted() where screens[id]?.phase == .awaitingResume(host: old) {
            actions += assign(id, to: host, now: now)
        }
        // Then the screens of its kinds placed while it was away (it was their only provider).
        for kind in kept {
            for id in waiting.removeValue(forKey: kind) ?? [] { actions += assign(id, to: host, now: now) }
        }
        return actions + hostJoined(host, provides: provides, now: now)
    }

    /// `host` no longer provides `kinds`.
    mutating func dropProvider(_ host: UInt64, of kinds: [String]) {
        for kind in kinds { hostsByKind[kind]?.removeAll { $0 == host } }
    }

    /// Removes a screen and its restart book.
    @discardableResult
    mutating func removeScreen(_ id: ScreenID) -> Screen? {
        guard let screen = screens.removeValue(forKey: id) else { return nil }
        restartBooks[id] = nil
        saved[id] = nil
        return screen
    }

    /// Removes a screen and every trace of it in the waiting lists.
    mutating func forget(_ id: ScreenID) {
        guard let screen = removeScreen(id) else { return }
        switch screen.phase {
        case .waitingForHost: waiting[screen.kind]?.removeAll { $0 == id }
        case .awaitingExit(let host): awaitingExit[host]?.remove(id)
        case .awaitingResume(let host): detached[host]?.remove(id)
        default: break
        }
    }

    /// Dropped hosts whose grace period ended: their screens wait for the next host of their kinds
    /// (oldest first), or are lost if their kind is lost with its host (newest first).
    mutating func expireResumes(now: UInt64) -> [Action] {
        var actions: [Action] = []
        for host in resumeDeadlines.expired(now: now) {
            guard let ids = detached.removeValue(forKey: host) else { continue }
            dropProvider(host, of: detachedKinds.removeValue(forKey: host) ?? [])
            actions.append(.resumeExpired(host: host, screens: ids.count))
            for id in ids.sorted() {
                guard let screen = screens[id], screen.phase == .awaitingResume(host: host),
                      !kindsLostWithTheirHost.contains(screen.kind) else { continue }
                actions += waitForNextHost(id, now: now)
            }
            for id in ids.sorted(by: >) {
                guard let screen = screens[id], screen.phase == .awaitingResume(host: host) else { continue }
                removeScreen(id)
                actions.append(.screenLost(id, kind: screen.kind, host: host))
            }
        }
        return actions
    }
}
