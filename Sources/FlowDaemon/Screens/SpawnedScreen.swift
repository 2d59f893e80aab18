import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

/// A screen process the daemon spawned for one screen: started with a
/// connected socket at fd 3 and a one-time token, reaped when it exits, and
/// stopped with SIGTERM then SIGKILL if it outstays its screen.
final class SpawnedScreen: SpawnedHost {
    let pid: Int32
    let connectionID: UInt64
    /// Its screen (nil while it waits in the warm pool).
    private(set) var screen: ScreenID?
    let kind: String
    private let process: UVProcess
    private unowned let daemon: Daemon
    private let loop: UVLoop
    private var killTimer: UVTimer?
    private var signalsSent = 0
    private(set) var hasExited = false
    private(set) var exitedAbnormally = false
    /// Runs once when the process has exited and its handle is closed.
    var onExit: ((any SpawnedHost) -> Void)?

    private init(pid: Int32, connectionID: UInt64, screen: ScreenID?, kind: String, process: UVProcess, daemon: Daemon, loop: UVLoop) {
        self.pid = pid
        self.connectionID = connectionID
        self.screen = screen
        self.kind = kind
        self.process = process
        self.daemon = daemon
        self.loop = loop
    }

    /// Spawns `executable` for `screen` (nil: for the warm pool of `kind`); its connection joins the
    /// daemon and must complete the handshake with the token within the handshake timeout.
    static func start(
        daemon: Daemon, loop: UVLoop, screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: [String: String]
    ) throws -> SpawnedScreen {
        let pair = try SocketPair.make()
        let pipe = UVPipe(loop: loop)
        do {
            try pipe.open(fd: pair.parent)
        } catch {
            close(pair.parent)
            close(pair.child)
            pipe.close()
            throw error
        }
        let token = makeToken()
        let connection = daemon.adopt(pipe, origin: .spawned(token: token), peerPID: 0)

        var childEnvironment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        childEnvironment[WireProtocol.socketFDEnvironmentVariable] = "3"
        childEnvironment[WireProtocol.tokenEnvironmentVariable] = token
        childEnvironment["FLOWD_SCREEN_KIND"] = kind
        if let screen {
            childEnvironment["FLOWD_SCREEN_ID"] = String(screen.rawValue)
        } else {
            // A pooled process learns its screen from the `Place` it gets when one is placed.
            childEnvironment["FLOWD_SCREEN_ID"] = nil
            childEnvironment["FLOWD_POOLED"] = "1"
        }
        childEnvironment[WireProtocol.socketPathEnvironmentVariable] = daemon.configuration.socketPath

        var spawned: SpawnedScreen?
        let process: UVProcess
        do {
            process = try UVProcess.spawn(
                loop: loop, executable: resolve(executable), arguments: arguments,
                environment: childEnvironment, inheritedDescriptors: [pair.child]
            ) { status, signal in
                spawned?.exited(status: status, signal: signal)
            }
        } catch {
            connection.forceClose()
            throw error
        }
        let screenProcess = SpawnedScreen(
            pid: process.pid, connectionID: connection.id, screen: screen, kind: kind, process: process, daemon: daemon, loop: loop)
        spawned = screenProcess
        connection.peerPID = process.pid
        daemon.logger.info(screen == nil ? "spawned a pooled screen process" : "spawned screen process", metadata: [
            "screen": "\(screen.map { "\($0)" } ?? "none (pooled)")", "kind": "\(kind)", "pid": "\(process.pid)", "connection": "\(connection.id)",
        ])
        daemon.emitEvent(.processSpawned, screen: screen, connection: connection.id, name: kind,
                         text: "spawned \(executable) pid \(process.pid) for \(screen.map { "\(kind) \($0)" } ?? "the pool of \(kind)")")
        return screenProcess
    }

    /// The screen is gone (the daemon said goodbye on the connection): make sure the process
    /// follows within the grace period.
    func retire(reason: String) {
        startKillTimer()
    }

    /// The connection closed first (the process died or closed it): the
    /// process should exit now; enforce it.
    func connectionClosed() {
        startKillTimer()
    }

    /// Sends SIGTERM, then SIGKILL, each after the grace period, until the process exits.
    private func startKillTimer() {
        guard !hasExited, killTimer == nil else { return }
        let timer = UVTimer(loop: loop)
        killTimer = timer
        let grace = daemon.configuration.spawnExitGraceMilliseconds
        timer.start(after: grace, repeat: grace) { [unowned self] in
            guard !hasExited else { return }
            let signal = signalsSent == 0 ? SIGTERM : SIGKILL
            signalsSent += 1
            daemon.logger.warning("screen process outstays its screen; sending \(signal == SIGTERM ? "SIGTERM" : "SIGKILL")", metadata: [
                "pid": "\(pid)", "kind": "\(kind)",
            ])
            try? process.kill(signal)
        }
    }

    func assign(_ screen: ScreenID) { self.screen = screen }

    /// Kills the process at once (daemon shutdown after the grace period).
    func kill() {
        guard !hasExited else { return }
        try? process.kill(SIGKILL)
    }

    private func exited(status: Int64, signal: Int32) {
        hasExited = true
        exitedAbnormally = signal != 0 || status != 0
        killTimer?.close()
        killTimer = nil
        let how = signal != 0 ? "signal \(signal)" : "status \(status)"
        daemon.logger.info("screen process exited", metadata: ["pid": "\(pid)", "kind": "\(kind)", "how": "\(how)"])
        daemon.emitEvent(.processExited, screen: screen, connection: connectionID, name: kind, text: "pid \(pid) (\(kind)) exited with \(how)")
        process.close { [self] in
            onExit?(self)
            daemon.wakeIfWorkPending()
        }
    }

    /// A relative executable is looked up next to the running flowd first.
    private static func resolve(_ executable: String) -> String {
        guard !executable.contains("/") else { return executable }
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let sibling = here.appendingPathComponent(executable).path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : executable
    }

    /// 128 random bits as hex: the one-time token.
    private static func makeToken() -> String { ResumeTokens.randomHex() + ResumeTokens.randomHex() }
}
