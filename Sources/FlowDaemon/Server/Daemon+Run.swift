import FlowApp
import FlowWire
import Logging

#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// Runs `app` until it finishes or the process gets SIGTERM/SIGINT, the
    /// way `flowd` does: the socket is `socketPath`, else `$FLOWD_SOCKET`,
    /// else the per-user default. `configure` adjusts limits and timeouts.
    /// Started by systemd, it serves the socket it was passed, says when it is ready and pings the
    /// watchdog (docs/service.md). For the whole `flowd` command line instead, see `FlowdCommand` (docs/daemon.md).
    public static func run(
        app: FlowApp.App,
        socketPath: String? = nil,
        logger: Logger = Logger(label: "flowd"),
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) throws(DaemonError) {
        ResourceLimits.raiseOpenFileLimit()
        let service = try ServiceEnvironment.take(requestedSocketPath: socketPath, logger: logger)
        var environment: [String: String] = [:]
        for name in [WireProtocol.socketPathEnvironmentVariable, "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        var configuration = DaemonConfiguration(
            socketPath: socketPath ?? WireProtocol.defaultSocketPath(environment: environment, uid: getuid()))
        configure(&configuration)
        let daemon = try Daemon(configuration: configuration, app: app, logger: logger)
        try daemon.run(service: service)
    }
}
