/// How a host that connected to the named socket comes back after its connection drops
/// (docs/protocol.md §19, docs/screenkit.md "Reconnecting and resuming").
///
/// The host waits `initialDelayMilliseconds`, tries to connect and resume, and doubles the wait
/// after each failed try up to `maximumDelayMilliseconds`. It gives up `giveUpAfterMilliseconds`
/// after the drop, or, when that is nil, after the daemon's resume grace (`Welcome.resume_grace_ms`)
/// plus `marginMilliseconds`: past the grace the daemon has forgotten the screens anyway.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first try. Not zero: the daemon should see the old connection's end first.
    public var initialDelayMilliseconds: Int
    /// The longest wait between two tries.
    public var maximumDelayMilliseconds: Int
    /// How long after the drop to keep trying; nil: the daemon's resume grace plus `marginMilliseconds`.
    public var giveUpAfterMilliseconds: Int?
    /// Added to the daemon's resume grace when `giveUpAfterMilliseconds` is nil.
    public var marginMilliseconds: Int

    /// A policy; the defaults are 25 ms doubling to 500 ms, giving up 1 s after the daemon's grace.
    public init(
        initialDelayMilliseconds: Int = 25, maximumDelayMilliseconds: Int = 500, giveUpAfterMilliseconds: Int? = nil,
        marginMilliseconds: Int = 1_000
    ) {
        self.initialDelayMilliseconds = max(1, initialDelayMilliseconds)
        self.maximumDelayMilliseconds = max(self.initialDelayMilliseconds, maximumDelayMilliseconds)
        self.giveUpAfterMilliseconds = giveUpAfterMilliseconds
        self.marginMilliseconds = max(0, marginMilliseconds)
    }

    /// How long to keep trying after a drop, given the daemon's resume grace.
    func limitMilliseconds(graceMilliseconds: UInt32) -> Int {
        giveUpAfterMilliseconds ?? Int(graceMilliseconds) + marginMilliseconds
    }
}
