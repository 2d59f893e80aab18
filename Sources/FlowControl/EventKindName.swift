import FlowWire

/// The names flowctl uses for event kinds (`--kind place`, the watch
/// column, JSON): the proto enum's name, lower case, with dashes.
public enum EventKindName {
    /// Every kind with its name, in proto order.
    public static let all: [(name: String, kind: Flowd_V1_EventKind)] = [
        ("connected", .connected), ("handshake", .handshake), ("disconnected", .disconnected),
        ("flow-started", .flowStarted), ("flow-output", .flowOutput), ("flow-finished", .flowFinished),
        ("flow-terminated", .flowTerminated), ("place", .place), ("update", .update),
        ("placement-changed", .placementChanged), ("dismiss", .dismiss), ("ack", .ack), ("output", .output),
        ("user-navigation", .userNavigation), ("error", .error), ("process-spawned", .processSpawned),
        ("process-exited", .processExited), ("injected", .injected), ("shutdown", .shutdown),
        ("screen-restarted", .screenRestarted), ("restart-gave-up", .restartGaveUp), ("host-detached", .hostDetached),
        ("host-resumed", .hostResumed), ("resume-expired", .resumeExpired), ("host-hung", .hostHung),
        ("restored", .restored), ("link-opened", .linkOpened), ("unknown-kinds", .unknownKinds), ("no-host", .noHost),
        ("screen-refused", .screenRefused), ("screen-lost", .screenLost),
    ]

    /// The name of a kind (`place`, `flow-started`, ...).
    public static func name(of kind: Flowd_V1_EventKind) -> String {
        all.first { $0.kind == kind }?.name ?? "kind-\(kind.rawValue)"
    }

    /// The kind called `name`; also accepts `EVENT_KIND_PLACE` and underscores.
    public static func kind(named name: String) -> Flowd_V1_EventKind? {
        var key = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
        if key.hasPrefix("event-kind-") { key.removeFirst("event-kind-".count) }
        return all.first { $0.name == key }?.kind
    }
}
