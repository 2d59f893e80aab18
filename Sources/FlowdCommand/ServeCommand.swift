import ArgumentParser
import FlowApp
import FlowDaemon
import FlowKit
import FlowWire
import Foundation
import Logging

/// `flowd serve` (the default): parses arguments, sets up logging, runs the daemon.
struct ServeCommand: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "serve",
        abstract: abstract,
        discussion: """
            Stops gracefully on SIGTERM or SIGINT (Ctrl-C): every client gets a Shutdown frame and the \
            daemon exits 0. A second signal exits at once.

            The app's state is journaled (--state) and restored when \(name) starts again after a crash, \
            a kill or a stop: the user is back where they were (flowd's docs/restore.md). A stop by signal \
            keeps the journal; the app finishing clears it.

            Exit codes: 0 clean stop, 64 bad arguments, 69 \(another) already serves the socket, \
            73 the socket cannot be created, 74 the state file cannot be used (it cannot be read or \
            written, a directory is in the way, or a journal to move aside cannot be moved), 75 \(another) holds \
            the state file, 77 another user could change the state file (its directory is not private to \
            this user or root, or a symbolic link is planted next to it), 70 internal error, 78 what the \
            service manager passed is unusable (LISTEN_FDS is not 1, its socket is not a listening Unix \
            stream socket, or --socket names another path).

            Under systemd (docs/service.md): a socket passed with LISTEN_FDS is served instead of binding one \
            (and left in place on exit), READY=1 (after the restore), STATUS= and STOPPING=1 go to \
            $NOTIFY_SOCKET, the watchdog is pinged every half WATCHDOG_USEC, and log lines carry journal \
            priorities instead of timestamps.

            Examples:
              \(examples)
            """,
        version: CommandContext.current.command.version)
    }

    /// The name the executable goes by: `flowd`, or a custom daemon's.
    private static var name: String { CommandContext.current.command.name }

    /// Another daemon on the socket or the journal, as the help says it.
    private static var another: String { name == "flowd" ? "another flowd" : "another daemon" }

    /// What serve is, named after the executable (a custom daemon is not called flowd).
    private static var abstract: String {
        name == "flowd" ? "The flowd daemon: runs an app's flows for screen processes connected over a Unix socket."
            : "The \(name) daemon (built on flowd \(FlowdVersion.string)): runs an app's flows for screen processes connected over a Unix socket."
    }

    /// The examples of the help, with this command's name and its first app.
    private static var examples: String {
        let app = CommandContext.current.command.apps[0].name
        return [
            "\(name)                                   # \(app) on the default socket",
            "\(name) --list-apps",
            "\(name) --app \(app) --socket /tmp/f/flowd.sock --log-level debug",
            "\(name) --app \(app) --spawn-screens my-screens",
        ].joined(separator: "\n  ")
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The Unix socket to listen on.",
            discussion: "Default: $FLOWD_SOCKET, else $XDG_RUNTIME_DIR/flowd/flowd.sock, else /tmp/flowd-<uid>/flowd.sock. A socket passed by systemd (LISTEN_FDS) is served instead, and --socket must then name it.",
            valueName: "path"))
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The policy file: who may provide which kinds, open links, take the debug role, and who gets a held screen's saved state.",
            discussion: "Default: /etc/flowd/APP.policy when it exists, else the app's own policy (by default: every process of flowd's user may do everything). It replaces the app's policy whole. A file that cannot be read or has a bad line exits 78, naming the file and the line (docs/daemon.md, Who may do what).",
            valueName: "path"))
    var policy: String?

    @Option(name: .long, help: ArgumentHelp("The app to run (see --list-apps; default: the first).", valueName: "name"))
    var app: String?

    @Flag(name: .long, help: "List the apps and exit.")
    var listApps = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The journal that keeps the app's state across restarts of flowd.",
            discussion: "Default: $XDG_STATE_HOME/flowd/APP.journal on the default socket, APP@NAME-HASH.journal beside it on another (NAME the socket's file name, HASH 8 hex digits of its path); $XDG_STATE_HOME defaults to ~/.local/state. Its directory is created. A journal of another app, version or schema, a damaged one or a file that is not a journal is moved aside (PATH.refused-DATE, as it was) and the app starts fresh; every case: docs/restore.md, Bad state files.",
            valueName: "path"))
    var state: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Open this deep link once the app started (`flowctl where` prints the link of a place).",
            discussion: "Through the app's flows, with the stack behind it (docs/flows.md, Links). A malformed link exits 64; a link the flows do not open is logged and the app starts where it starts.",
            valueName: "link"))
    var open: String?

    @Flag(name: .long, help: "Journal nothing: every start is a fresh start.")
    var noState = false

    @Flag(name: .long, help: "Keep running after the app's root flow finished (default: exit 0).")
    var stayUp = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Spawn a process of this executable for every screen instead of waiting for attached hosts; KINDS=EXECUTABLE for those kinds only.",
            discussion: """
                Repeatable: KINDS (comma-separated) name the kinds an executable spawns for, overriding an executable \
                given without kinds (--spawn-screens flowd-gtk --spawn-screens login,login-success=flowd-qt). A name \
                without a slash is looked up next to this executable, then in PATH.
                """,
            valueName: "[kinds=]executable"))
    var spawnScreens: [String] = []

    @Option(name: .long, help: ArgumentHelp("Seconds a screen has to acknowledge its Dismiss.", valueName: "seconds"))
    var ackTimeout = Self.seconds(Defaults.ackTimeoutMilliseconds)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Restart policy for every spawned screen whose process crashes: never, N (within \(Self.secondsText(RestartPolicy.defaultWindowMilliseconds)) s) or N/SECONDS.",
            discussion: "At most N restarts within SECONDS, then the flow is told the screen was lost (docs/restore.md). Default: the app's own, else 5 restarts in 10 s; never is opt-in.",
            valueName: "policy"))
    var restartScreens: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep this many idle processes started and handshaken for every spawned kind (a warm pool, 0 to 64).",
            discussion: "A new screen of the kind goes to a pooled process in one Place; the pool refills in the background (docs/daemon.md, Warm pools). Default: the app's own (none).",
            valueName: "count"))
    var spawnPool: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Pass these variables of flowd's environment to every spawned screen (comma-separated; repeatable).",
            discussion: "A spawned screen gets only its factory's variables, PATH, HOME, TMPDIR, TZ, the locale and flowd's FLOWD_* variables (docs/daemon.md, Screen factories); for a GUI screen pass WAYLAND_DISPLAY,DISPLAY,XAUTHORITY,XDG_RUNTIME_DIR.",
            valueName: "names"))
    var screenEnv: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a dropped screen host's screens are held for it to resume (0: not held).",
        discussion: "Afterwards they wait for the next host that provides their kinds (docs/restore.md), unless --lose-with-host names their kind.",
        valueName: "seconds"))
    var resumeGrace = Self.seconds(Defaults.resumeGraceMilliseconds)

    @Option(name: .long, help: ArgumentHelp(
        "Attached kinds whose screens are lost with their host when it leaves for good (comma-separated, or all).",
        discussion: "Their flows are told screenLost and their screens are not waited for. Default: none; every attached screen waits for the next host of its kind.",
        valueName: "kinds"))
    var loseWithHost: String?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a host with commands unacknowledged may leave a Ping unanswered before it is treated as hung (0: no watchdog).",
        discussion: "Default: \(Self.secondsText(Defaults.hangTimeoutMilliseconds)), or half of --ack-timeout if that is shorter. A hang is found within 1.75 × this, which must be below --ack-timeout.",
        valueName: "seconds"))
    var hangTimeout: Double?

    /// The hang timeout in effect: as given, else the default or half the ack timeout, the shorter.
    private var effectiveHangTimeout: Double { hangTimeout ?? min(Self.seconds(Defaults.hangTimeoutMilliseconds), ackTimeout / 2) }

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a screen may wait for a host providing its kind before it is reported (0: never).",
        discussion: "Logged as a warning, a no-host event and the screens_without_host counter of flowctl stats; the screen keeps waiting.",
        valueName: "seconds"))
    var hostWait = Self.seconds(Defaults.hostWaitMilliseconds)

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a peer that began a frame after the handshake may stay silent before it is cut off (0: forever).",
        discussion: "It is cut off with a FRAME_TIMEOUT error between one and two of these after its last byte.", valueName: "seconds"))
    var frameTimeout = Self.seconds(Defaults.frameTimeoutMilliseconds)

    @Option(name: .long, help: ArgumentHelp(
        "Inputs the journal may hold before it is compacted to a checkpoint of the user's place (0: never).",
        discussion: "The checkpoint is checked when it is taken: refused, the journal keeps its history and it is tried again after as many inputs more (docs/restore.md, Long sessions). Default: \(Defaults.compactAfterInputs).",
        valueName: "inputs"))
    var compactAfter = Defaults.compactAfterInputs

    @Option(name: .long, help: ArgumentHelp("Seconds a spawned screen process may outlive its screen before SIGTERM (and again before SIGKILL).", valueName: "seconds"))
    var spawnGrace = Self.seconds(Defaults.spawnExitGraceMilliseconds)

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = LogLevelArgument(.info)

    @Option(name: .long, help: ArgumentHelp("Seconds a new connection has to send Hello.", valueName: "seconds"))
    var handshakeTimeout = Self.seconds(Defaults.handshakeTimeoutMilliseconds)

    @Option(name: .long, help: ArgumentHelp("Largest frame accepted, in bytes.", valueName: "bytes"))
    var maxFrameSize = Defaults.maxFrameSize

    @Option(name: .long, help: ArgumentHelp("Bytes queued for one client before it is disconnected as stalled.", valueName: "bytes"))
    var writeQueueLimit = Defaults.writeQueueLimit

    @Option(name: .long, help: ArgumentHelp(
        "Connections flowd holds at most, every role; one more is refused with LIMIT_EXCEEDED.",
        discussion: "Default: the open-file limit (raised to its hard limit at start) less a reserve for flowd's own descriptors: an eighth, from 32 to 256.",
        valueName: "count"))
    var maxConnections: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Connections one client process may hold (default: half of --max-connections).", valueName: "count"))
    var maxConnectionsPerProcess: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Connection slots screen hosts may not take, kept for debug clients such as flowctl.", valueName: "count"))
    var debugReserve = Defaults.debugConnectionReserve

    @Option(name: .long, help: ArgumentHelp(
        "Screens one attached screen host shows at most; more wait for another host of their kind.", valueName: "count"))
    var maxScreensPerHost = Defaults.maxScreensPerHost

    @Option(name: .long, help: ArgumentHelp(
        "Bytes of unfinished frames all connections may hold together; the connection that passes it is closed.",
        valueName: "bytes"))
    var partialFrameBudget = Defaults.partialFrameBudget

    /// The daemon's defaults, which the options' defaults are.
    private typealias Defaults = DaemonConfiguration.Defaults
    /// The largest `--max-frame-size`: 64 MiB.
    private static let maxFrameSizeLimit = 64 << 20

    /// A default in milliseconds as the options give it, in seconds.
    private static func seconds(_ milliseconds: UInt64) -> Double { Double(milliseconds) / 1000 }

    /// A default in milliseconds as help texts say it, in seconds: `1`, `2.5`.
    private static func secondsText(_ milliseconds: UInt64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(seconds(milliseconds))"
    }

    /// A pool size: a whole number from 0 to `SpawnPool.maxSize`.
    static func poolSize(parsing text: String) -> Int? {
        guard let size = Int(text), (0...SpawnPool.maxSize).contains(size) else { return nil }
        return size
    }

    func validate() throws {
        for choice in spawnScreens { _ = try SpawnChoice(parsing: choice) }
        for names in screenEnv {
            for name in names.split(separator: ",", omittingEmptySubsequences: false) where name.isEmpty || name.contains(Character("=")) {
                throw ValidationError("--screen-env takes variable names, comma-separated (WAYLAND_DISPLAY,DISPLAY), got '\(names)'")
            }
        }
        guard handshakeTimeout > 0, handshakeTimeout <= 3600 else {
            throw ValidationError("--handshake-timeout must be between 0 and 3600 seconds, got \(handshakeTimeout)")
        }
        guard (WireProtocol.minimumMaxFrameSize...Self.maxFrameSizeLimit).contains(maxFrameSize) else {
            throw ValidationError(
                "--max-frame-size must be between \(WireProtocol.minimumMaxFrameSize) and \(Self.maxFrameSizeLimit) bytes, got \(maxFrameSize)")
        }
        let command = CommandContext.current.command
        if let app, command.app(named: app) == nil {
            throw ValidationError("no app named '\(app)'; \(command.appChoices)")
        }
        guard ackTimeout > 0, ackTimeout <= 3600 else {
            throw ValidationError("--ack-timeout must be between 0 and 3600 seconds, got \(ackTimeout)")
        }
        guard spawnGrace > 0, spawnGrace <= 3600 else {
            throw ValidationError("--spawn-grace must be between 0 and 3600 seconds, got \(spawnGrace)")
        }
        if let restartScreens, RestartPolicy(parsing: restartScreens) == nil {
            throw ValidationError("--restart-screens must be never, N or N/SECONDS (e.g. 5/10), got '\(restartScreens)'")
        }
        if let spawnPool, Self.poolSize(parsing: spawnPool) == nil {
            throw ValidationError("--spawn-pool must be a whole number of processes from 0 to \(SpawnPool.maxSize), got '\(spawnPool)'")
        }
        guard frameTimeout >= 0, frameTimeout <= 3600 else {
            throw ValidationError("--frame-timeout must be between 0 (off) and 3600 seconds, got \(frameTimeout)")
        }
        guard hostWait >= 0, hostWait <= 3600 else {
            throw ValidationError("--host-wait must be between 0 and 3600 seconds, got \(hostWait)")
        }
        guard resumeGrace >= 0, resumeGrace <= 3600 else {
            throw ValidationError("--resume-grace must be between 0 and 3600 seconds, got \(resumeGrace)")
        }
        if let hangTimeout, hangTimeout < 0 || (hangTimeout != 0 && hangTimeout * 1.75 >= ackTimeout) {
            throw ValidationError(
                "--hang-timeout must be 0 (off) or such that a hang is found before the ack timeout: 1.75 × it below --ack-timeout (\(ackTimeout) s), got \(hangTimeout)")
        }
        if let open {
            do throws(LinkError) {
                _ = try Link(parsing: open)
            } catch {
                throw ValidationError("--open: \(error.message)")
            }
        }
        if noState, state != nil {
            throw ValidationError("--state and --no-state contradict each other; give one")
        }
        if let state, state.isEmpty || state.hasSuffix("/") {
            throw ValidationError("--state must be a file path (the journal), got '\(state)'")
        }
        guard compactAfter >= 0 else {
            throw ValidationError("--compact-after must be a number of inputs, 0 (never) or more, got \(compactAfter)")
        }
        if let maxConnections, maxConnections < 2 {
            throw ValidationError("--max-connections must be at least 2, got \(maxConnections)")
        }
        if let maxConnectionsPerProcess, maxConnectionsPerProcess < 1 {
            throw ValidationError("--max-connections-per-process must be at least 1, got \(maxConnectionsPerProcess)")
        }
        guard debugReserve >= 0 else { throw ValidationError("--debug-reserve must not be negative, got \(debugReserve)") }
        guard maxScreensPerHost >= 1 else { throw ValidationError("--max-screens-per-host must be at least 1, got \(maxScreensPerHost)") }
        guard partialFrameBudget >= maxFrameSize else {
            throw ValidationError("--partial-frame-budget (\(partialFrameBudget)) must be at least --max-frame-size (\(maxFrameSize))")
        }
        guard writeQueueLimit >= maxFrameSize else {
            throw ValidationError("--write-queue-limit (\(writeQueueLimit)) must be at least --max-frame-size (\(maxFrameSize))")
        }
    }

    func run() throws {
        let context = CommandContext.current
        if listApps {
            for app in context.command.apps { context.output("\(app.name + String(repeating: " ", count: max(0, 16 - app.name.count))) \(app.summary)") }
            return
        }
        let name = app ?? context.command.apps[0].name
        DaemonLogging.bootstrap(level: logLevel.level)
        let logger = Logger(label: context.command.name)
        ResourceLimits.raiseOpenFileLimit()

        var configuration = DaemonConfiguration(
            socketPath: socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment, uid: getuid()))
        configuration.server = context.command.serverDescription
        configuration.program = context.command.name
        configuration.handshakeTimeoutMilliseconds = UInt64(handshakeTimeout * 1000)
        configuration.maxFrameSize = maxFrameSize
        configuration.writeQueueLimit = writeQueueLimit
        configuration.ackTimeoutMilliseconds = UInt64(ackTimeout * 1000)
        configuration.spawnExitGraceMilliseconds = UInt64(spawnGrace * 1000)
        configuration.exitWhenAppFinishes = !stayUp
        configuration.openLink = open
        configuration.resumeGraceMilliseconds = UInt64(resumeGrace * 1000)
        configuration.hostWaitMilliseconds = UInt64(hostWait * 1000)
        configuration.hangTimeoutMilliseconds = UInt64(effectiveHangTimeout * 1000)
        configuration.frameTimeoutMilliseconds = UInt64(frameTimeout * 1000)
        configuration.compactAfterInputs = compactAfter
        if let maxConnections { configuration.maxConnections = maxConnections }
        configuration.maxConnectionsPerProcess = maxConnectionsPerProcess
        configuration.debugConnectionReserve = debugReserve
        configuration.maxScreensPerHost = maxScreensPerHost
        configuration.partialFrameBudget = partialFrameBudget

        if !noState {
            let environment = ProcessInfo.processInfo.environment
            configuration.statePath = state ?? StatePath.default(app: name, socketPath: configuration.socketPath, environment: environment)
            let appJournal = StatePath.default(app: name, environment: environment)
            if state == nil, let path = configuration.statePath, path != appJournal,
               !FileManager.default.fileExists(atPath: path), FileManager.default.fileExists(atPath: appJournal) {
                // An older flowd kept one journal per app, whatever its socket.
                logger.notice("""
                    this flowd, on socket \(configuration.socketPath), keeps its own journal at \(path); the app's journal on the \
                    default socket, \(appJournal), is not restored (pass --state \(appJournal) to restore from it)
                    """)
            }
        }

        var chosen = context.command.app(named: name)!.make()
        let spawned = try SpawnChoice.executables(try spawnScreens.map { try SpawnChoice(parsing: $0) }, appKinds: chosen.kinds, app: name)
        for (kind, executable) in spawned {
            chosen = chosen.withAllScreens(.spawn(executable: executable), kinds: [kind])
        }
        if let restartScreens, let policy = RestartPolicy(parsing: restartScreens) {
            chosen = chosen.withRestartPolicy(policy)
        }
        let inherited = screenEnv.flatMap { $0.split(separator: ",").map(\.trimmingSpaces) }.filter { !$0.isEmpty }
        if !inherited.isEmpty {
            chosen = chosen.withInheritedEnvironment(inherited)
        }
        if let loseWithHost {
            let named = Set(loseWithHost.split(separator: ",").map(\.trimmingSpaces).filter { !$0.isEmpty })
            let unknown = named.subtracting(chosen.kinds)
            guard !named.isEmpty else { throw ValidationError("--lose-with-host needs kinds, comma-separated, or all; got '\(loseWithHost)'") }
            guard named == ["all"] || unknown.isEmpty else {
                throw ValidationError("--lose-with-host: app \(name) has no kind \(unknown.sorted().joined(separator: ", ")); its kinds are \(chosen.kinds.joined(separator: ", ")), or say all")
            }
            chosen = chosen.losingScreensWithTheirHost(named == ["all"] ? Set(chosen.kinds) : named)
        }
        if let spawnPool, let size = Self.poolSize(parsing: spawnPool) {
            let spawnedKinds = chosen.kinds.filter {
                switch chosen.factory(for: $0) {
                case .attached: false
                case .spawn, .deferred: true
                }
            }
            if size > 0, spawnedKinds.isEmpty {
                throw ValidationError("--spawn-pool: app \(name) spawns no screens (every kind is attached), so there is nothing to pool; add --spawn-screens EXECUTABLE")
            }
            chosen = chosen.withSpawnPool(size)
        }
        do {
            if let (path, read) = try PolicyFile.load(explicit: policy, app: name) {
                chosen = chosen.withPolicy(read)
                logger.info("policy from \(path)", metadata: ["rules": "\(read.hosting.count + (read.links?.count ?? 0) + (read.debug?.count ?? 0))"])
            }
        } catch {
            StandardError.write("\(context.command.name): \(error.description)\n")
            throw ExitCode(PolicyFile.exitCode)
        }
        do {
            if let path = configuration.statePath { try StatePath.createDirectory(of: path) }
            let service = try ServiceEnvironment.take(requestedSocketPath: socket, logger: logger)
            let daemon = try Daemon(configuration: configuration, app: chosen, logger: logger)
            try daemon.run(service: service)
        } catch {
            let priority = JournalLogHandler.isJournalStandardError() ? JournalLogHandler.prefix(for: .error) : ""
            StandardError.write("\(priority)\(context.command.name): \(error.description)\n")
            throw ExitCode(error.exitCode)
        }
    }
}

/// `--log-level`'s value: swift-log's level, parsed by a type of this module's own. A conformance
/// of `Logger.Level` itself would be public and reach every module that imports FlowdCommand.
struct LogLevelArgument: ExpressibleByArgument {
    var level: Logger.Level

    init(_ level: Logger.Level) { self.level = level }

    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument) else { return nil }
        self.level = level
    }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }

    var defaultValueDescription: String { level.rawValue }
}
