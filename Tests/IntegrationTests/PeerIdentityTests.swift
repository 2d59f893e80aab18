import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Who a peer is, as the real flowd reads it from the kernel (SO_PEERCRED, a pidfd, /proc), and the
/// app's policy from a file (`--policy`): as dbus and Wayland test theirs, with real processes.
@Suite("Peer identity and policy over the socket")
struct PeerIdentityTests {
    /// This test process's executable, as /proc/PID/exe names it.
    static let ownExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

    static func writePolicy(_ text: String) -> String {
        let path = makeTemporaryDirectory() + "/launcher.policy"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static func errors(_ frames: [Flowd_V1_Envelope]) -> [Flowd_V1_Error] {
        frames.compactMap { if case .error(let e) = $0.body { e } else { nil } }
    }

    /// A client of another uid (nobody, through setpriv) that reaches the socket: the daemon's
    /// socket is made world-writable on purpose, so that only flowd's own check stands between.
    /// It connects, sends nothing, and prints what it read until the daemon closed, as hex.
    @Test(.enabled(if: Impostor.possible, Impostor.reason))
    func anotherUIDIsRefusedWithTheExactError() throws {
        let directory = makeTemporaryDirectory()
        chmod(directory, 0o755)
        let daemon = try DaemonProcess(directory: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(daemon.socketPath, 0o666)
        let script = """
            import socket, sys
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(sys.argv[1])
            data = b""
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                data += chunk
            print(data.hex())
            """
        let run = try ProductRun.run(executable: URL(fileURLWithPath: Impostor.setpriv), [
            "--reuid=\(Impostor.uid)", "--regid=\(Impostor.uid)", "--clear-groups", Impostor.python, "-c", script, daemon.socketPath,
        ], environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.stderr)")
        var decoder = FrameDecoder()
        let hex = Array(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        decoder.append(stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) })
        var frames: [Flowd_V1_Envelope] = []
        while let frame = try decoder.nextEnvelope() { frames.append(frame) }
        let error = try #require(Self.errors(frames).first, "\(run.stdout)")
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message == "peer uid \(Impostor.uid) is not the daemon's uid \(getuid()); only the daemon's user may connect")
        #expect(frames.count == 2, "the Error, then Shutdown: nothing else")
        #expect(daemon.waitForLog("refused connection"))
    }

    /// The policy names a program for the kind `menu`; this test process is another program of the
    /// same user, and is refused at Hello with the rule, its file and line, and its own identity as
    /// the kernel told flowd (its executable read through the pidfd check).
    @Test func aSameUIDProgramThePolicyDoesNotAdmitForAKindIsRefusedAtHello() throws {
        let policy = Self.writePolicy("# menus come from the shell only\nprovide menu by exe=/usr/lib/shell/menu-host\n")
        defer { try? FileManager.default.removeItem(atPath: (policy as NSString).deletingLastPathComponent) }
        let daemon = try DaemonProcess(arguments: ["--policy", policy])
        let client = try RawClient(path: daemon.socketPath)
        let seq = try client.send(RawClient.hello(provides: ["menu"]))
        let frames = try client.receiveUntilClosed()
        let error = try #require(Self.errors(frames).first)
        #expect(frames.first?.replyTo == seq)
        #expect(error.code == .unauthorized && error.fatal)
        #expect(error.message.hasPrefix("uid \(getuid()) pid \(getpid()) \(Self.ownExecutable)"), "\(error.message)")
        #expect(error.message.hasSuffix(#"may not provide kind "menu": policy rule "provide menu by exe=/usr/lib/shell/menu-host" (\#(policy):2) admits other peers only"#),
                "\(error.message)")
        // Another kind no rule names is still open to it.
        let other = try RawClient(path: daemon.socketPath)
        try other.handshake(provides: ["login"])
    }

    @Test func flowctlTreeShowsEachPeersExecutableAndPid() throws {
        let daemon = try DaemonProcess()
        let host = try RawClient(path: daemon.socketPath)
        let id = try host.handshake(name: "raw-host", provides: ["menu"]).connectionID
        let run = try flowctl(["tree"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("#\(id) screen-host raw-host pid \(getpid())  provides menu"), "\(run.stdout)")
        #expect(run.stdout.contains("\n    peer uid \(getuid()) gid \(getgid()) pid \(getpid()) \(Self.ownExecutable)"), "\(run.stdout)")
        let flowctlExecutable = productsDirectory.appendingPathComponent("flowctl").resolvingSymlinksInPath().path
        #expect(run.stdout.contains(" debug flowctl pid "), "\(run.stdout)")
        #expect(run.stdout.contains(" \(flowctlExecutable)"), "flowctl's own connection, with its executable: \(run.stdout)")
        #expect(run.stdout.contains("may control"), "the default policy: every same-uid client may act")
        // The handshake event says who joined.
        let json = try flowctl(["tree", "--json"], daemon)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let connections = try #require(object["connections"] as? [[String: Any]])
        let mine = try #require(connections.first { ($0["name"] as? String) == "raw-host" })
        let identity = try #require(mine["identity"] as? [String: Any])
        #expect(identity["executable"] as? String == Self.ownExecutable)
        #expect(identity["pid"] as? Int == Int(getpid()))
    }

    @Test func anInjectionIsAuditedWithWhoAskedAndAnInspectOnlyClientIsRefused() throws {
        let policy = Self.writePolicy("debug inspect by any\ndebug control by exe=\(productsDirectory.appendingPathComponent("flowctl").resolvingSymlinksInPath().path)\n")
        defer { try? FileManager.default.removeItem(atPath: (policy as NSString).deletingLastPathComponent) }
        let daemon = try DaemonProcess(arguments: ["--app", "modal", "--policy", policy])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(name: "raw-host", provides: ["item"])
        let home = try #require(try host.settle().compactMap(\.place).first)
        var run = try flowctl(["audit"], daemon)
        #expect(run.stdout == "no injections or terminations audited since flowd started\n", "\(run.stdout)")
        run = try flowctl(["inject", "\(home.screenID)", #"{"didPressButton":{"index":0}}"#], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        // This test process may only inspect: its InjectOutput is refused and changes nothing.
        let viewer = try RawClient(path: daemon.socketPath)
        try viewer.handshake(role: .debug, name: "viewer")
        var inject = Flowd_V1_InjectOutput()
        inject.screenID = home.screenID
        inject.payload = .json(Data(#"{"didPressButton":{"index":0}}"#.utf8))
        let seq = try viewer.send(.injectOutput(inject))
        let answer = try #require(try viewer.receive())
        guard case .error(let error) = answer.body else {
            Issue.record("expected an Error, got \(String(describing: answer.body))")
            return
        }
        #expect(answer.replyTo == seq && error.code == .unauthorized && !error.fatal)
        #expect(error.message.contains("may only inspect; this needs the debug power control"), "\(error.message)")
        try viewer.ping()
        run = try flowctl(["audit"], daemon)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run.stdout)")
        #expect(lines[0].hasPrefix("#1 ") && lines[0].contains(" inject-output screen \(home.screenID) by #"), "\(run.stdout)")
        #expect(lines[0].contains("/flowctl"), "\(run.stdout)")
        #expect(lines[1].hasPrefix("#2 ") && lines[1].contains("pid \(getpid()) \(Self.ownExecutable)"), "\(run.stdout)")
        #expect(lines[2].hasPrefix("    REFUSED: InjectOutput refused: "), "\(run.stdout)")
        #expect(daemon.waitForLog("audit: debug client was refused inject-output"))
    }

    @Test func aBadPolicyFileStopsFlowdNamingTheLine() throws {
        let policy = Self.writePolicy("provide menu by any\nallow everything\n")
        defer { try? FileManager.default.removeItem(atPath: (policy as NSString).deletingLastPathComponent) }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var run = try ProductRun.run("flowd", ["--socket", directory + "/flowd.sock", "--no-state", "--policy", policy])
        #expect(run.status == 78)
        #expect(run.stderr == """
            flowd: bad policy file: \(policy):2: unknown rule `allow`; a line starts with provide, open-links, display, debug, saved-state \
            or #: `allow everything`; flowd does not start (docs/daemon.md, Who may do what)\n
            """, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/flowd.sock"), "it never listened")
        run = try ProductRun.run("flowd", ["--socket", directory + "/flowd.sock", "--no-state", "--policy", directory + "/missing.policy"])
        #expect(run.status == 78)
        #expect(run.stderr.hasPrefix("flowd: cannot read the policy file \(directory)/missing.policy: "), "\(run.stderr)")
    }
}
