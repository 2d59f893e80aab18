/// What happens when the process spawned for a screen exits abnormally (a signal or a non-zero
/// status) while its screen is shown: nothing more (the flow is told the screen was lost), or a new
/// process for the same screen, re-placed with the screen's current state and placement, within an
/// intensity limit as OTP supervisors have it: at most `maxRestarts` restarts in any window of
/// `withinMilliseconds`; one more crash in that window gives up and the flow is told.
public enum RestartPolicy: Hashable, Sendable, CustomStringConvertible {
    /// Never restart: the screen is lost with its process.
    case never
    /// Restart, at most `maxRestarts` times within `withinMilliseconds`.
    case restart(maxRestarts: Int, withinMilliseconds: UInt64)

    /// The window of a policy that names only its count (`N`): 10 seconds.
    public static let defaultWindowMilliseconds: UInt64 = 10_000

    /// The default of a spawned screen (`ScreenFactory.spawn`): 5 restarts within the default window.
    /// Survival is the point of the daemon, so it is on unless an app or `--restart-screens never` says otherwise.
    public static let standard = RestartPolicy.restart(maxRestarts: 5, withinMilliseconds: defaultWindowMilliseconds)

    /// `never`, or `5/10s`.
    public var description: String {
        switch self {
        case .never: "never"
        case .restart(let count, let window): "\(count)/\(Double(window) / 1000)s"
        }
    }

    /// Reads `never`, `N/SECONDS` (e.g. `5/10` or `5/2.5`) or `N` (within `defaultWindowMilliseconds`).
    public init?(parsing text: String) {
        if text == "never" || text == "0" {
            self = .never
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let count = Int(parts[0]), count > 0 else { return nil }
        var window = Self.defaultWindowMilliseconds
        if parts.count == 2 {
            guard let seconds = Double(parts[1].hasSuffix("s") ? parts[1].dropLast() : parts[1]), seconds > 0, seconds <= 86_400
            else { return nil }
            window = UInt64(seconds * 1000)
        }
        self = .restart(maxRestarts: count, withinMilliseconds: window)
    }
}
