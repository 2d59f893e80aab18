/// When a reconnecting host tries next, and when it stops trying: the backoff of a
/// `ReconnectPolicy` as a value over instants, so that it is tested without sockets or sleeps.
package struct ReconnectSchedule: Sendable {
    /// When the next try is due.
    package private(set) var nextAttempt: ContinuousClock.Instant
    /// Past this instant there is no next try.
    package let deadline: ContinuousClock.Instant
    private var delay: Duration
    private let maximumDelay: Duration

    /// The schedule after a drop at `now`.
    package init(policy: ReconnectPolicy, graceMilliseconds: UInt32, now: ContinuousClock.Instant) {
        delay = .milliseconds(policy.initialDelayMilliseconds)
        maximumDelay = .milliseconds(policy.maximumDelayMilliseconds)
        nextAttempt = now + delay
        deadline = now + .milliseconds(policy.limitMilliseconds(graceMilliseconds: graceMilliseconds))
    }

    /// True when a try is due at `now`.
    package func isDue(_ now: ContinuousClock.Instant) -> Bool { now >= nextAttempt }

    /// A try at `now` failed: the next one waits twice as long (at most the maximum).
    /// False when that would be past the deadline: give up.
    package mutating func failed(at now: ContinuousClock.Instant) -> Bool {
        delay = min(delay * 2, maximumDelay)
        guard now < deadline else { return false }
        nextAttempt = min(now + delay, deadline)
        return true
    }

    /// The next try goes at once (after a refused token, the fresh start need not wait).
    package mutating func retryNow(_ now: ContinuousClock.Instant) {
        nextAttempt = now
    }
}
