import FlowApp
import FlowKit
import FlowWire
import Foundation
import Logging
import UVKit

/// A screen process the daemon spawned for one screen: started with a connected socket at fd 3 and
/// a one-time token, an environment of only what its factory lists plus the daemon's `FLOWD_*`
/// variables, its standard output and error on pipes the daemon logs as its (`ChildOutputLog`), and
/// `PR_SET_NO_NEW_PRIVS`; reaped when it exits. When it must exit, and the SIGTERM then SIGKILL if it
/// outstays, are the daemon's (`SpawnedProcesses`, on the loop's clock).
final class SpawnedScreen: SpawnedHost {
    let pid: Int32
    let connectionID: UInt64
    /// Its screen (nil while it waits in the warm pool).
    private(set) var screen: ScreenID?
    let kind: String
    private let process: UVProcess
    private let output: ChildOutputLog?
    private(set) var hasExited = false
    private(set) var exitedAbnormally = false
    private(set) var exitDescription = ""
    /// Runs once when the process has exited and its handle is closed.
    var onExit: ((any SpawnedHost) -> Void)?

    private init(pid: Int32, connectionID: UInt64, screen: ScreenID?, kind: String, process: UVProcess, output: ChildOutputLog?) {
        self.pid = pid
        self.connectionID = connectionID
        self.screen = screen
        self.kind = kind
        self.process = process
        self.output = output
    }

    /// Spawns `executable` for `screen` (nil: for the warm pool of `kind`); its connection joins the
    /// daemon and must complete the handshake with the token within the handshake timeout.
    /// Its environment is `environment` drawn from the daemon's own (`FlowApp.ScreenFactory.Environment.resolved`)
    /// plus the daemon's variables (docs/daemon.md, "Screen factories").
    static func start(
        loop: UVLoop, screen: ScreenID?, kind: String, executable: String, arguments: [String], environment: FlowApp.ScreenFactory.Environment,
        socketPath: String, logger: Logger, adopt: (any ConnectionPipe, _ token: String, _ pid: Int32) -> UInt64
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
        let connectionID = adopt(pipe, token, 0)

        var childEnvironment = environment.resolved(from: ProcessInfo.processInfo.environment)
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
        childEnvironment[WireProtocol.socketPathEnvironmentVariable] = socketPath

        var spawned: SpawnedScreen?
        // A failure leaves the adopted connection to the daemon, which closes it (`spawnProcess`).
        let process = try UVProcess.spawn(
            loop: loop, executable: resolve(executable), arguments: arguments,
            environment: childEnvironment, inheritedDescriptors: [pair.child], standardIO: .pipes, noNewPrivileges: true
        ) { status, signal in
            spawned?.exited(status: status, signal: signal)
        }
        var output: ChildOutputLog?
        if let standardOutput = process.standardOutput, let standardError = process.standardError {
            output = ChildOutputLog(pid: process.pid, kind: kind, screen: screen, output: standardOutput, error: standardError,
                                    loop: loop, logger: logger)
            output?.start()
        }
        let screenProcess = SpawnedScreen(pid: process.pid, connectionID: connectionID, screen: screen, kind: kind, process: process,
                                          output: output)
        spawned = screenProcess
        return screenProcess
    }

    func retire(reason: String) {}

    func assign(_ screen: ScreenID) {
        self.screen = screen
        output?.screen = screen
    }

    func send(_ signal: Int32) {
        guard !hasExited else { return }
        try? process.kill(signal)
    }

    private func exited(status: Int64, signal: Int32) {
        hasExited = true
        exitedAbnormally = signal != 0 || status != 0
        exitDescription = signal != 0 ? "signal \(signal)" : "status \(status)"
        // Its last lines are logged before its exit is, and every handle of it is closed before `onExit`.
        let closeProcess = { [self] in
            process.close { [self] in
                onExit?(self)
                onExit = nil
            }
        }
        if let output { output.finish(closeProcess) } else { closeProcess() }
    }

    /// A relative executable is looked up next to the running flowd first.
    private static func resolve(_ executable: String) -> String {
        guard !executable.contains(Character("/")) else { return executable }
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let sibling = here.appendingPathComponent(executable).path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : executable
    }

    /// 128 random bits as hex: the one-time token.
    private static func makeToken() -> String { ResumeTokens.randomHex() + ResumeTokens.randomHex() }
}
