/// Drives a runtime with every screen hosted in-process by one fake host that provides every kind:
/// the runtime's effects go through the real `ScreenDelivery`, and the delivery's actions back into
/// the runtime, until nothing is left to do. FlowKitTesting's fake screens and `flowd replay` use it.
///
/// Policy: every command except `Dismiss` is acknowledged as soon as it is sent; a `Dismiss` is
/// acknowledged at once too when `acknowledgesDismissals` is true, else it waits for
/// `acknowledgeDismissal(_:outcome:)`.
public final class LocalScreenHost {
    /// The runtime driven.
    public let runtime: FlowRuntime
    /// The delivery state (serials, hosts, pending dismissals).
    public private(set) var delivery: ScreenDelivery
    /// Whether dismissals are acknowledged as soon as they are sent.
    public var acknowledgesDismissals: Bool
    /// Every command sent to the fake host with its serial, in order, until taken by `takeSent()`.
    private var sent: [ScreenDelivery.Outgoing] = []
    /// Dismissals sent and not yet answered (manual acknowledgement), oldest first.
    public private(set) var pendingDismissals: [ScreenID: UInt64] = [:]
    /// The unwindings of `.terminate` and `.terminateAll` inputs that completed, with their reports.
    public private(set) var unwound: [Unwinding: DismissalReport] = [:]
    /// The fake host's id.
    private let host: UInt64 = 1
    private var kinds: Set<String> = []
    /// Reused by `settle()` from one call to the next.
    private var effects: [RuntimeEffect] = []

    /// A host over `runtime`.
    public init(runtime: FlowRuntime, acknowledgesDismissals: Bool = true) {
        self.runtime = runtime
        self.acknowledgesDismissals = acknowledgesDismissals
        // The fake host never times out: tests and replays decide acks.
        delivery = ScreenDelivery(ackTimeout: nil)
        _ = delivery.hostJoined(host, provides: [], now: 0)
    }

    /// Applies everything the runtime has to say until it is quiet (the runtime's one settle loop).
    public func settle() {
        var effects = self.effects
        self.effects = []
        defer { self.effects = effects }
        runtime.settle(reusing: &effects) { effect in
            switch effect {
            case .flow, .root: break  // in-process hosts have no event stream and no app to stop
            case .unwound(let unwinding, let report): unwound[unwinding] = report
            case .request, .cancelRequest: break  // answered by whoever drives the runtime (FlowTester: by hand)
            case .command(let command): apply(command)
            }
        }
    }

    /// Commands sent since the last call, in order.
    public func takeSent() -> [ScreenDelivery.Outgoing] {
        settle()
        defer { sent.removeAll() }
        return sent
    }

    /// Hosts a screen the runtime already shows but whose `Place` went to no host (a runtime rebuilt
    /// from recorded inputs, as `flowd replay` does): sent as the screen's first command, as if the
    /// runtime had just placed it; its later commands follow.
    public func adopt(_ place: PlaceCommand) {
        settle()
        apply(.place(place))
    }

    /// Answers a pending dismissal (manual acknowledgement).
    public func acknowledgeDismissal(_ screen: ScreenID, outcome: DismissOutcome = .acknowledged) {
        settle()
        guard let serial = pendingDismissals.removeValue(forKey: screen) else { return }
        if outcome == .acknowledged {
            handle(delivery.ack(screen, serial: serial, from: host).actions)
        } else {
            handle(delivery.abandonDismissal(screen, outcome: outcome))
        }
        settle()
    }

    /// The host of one screen died: a pending dismissal completes as `hostLost`, otherwise the
    /// runtime hears the screen was lost.
    public func loseScreen(_ screen: ScreenID) {
        settle()
        pendingDismissals[screen] = nil
        handle(delivery.lose(screen))
        settle()
    }

    private func apply(_ command: ScreenCommand) {
        var actions: [ScreenDelivery.Action] = []
        if case .place(let place) = command, kinds.insert(place.kind).inserted {
            actions += delivery.hostJoined(host, provides: [place.kind], now: 0)
        }
        actions += delivery.apply(command, route: .attached, now: 0).actions
        handle(actions)
    }

    private func handle(_ actions: [ScreenDelivery.Action]) {
        for action in actions {
            switch action {
            case .send(let outgoing, _):
                sent.append(outgoing)
                if case .dismiss(let screen, _, _) = outgoing.command, !acknowledgesDismissals {
                    pendingDismissals[screen] = outgoing.serial
                } else {
                    handle(delivery.ack(outgoing.command.screen, serial: outgoing.serial, from: host).actions)
                }
            case .dismissalCompleted(let screen, let outcome):
                runtime.dismissalCompleted(screen, outcome)
            case .screenLost(let screen, _, _):
                runtime.screenLost(screen)
            case .spawn(let screen, _):
                handle(delivery.spawnFailed(screen))
            case .spawnPooled(let kind):
                handle(delivery.pooledSpawnFailed(kind: kind, now: 0))
            case .ackTimedOut, .retire, .restarted, .restartGaveUp, .detached, .resumed, .resumeExpired, .waitingForHost, .tookPooled, .stopPooled, .poolSuspended,
                 .hostFull, .hostHasRoom:
                break
            }
        }
    }
}
