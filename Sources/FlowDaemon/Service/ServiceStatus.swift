/// What `systemctl status` shows for the daemon (`STATUS=`): its phase and a few counts, compared
/// cheaply at the end of every loop iteration so that only changes are sent.
package struct ServiceStatus: Hashable, Sendable {
    /// Serving, or a phase of the shutdown.
    package var phase: DaemonPhase
    /// Flows running.
    package var flows: Int
    /// Screens placed.
    package var screens: Int
    /// Connections open (screen hosts and debug clients).
    package var connections: Int
    /// Spawned screen processes not yet reaped.
    package var screenProcesses: Int

    /// A status with these counts.
    package init(phase: DaemonPhase, flows: Int = 0, screens: Int = 0, connections: Int = 0, screenProcesses: Int = 0) {
        self.phase = phase
        self.flows = flows
        self.screens = screens
        self.connections = connections
        self.screenProcesses = screenProcesses
    }

    /// The line a person reads, e.g. "serving app launcher: 3 flows, 2 screens, 4 connections" or
    /// "shutting down (app launcher finished): unwinding 2 flows, 3 screens".
    package func text(app: String?, shutdownReason: String?) -> String {
        let processes = screenProcesses > 0 ? ", \(Self.count(screenProcesses, "screen process", "screen processes"))" : ""
        let reason = shutdownReason.map { " (\($0))" } ?? ""
        switch phase {
        case .running:
            let serving = app.map { "serving app \($0)" } ?? "serving without an app"
            return "\(serving): \(Self.count(flows, "flow")), \(Self.count(screens, "screen")), \(Self.count(connections, "connection"))\(processes)"
        case .unwinding:
            return "shutting down\(reason): unwinding \(Self.count(flows, "flow")), \(Self.count(screens, "screen"))"
        case .draining:
            return "shutting down\(reason): waiting for \(Self.count(connections, "connection"))\(processes) to close"
        case .stopped:
            return "stopped"
        }
    }

    private static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }
}
