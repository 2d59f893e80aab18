import FlowApp
import FlowWire
import UVKit

extension PeerIdentity {
    /// The identity of a peer as the socket told it (`UVPipe.peerProcess()`), its unit derived
    /// from its cgroup.
    init(_ peer: PeerProcess) {
        self.init(uid: peer.uid, gid: peer.gid, pid: peer.pid, executable: peer.executable, cgroup: peer.cgroup,
                  unit: Self.unit(ofCgroup: peer.cgroup), securityLabel: peer.securityLabel)
    }

    /// As `ConnectionInfo.identity` and `AuditEntry.identity` carry it (empty strings: unknown).
    var wire: Flowd_V1_PeerIdentity {
        var wire = Flowd_V1_PeerIdentity()
        wire.uid = uid
        wire.gid = gid
        wire.pid = pid
        wire.executable = executable ?? ""
        wire.cgroup = cgroup ?? ""
        wire.unit = unit ?? ""
        wire.securityLabel = securityLabel ?? ""
        wire.factory = factory ?? ""
        return wire
    }
}

extension AuditLog.Entry {
    /// As `Tree.audit` carries it.
    var wire: Flowd_V1_AuditEntry {
        var wire = Flowd_V1_AuditEntry()
        wire.seq = seq
        wire.timeUnixNanos = Int64(clamping: time) * 1_000_000
        wire.connectionID = connection
        wire.identity = identity.wire
        wire.action = action
        wire.target = target
        wire.refused = refusal != nil
        wire.message = refusal ?? ""
        return wire
    }
}
