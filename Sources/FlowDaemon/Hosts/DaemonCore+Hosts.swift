import FlowKit
import FlowWire
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of the hosts part: it enters `Hosts` with what happened to a host and performs
/// the actions it returns on connections, processes and the app's half.
extension DaemonCore {
    /// Performs what the hosts part asked for, then what the app's half asked in turn.
    mutating func performHostActions() {
        while hosts.hasActions {
            for action in hosts.takeActions() { perform(action) }
        }
        performAppActions()
    }

    private mutating func perform(_ action: Hosts.Action) {
        switch action {
        case .ping(let host, let nonce):
            if let connection = connections[host], !connection.isClosing {
                var ping = Flowd_V1_Ping()
                ping.nonce = nonce
                send(.ping(ping), to: connection)
            }
        case .kill(let host, let child):
            // Its exit (by signal) brings the restart policy in. The connection is closed now, so
            // that a process slow to die (SIGKILL pending in uninterruptible sleep) is found once.
            child.send(SIGKILL)
            connections.closeNow(host)
        case .disconnect(let host, let shutdown):
            connections.disconnectNow(host, telling: shutdown)
        case .signal(let child, let signal):
            child.send(signal)
        case .tell(let notice):
            tell(notice)
        case .delivery(let input):
            switch input {
            case .joined(let host, let label, let pid, let provides, let spawned, let resuming):
                app.hostJoined(host, label: label, pid: pid, provides: provides, spawned: spawned, resuming: resuming)
            case .left(let host, let resumable):
                app.hostLeft(host, resumable: resumable)
            case .exited(let host, let abnormally):
                app.processExited(host, abnormally: abnormally)
            }
            // The delivery's reports (held, resumed) reach the hosts part before its next action.
            performAppActions()
        }
    }

    /// A connection closed: its screens are lost, held for a restart or a resume, or complete their
    /// dismissal as `hostLost`; a process flowd started for it must exit.
    mutating func hostLeft(_ connection: Connection) {
        hosts.closed(connection.id, resumable: connection.mayResume, now: loop.now)
        performHostActions()
    }

    /// A spawned process of `kind` exited (its handle is closed): the delivery restarts, holds or
    /// loses its screen, and a shutdown waiting for it may finish.
    mutating func childExited(_ child: any SpawnedHost, kind: String) {
        loop.assertOnLoop()
        hosts.exited(child, kind: kind)
        performHostActions()
        checkShutdownComplete()
        wakeIfWorkPending()
        armDeadlineTimer()
    }

    /// Starts a process of `kind` for `screen` (nil: for its warm pool) whose socket joins as a
    /// connection of this daemon, and watches its exit. Returns the connection's id; nil when nothing
    /// runs (a connection adopted before the spawn failed is closed).
    mutating func startProcess(for screen: ScreenID?, kind: String) -> UInt64? {
        // A copy: `adopt` changes the core while the starter spawns.
        let starter = hosts.starter
        var adopted: UInt64?
        let started = starter.start(screen: screen, kind: kind, socketPath: configuration.socketPath) { pipe, token, pid in
            let id = adopt(pipe, origin: .spawned(token: token), peerPID: pid).id
            adopted = id
            return id
        }
        switch started {
        case .running(let child, let notice):
            hosts.started(child)
            hosts.spawnedIdentity(child, kind: kind, executable: app.spawnExecutable(of: kind))
            connections.setPeerPID(child.pid, of: child.connectionID)
            tell(notice)
            hooks.watchExit(child, kind)
            return child.connectionID
        case .failed(let notice):
            if let adopted { connections.closeNow(adopted) }
            if let notice { tell(notice) }
            return nil
        }
    }
}
