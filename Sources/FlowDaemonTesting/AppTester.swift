import FlowApp
import FlowDaemon
import FlowKit
import FlowWire
import Foundation
import Logging

/// A whole app on an ``EmbeddedDaemon`` with a journal, for testing what outlives a process: a
/// checkpoint taken at any moment and the app opened again from it, a crash and its restore, an
/// upgrade from an older version of the app or from a journal file kept from one, and what each of
/// them refused, with why (docs/restore.md).
///
/// The tester is the app's screen host (it provides every kind the app attaches, acknowledges every
/// command and keeps what each screen shows) and its user (``send(_:from:)``). Screens of kinds the
/// app spawns are not hosted by it. Its journal lives in a temporary folder of its own, removed when
/// the tester goes, unless the journal was given.
public final class AppTester {
    /// The version of the app running now.
    public private(set) var app: App
    /// The embedded daemon running it now (a new one after each ``reopen()`` and ``upgrade(to:)``).
    public private(set) var daemon: EmbeddedDaemon
    /// The journal the daemon writes.
    public let journalPath: String
    /// What the last start did with the journal it found.
    public private(set) var lastStart: Start
    /// Every line the daemons logged, oldest first, each as its level and message ("warning: …").
    public var log: [String] { logLines.lines }

    private var host: EmbeddedConnection
    private var shown: [UInt64: Shown] = [:]
    private var savedStates: [UInt64: Data] = [:]
    private var stopped = false
    private let logLines = LogLines()
    private let ownedDirectory: String?
    private let configure: (inout DaemonConfiguration) -> Void

    /// A screen as its host was told to show it.
    private struct Shown {
        var kind: String
        var state: Flowd_V1_Payload
    }

    /// What a start found in the journal and did with it.
    public struct Start: Sendable, Equatable {
        /// The user's place after the start, as a link ("" at the app's start).
        public var place: String
        /// Inputs replayed from the journal (a restore of the version that wrote it).
        public var restoredInputs: Int
        /// What the start carried from a journal of another version, or one that did not replay, in
        /// the words of `flowctl stats`: the place, the mementos and saved states carried of those
        /// found, and the version ("" when it carried nothing).
        public var carriedOver: String
        /// What it did not carry, each with why: a link refused, a memento no migration reads, a saved
        /// state whose screen's contract changed.
        public var notCarried: [String]
        /// The lines the daemon logged at warning level or above as it started (a memento dropped, a
        /// journal refused as damaged or another app's).
        public var problems: [String]
    }

    /// What came of ``checkpoint()``.
    public enum Checkpoint: Sendable, Equatable {
        /// The journal was rewritten from a checkpoint of the user's place, at `place`.
        case taken(place: String)
        /// The checkpoint did not give back the same app; the journal keeps its history.
        case refused(String)
        /// None could be taken now: something is in flight (a dismissal, outside work, a gesture).
        case notNow
    }

    /// What the user sees, as the host was told: comparable across a checkpoint, a crash or an upgrade.
    public struct Moment: Sendable, Equatable, CustomStringConvertible {
        /// The user's place, as a link ("": the app's start, or a place no link names).
        public var place: String
        /// The kind of the visible screen ("" when none is).
        public var visibleKind: String
        /// Each screen shown, by id: its kind and its state as its host received it.
        public var screens: [UInt64: ScreenShown]

        /// The place, the visible kind and each screen's id and kind, on one line.
        public var description: String {
            let list = screens.keys.sorted().map { "#\($0) \(screens[$0]!.kind)" }.joined(separator: ", ")
            return "at '\(place)', \(visibleKind.isEmpty ? "nothing" : visibleKind) visible; screens: \(list)"
        }
    }

    /// One screen of a ``Moment``.
    public struct ScreenShown: Sendable, Equatable {
        /// Its kind.
        public var kind: String
        /// Its state's content type.
        public var contentType: String
        /// Its state's bytes (as the module's `stateCoder` wrote them).
        public var state: Data
    }

    /// Starts `app` on a new embedded daemon that journals into `journal` — a copy of the file there,
    /// so the file itself is never changed — or into a fresh journal in a temporary folder. A journal
    /// of another version of the app is an upgrade (``lastStart`` says what it carried); one of this
    /// version is restored. `configure` changes the daemon's configuration (its journal is the
    /// tester's). Throws as `flowd` would refuse to start.
    public init(_ app: App, journal: String? = nil, configure: @escaping (inout DaemonConfiguration) -> Void = { _ in }) throws(DaemonError) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-app-tester-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        ownedDirectory = directory
        journalPath = directory + "/\(app.name).journal"
        if let journal { try? FileManager.default.copyItem(atPath: journal, toPath: journalPath) }
        self.app = app
        self.configure = configure
        let (daemon, host, answer) = try Self.start(app, journal: journalPath, log: logLines, configure: configure)
        (self.daemon, self.host) = (daemon, host)
        lastStart = Start(place: "", restoredInputs: 0, carriedOver: "", notCarried: [], problems: [])
        settle(answer)
        lastStart = takeStart(logFrom: 0)
    }

    deinit {
        if !stopped { daemon.crash() }
        if let ownedDirectory { try? FileManager.default.removeItem(atPath: ownedDirectory) }
    }

    private static func start(_ app: App, journal: String, log: LogLines,
                              configure: (inout DaemonConfiguration) -> Void) throws(DaemonError)
        -> (EmbeddedDaemon, EmbeddedConnection, [Flowd_V1_Envelope.OneOf_Body]) {
        let daemon = try EmbeddedDaemon(app: app, statePath: journal, logger: log.logger) {
            $0.exitWhenAppFinishes = false
            configure(&$0)
            $0.statePath = journal
        }
        let host = daemon.connect()
        let kinds = app.kinds.filter { kind in
            if case .spawn = app.factory(for: kind) { return false }
            return true
        }
        let answer = host.hello(role: .screenHost, name: "app-tester", provides: kinds)
        return (daemon, host, answer)
    }

    /// Reads what the daemon sent the host since the last call, keeps what each screen shows and
    /// acknowledges every command, until the daemon sends nothing more; returns the errors it sent.
    @discardableResult
    private func settle(_ first: [Flowd_V1_Envelope.OneOf_Body] = []) -> [String] {
        var errors: [String] = []
        var bodies = first
        while true {
            if bodies.isEmpty { bodies = host.readBodies() }
            if bodies.isEmpty { return errors }
            let batch = bodies
            bodies = []
            for body in batch {
                switch body {
                case .place(let m):
                    shown[m.screenID] = Shown(kind: m.kind, state: m.state)
                    savedStates[m.screenID] = m.savedState.isEmpty ? nil : m.savedState
                    host.ack(m.screenID, serial: m.serial)
                case .update(let m):
                    shown[m.screenID]?.state = m.state
                    host.ack(m.screenID, serial: m.serial)
                case .placementChanged(let m):
                    host.ack(m.screenID, serial: m.serial)
                case .dismiss(let m):
                    shown[m.screenID] = nil
                    savedStates[m.screenID] = nil
                    host.ack(m.screenID, serial: m.serial)
                case .error(let error):
                    errors.append("\(error.code): \(error.message)")
                default:
                    break
                }
            }
        }
    }

    private func takeStart(logFrom first: Int) -> Start {
        settle()
        let stats = daemon.daemon.stats()
        let problems = logLines.lines.dropFirst(first).filter { $0.hasPrefix("warning: ") || $0.hasPrefix("error: ") || $0.hasPrefix("critical: ") }
        return Start(place: place, restoredInputs: Int(stats.restoredInputs), carriedOver: stats.carriedOver,
                     notCarried: daemon.daemon.notCarried, problems: Array(problems))
    }

    // MARK: The user

    /// The user's place, as a link: what `flowctl where` prints ("": the app's start, or a place no
    /// link names).
    public var place: String { daemon.daemon.tree().place }

    /// Where the user is in each window a flow opened beside the main one, by display: the link to
    /// its visible screen ("" when none names it). Empty with one window.
    public var windowPlaces: [String: String] {
        Dictionary(daemon.daemon.tree().otherWindows.map { ($0.display, $0.place) }) { first, _ in first }
    }

    /// What the user sees now.
    public var moment: Moment {
        settle()
        let visible = daemon.daemon.visibleScreen.flatMap { shown[$0.rawValue]?.kind } ?? ""
        return Moment(place: place, visibleKind: visible, screens: shown.mapValues {
            ScreenShown(kind: $0.kind, contentType: $0.state.contentType, state: $0.state.data)
        })
    }

    /// The screen of `module`'s kind the user sees: the visible one, else the last placed of that kind.
    private func screen<M: ScreenModule>(of module: M.Type) -> UInt64? {
        settle()
        if let visible = daemon.daemon.visibleScreen?.rawValue, shown[visible]?.kind == M.kind { return visible }
        return shown.filter { $0.value.kind == M.kind }.keys.max()
    }

    /// The state the screen of `module`'s kind shows (the visible one, else the last placed), or nil
    /// when none is shown.
    public func state<M: ScreenModule>(of module: M.Type) throws -> M.State? {
        guard let id = screen(of: module), let shown = shown[id] else { return nil }
        return try M.stateCoder.decode(shown.state.data, with: JSONPayloadCodec())
    }

    /// The user acts on the screen of `module`'s kind (the visible one, else the last placed): its
    /// host sends `output`, and the daemon runs until it is quiet. Throws `AppTesterError` when no
    /// such screen is shown or the daemon refused the output.
    public func send<M: ScreenModule>(_ output: M.Output, from module: M.Type) throws {
        guard let id = screen(of: module) else { throw AppTesterError("no screen of kind \(M.kind) is shown (\(moment))") }
        var message = Flowd_V1_Output()
        message.screenID = id
        message.payload.contentType = M.outputCoder.contentType
        message.payload.data = try M.outputCoder.encode(output, with: JSONPayloadCodec())
        host.send(.output(message))
        try answer()
    }

    /// The host saves `bytes` for the screen of `module`'s kind (`SaveState`: what only the screen
    /// knows, such as an unsent line), as a host does while the user types.
    public func save<M: ScreenModule>(_ bytes: Data, for module: M.Type) throws {
        guard let id = screen(of: module) else { throw AppTesterError("no screen of kind \(M.kind) is shown (\(moment))") }
        var message = Flowd_V1_SaveState()
        message.screenID = id
        message.data = bytes
        host.send(.saveState(message))
        try answer()
    }

    /// What the daemon handed the screen of `module`'s kind (the visible one, else the last placed)
    /// as its saved state when it placed it, or nil: what a host saved for it before a restart, a
    /// restore or an upgrade (docs/restore.md).
    public func savedState<M: ScreenModule>(of module: M.Type) -> Data? {
        screen(of: module).flatMap { savedStates[$0] }
    }

    /// Lets the daemon run, settles the host and throws the first error the daemon answered with.
    private func answer() throws {
        if let first = settle().first { throw AppTesterError("the daemon refused: \(first)") }
    }

    // MARK: What outlives the process

    /// Takes a checkpoint of the user's place now and compacts the journal to it, as the daemon does
    /// every `--compact-after` inputs: the journal then holds the checkpoint alone, and ``reopen()``
    /// opens the app from it. Refused, keeping the history, when the checkpoint would not give back
    /// the same app: a flow that does not handle links, a state no link or memento gives back.
    @discardableResult
    public func checkpoint() -> Checkpoint {
        settle()
        let before = daemon.daemon.stats()
        guard daemon.daemon.checkpointNow() else { return .notNow }
        let after = daemon.daemon.stats()
        if after.journalCheckpoints > before.journalCheckpoints {
            return .taken(place: place)
        }
        if after.journalCheckpointsRefused > before.journalCheckpointsRefused { return .refused(after.lastCheckpointRefusal) }
        return .notNow
    }

    /// The daemon dies as with `kill -9` and a new one opens the app from the journal, as a service
    /// manager restarts it: what was committed comes back (after a ``checkpoint()``, from it).
    /// Returns what the start did. Throws as `flowd` would refuse to start.
    @discardableResult
    public func reopen() throws(DaemonError) -> Start {
        if !stopped { daemon.crash() }
        return try startAgain(app)
    }

    /// Stops this version as `systemctl stop` does (the stop leaves the mementos and saved states for a
    /// next version) and starts `newer` on the same journal: an upgrade when its version differs.
    /// Returns what the start carried and refused. Throws as `flowd` would refuse to start.
    @discardableResult
    public func upgrade(to newer: App) throws(DaemonError) -> Start {
        if !stopped { stop() }
        return try startAgain(newer)
    }

    /// Stops the daemon as SIGTERM does: the flows unwind, the journal keeps the user's place and what
    /// a next version needs. Nothing runs afterwards until ``upgrade(to:)`` or ``reopen()``.
    public func stop() {
        settle()
        daemon.shutdown()
        settle()
        daemon.run()
        daemon.crash()
        stopped = true
    }

    private func startAgain(_ app: App) throws(DaemonError) -> Start {
        shown = [:]
        savedStates = [:]
        let first = logLines.lines.count
        let (daemon, host, answer) = try Self.start(app, journal: journalPath, log: logLines, configure: configure)
        (self.app, self.daemon, self.host, stopped) = (app, daemon, host, false)
        settle(answer)
        lastStart = takeStart(logFrom: first)
        return lastStart
    }

    /// Runs what is pending and reports what is left (``EmbeddedDaemon/Leftovers``): after ``stop()``,
    /// clean.
    public func finish() -> EmbeddedDaemon.Leftovers {
        settle()
        return daemon.finish()
    }
}

/// What an ``AppTester`` could not do, and why.
public struct AppTesterError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The daemons' log lines, as "level: message".
private final class LogLines: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    var logger: Logger {
        var logger = Logger(label: "flowd.app-tester") { _ in Handler(store: self) }
        logger.logLevel = .info
        return logger
    }

    var lines: [String] { lock.withLock { stored } }

    func append(_ line: String) { lock.withLock { stored.append(line) } }

    struct Handler: LogHandler {
        let store: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            store.append("\(event.level): \(event.message)")
        }
    }
}
