/// Who a peer of the daemon is, as the kernel and the daemon know it at connect time: what a policy
/// (`AppPolicy`) matches against, and what `flowctl tree`, the events, the inspector and the audit log
/// show. Read once, when the connection is accepted (or the process spawned), never from the peer's
/// own words.
public struct PeerIdentity: Sendable, Equatable, Hashable, Codable {
    /// The peer's user id (`SO_PEERCRED`).
    public var uid: UInt32
    /// The peer's group id (`SO_PEERCRED`).
    public var gid: UInt32
    /// The peer's process id at connect time. Shown, never trusted alone: the daemon holds a pidfd
    /// for it (`SO_PEERPIDFD`, or `pidfd_open` where the kernel lacks it), so the executable and
    /// the cgroup below are read from the process that connected, not from a later one with its pid.
    public var pid: Int32
    /// The executable the process runs (`/proc/PID/exe`), nil when it could not be read.
    public var executable: String?
    /// The process's cgroup (`/proc/PID/cgroup`, the unified hierarchy's path), nil when unknown.
    public var cgroup: String?
    /// The systemd unit the cgroup names (`foo.service`, `app-bar.scope`), nil outside one.
    public var unit: String?
    /// The peer's LSM label (`SO_PEERSEC`: AppArmor or SELinux), nil when no LSM labels sockets.
    public var securityLabel: String?
    /// For a screen process the daemon spawned: the kind whose factory started it. Its identity is
    /// its factory, whatever it runs.
    public var factory: String?

    /// An identity; what is not known stays nil.
    public init(uid: UInt32, gid: UInt32, pid: Int32, executable: String? = nil, cgroup: String? = nil,
                unit: String? = nil, securityLabel: String? = nil, factory: String? = nil) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.executable = executable
        self.cgroup = cgroup
        self.unit = unit
        self.securityLabel = securityLabel
        self.factory = factory
    }

    /// One line for logs and the tree: `uid 1000 pid 42 /usr/bin/host unit foo.service`.
    public var summary: String {
        var parts = ["uid \(uid)", "pid \(pid)"]
        if let factory { parts.append("spawned for \(factory)") }
        if let executable { parts.append(executable) }
        if let unit { parts.append("unit \(unit)") }
        if let securityLabel { parts.append("label \(securityLabel)") }
        return parts.joined(separator: " ")
    }

    /// The systemd unit a cgroup path names: its last component that ends in `.service` or `.scope`.
    /// A unit of a user's own service manager is named with that manager
    /// (`/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service` →
    /// `user@1000.service/foo.service`): the user creates those at will (`systemd-run --user
    /// --unit=…`), so they must never match a system unit's bare name, which only root creates
    /// (`/system.slice/flowd-admin.service` → `flowd-admin.service`). Nil for a path outside a unit.
    public static func unit(ofCgroup cgroup: String?) -> String? {
        guard let cgroup else { return nil }
        let parts = cgroup.split(separator: "/")
        guard let last = parts.lastIndex(where: { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }) else { return nil }
        if let manager = parts[..<last].lastIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") }) {
            return "\(parts[manager])/\(parts[last])"
        }
        return String(parts[last])
    }

    /// Whether `other` is the same program as this peer: the same uid, the same executable (both
    /// known) and the same factory (both spawned for one kind, or neither spawned). What
    /// `AppPolicy.SavedState.sameIdentity` asks of the host a held screen's saved state goes to.
    public func isSameProgram(as other: PeerIdentity) -> Bool {
        guard uid == other.uid, factory == other.factory, let executable, let theirs = other.executable else { return false }
        return executable == theirs
    }
}
