import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// flowd as a systemd service, from the outside and without a running systemd: socket activation
/// (Debian's systemd-socket-activate, and the test as the service manager holding the socket across
/// flowd's deaths), sd_notify readiness, status, stopping and watchdog pings to a socket the test
/// binds, refusals of a bad hand-over, journal-style logs, and the install script (docs/service.md).
/// Log checks after an exit use `waitForLog`: the reaper may see the exit before the reader saw the last line.
@Suite("flowd as a systemd service")
struct ServiceTests {
    static let socketActivate = "/usr/bin/systemd-socket-activate"
    static let socketActivateTool = Precondition.executable(socketActivate, "needs systemd-socket-activate (Debian package systemd)")
    static let systemdAnalyze = Precondition.executable("/usr/bin/systemd-analyze", "needs systemd-analyze (Debian package systemd)")

    // MARK: Socket activation

    /// scripts/test installs the `systemd` package when the tool is missing.
    @Test(.needs(socketActivateTool))
    func systemdSocketActivateHandsTheSocketToFlowd() throws {
        try Self.socketActivateTool.require()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        let flowd = productsDirectory.appendingPathComponent("flowd").path
        // Without --accept it listens, waits for the first connection, then execs flowd with the socket at fd 3.
        let activator = try SpawnedProcess(
            executable: Self.socketActivate,
            arguments: ["-l", path, "--fdname=flowd.socket", flowd, "--app", "tutorial"],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LISTEN_") && $0.key != "NOTIFY_SOCKET" })
        #expect(activator.waitForLog("Listening on \(path)"), "\(activator.logText)")

        let client = try RawClient(path: path)
        let welcome = try client.handshake(name: "activated")
        #expect(welcome.app == "tutorial")
        try client.ping()
        #expect(activator.waitForLog("serving the socket the service manager passed"))
        #expect(activator.waitForLog("path=\(path)"))
        #expect(activator.waitForLog("name=flowd.socket"))
        #expect(activator.waitForLog("listening on \(path)"))

        // The exec kept the pid: SIGTERM stops flowd gracefully, and the socket file is not flowd's to remove.
        activator.signal(SIGTERM)
        #expect(activator.waitForExit() == 0, "\(activator.logText)")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
    }

    /// The test plays systemd: it holds the listening socket while flowd is started, SIGKILLed and started again.
    @Test func aHostConnectingWhileNoFlowdRunsIsQueuedAndServedAfterARestart() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        let listening = try listenOnUnixSocket(path: path, backlog: 16)
        defer { close(listening) }

        // No flowd yet: the connect is queued in the kernel's backlog, not refused, and the Hello waits with it.
        let early = try RawClient(path: path)
        let earlyHello = try early.send(RawClient.hello(name: "early"))
        let first = try startActivatedFlowd(socket: listening, arguments: ["--app", "tutorial"])
        let welcome = try #require(try early.receive(), "no Welcome: \(first.logText)")
        #expect(welcome.replyTo == earlyHello)
        guard case .welcome = welcome.body else {
            Issue.record("expected Welcome, got \(String(describing: welcome.body))")
            return
        }
        #expect(first.waitForLog("listening on \(path)"))

        // SIGKILL: the connection it served ends, the socket stays (the test holds it, as systemd would).
        first.signal(SIGKILL)
        #expect(first.waitForExit() == 128 + SIGKILL)
        let afterKill = try? early.receive()
        #expect(afterKill == nil)

        // A host reconnecting while nobody serves is queued too, and the next flowd on the same socket answers it.
        let reconnecting = try RawClient(path: path)
        let hello = try reconnecting.send(RawClient.hello(name: "reconnecting"))
        let second = try startActivatedFlowd(socket: listening, arguments: ["--app", "tutorial"])
        let answer = try #require(try reconnecting.receive(), "no Welcome from the restarted flowd: \(second.logText)")
        #expect(answer.replyTo == hello)
        try reconnecting.ping()
        let other = try RawClient(path: path)
        try other.handshake(name: "other")

        // A graceful stop leaves the socket file in place (systemd owns it) and takes no lock.
        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0, "\(second.logText)")
        #expect(second.waitForLog("stopped"))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        // Still listening (in the test): the next host queues for the next flowd.
        _ = try RawClient(path: path)
    }

    @Test func spawnedScreensInheritNeitherTheSocketNorTheNotifications() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        let listening = try listenOnUnixSocket(path: path)
        defer { close(listening) }
        let notify = try NotifyReceiver(address: directory + "/notify")
        // A "screen" that records its environment and descriptors, then exits.
        let screen = directory + "/screen.sh"
        try """
            #!/bin/sh
            env > \(directory)/env.tmp && mv \(directory)/env.tmp \(directory)/env
            ls -l /proc/$$/fd > \(directory)/fds
            exit 3
            """.write(toFile: screen, atomically: true, encoding: .utf8)
        chmod(screen, 0o755)
        let flowd = try startActivatedFlowd(
            socket: listening, arguments: ["--app", "tutorial", "--spawn-screens", screen, "--restart-screens", "never"],
            environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "10000000"])
        #expect(flowd.waitForLog("screen process exited"), "\(flowd.logText)")

        let environment = try String(contentsOfFile: directory + "/env", encoding: .utf8)
        for name in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            #expect(!environment.contains("\(name)="), "the screen inherited \(name)")
        }
        #expect(environment.contains("FLOWD_SOCKET=\(path)\n"))
        // Its fd 3 is its own connection to flowd, and the listening socket is nowhere.
        var status = stat()
        #expect(fstat(listening, &status) == 0)
        let descriptors = try String(contentsOfFile: directory + "/fds", encoding: .utf8)
        #expect(!descriptors.contains("socket:[\(status.st_ino)]"), "\(descriptors)")
        #expect(descriptors.split(separator: "\n").contains { $0.contains(" 3 -> socket:[") }, "\(descriptors)")
    }

    // MARK: Readiness, status, stopping, watchdog

    @Test func readyOnceListeningThenStatusThenStoppingOnSigterm() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let notify = try NotifyReceiver(address: directory + "/notify")
        let daemon = try DaemonProcess(
            arguments: ["--app", "tutorial"], environment: ["NOTIFY_SOCKET": notify.address], directory: directory,
            waitUntilListening: false)

        let startup = notify.receive(untilLine: "READY=1")
        let ready = try #require(startup.last, "no notification: \(daemon.logText)")
        #expect(NotifyReceiver.lines(of: ready).contains("READY=1"), "\(startup)")
        #expect(NotifyReceiver.status(in: ready) == "serving app tutorial: 1 flow, 1 screen, 0 connections")
        // Ready means listening: a host connects and is welcomed at once.
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake()
        try host.ping()
        // The change is reported (at most one status a second, so it may come a little later).
        let update = notify.receive(untilStatus: { $0.contains("1 connection") })
        #expect(update.last.flatMap(NotifyReceiver.status(in:))?.hasPrefix("serving app tutorial: ") == true, "\(update)")

        daemon.signal(SIGTERM)
        let stopping = notify.receive(untilLine: "STOPPING=1")
        let first = try #require(stopping.last, "no STOPPING=1: \(daemon.logText)")
        #expect(NotifyReceiver.lines(of: first).contains("STOPPING=1"))
        #expect(NotifyReceiver.status(in: first)?.hasPrefix("shutting down (flowd received a signal and is exiting)") == true, "\(first)")
        #expect(daemon.waitForExit() == 0)
        // Nothing but status lines after STOPPING=1; never a second READY=1.
        var rest: [String] = []
        while let message = notify.receive(timeoutMilliseconds: 0) { rest.append(message) }
        #expect(rest.allSatisfy { NotifyReceiver.status(in: $0)?.hasPrefix("shutting down") == true && !$0.contains("READY=1") }, "\(rest)")
    }

    @Test func watchdogIsPingedFromTheLoopAtHalfTheInterval() throws {
        // An abstract address (`@name`), as NOTIFY_SOCKET may be.
        let notify = try NotifyReceiver(address: "@flowd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let daemon = try DaemonProcess(
            arguments: ["--app", "tutorial"], environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "200000"])
        // Every 100 ms: at least a few within a generous bound, however slow the machine.
        var pings = 0
        let deadline = Date().addingTimeInterval(20)
        while pings < 3, deadline.timeIntervalSinceNow > 0,
              let message = notify.receive(timeoutMilliseconds: Int32(deadline.timeIntervalSinceNow * 1000) + 1) {
            if NotifyReceiver.lines(of: message).contains("WATCHDOG=1") { pings += 1 }
        }
        #expect(pings >= 3, "\(daemon.logText)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: A bad hand-over is refused (exit 78)

    @Test func aRegularFileAtDescriptor3IsRefused() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = open(directory + "/not-a-socket", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(file) }
        let flowd = try startActivatedFlowd(socket: file, arguments: ["--app", "tutorial"])
        #expect(flowd.waitForExit() == 78)
        #expect(flowd.waitForLog(
            "flowd: descriptor 3, passed by the service manager (LISTEN_FDS), is a regular file, not a socket; it must pass one listening Unix stream socket"),
            "\(flowd.logText)")
    }

    @Test func aSocketThatIsNotAListeningUnixStreamSocketIsRefused() throws {
        let stream = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let inet = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { for fd in [stream, datagram, inet] { close(fd) } }
        for (fd, problem) in [(stream, "is a Unix stream socket that is not listening"), (datagram, "is a datagram (SOCK_DGRAM) socket"),
                              (inet, "is an AF_INET socket, not a Unix-domain (AF_UNIX) one")] {
            let flowd = try startActivatedFlowd(socket: fd, arguments: ["--app", "tutorial"])
            #expect(flowd.waitForExit() == 78)
            #expect(flowd.waitForLog("descriptor 3, passed by the service manager (LISTEN_FDS), \(problem)"), "\(flowd.logText)")
        }
    }

    @Test func twoPassedSocketsAreRefused() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = try listenOnUnixSocket(path: directory + "/a.sock")
        let b = try listenOnUnixSocket(path: directory + "/b.sock")
        defer { close(a); close(b) }
        let flowd = try startActivatedFlowd(
            socket: a, arguments: ["--app", "tutorial"], environment: ["LISTEN_FDNAMES": "a:b"], listenFDs: "2", extraDescriptors: [4: b])
        #expect(flowd.waitForExit() == 78)
        #expect(flowd.waitForLog(
            "the service manager passed 2 sockets (LISTEN_FDS=2, LISTEN_FDNAMES=a:b); flowd serves exactly one"), "\(flowd.logText)")
    }

    @Test func socketOptionNamingAnotherPathThanThePassedSocketIsRefused() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flowd.sock"
        let listening = try listenOnUnixSocket(path: path)
        defer { close(listening) }
        let flowd = try startActivatedFlowd(socket: listening, arguments: ["--socket", directory + "/other.sock", "--app", "tutorial"])
        #expect(flowd.waitForExit() == 78)
        #expect(flowd.waitForLog("the socket path asked for, \(directory)/other.sock (--socket), is not the socket the service manager passed, \(path)"),
                "\(flowd.logText)")
        // The same path, spelled relatively or not, is fine.
        let same = try startActivatedFlowd(socket: listening, arguments: ["--socket", path, "--app", "tutorial"])
        #expect(same.waitForLog("listening on \(path)"), "\(same.logText)")
        same.signal(SIGTERM)
        #expect(same.waitForExit() == 0)
    }

    @Test func listenFDsMeantForAnotherProcessAreIgnored() throws {
        // Inherited from a socket-activated parent that did not unset them: not ours, so flowd binds its own socket.
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"], environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"])
        #expect(daemon.logText.contains("LISTEN_FDS=1 is for pid 1, not this process"))
        let client = try RawClient(path: daemon.socketPath)
        try client.handshake()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))  // its own socket: removed
    }

    // MARK: Logs for the journal

    @Test func underTheJournalLinesCarryPrioritiesAndNoTimestamp() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let flowd = productsDirectory.appendingPathComponent("flowd").path
        // systemd sets JOURNAL_STREAM to the device and inode of the service's stderr; so does this shell.
        let process = try SpawnedProcess(
            executable: "/bin/sh",
            arguments: ["-c", "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec \"$0\" \"$@\"", flowd,
                        "--socket", directory + "/flowd.sock", "--app", "tutorial"],
            environment: ProcessInfo.processInfo.environment.merging(["LISTEN_FDS": "1", "LISTEN_PID": "1"]) { _, new in new })
        #expect(process.waitForLog("<6>listening on \(directory)/flowd.sock app=tutorial pid=\(process.pid)\n"), "\(process.logText)")
        process.signal(SIGTERM)
        #expect(process.waitForExit() == 0)
        #expect(process.waitForLogEnd())
        let lines = process.logText.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<5>LISTEN_FDS=1 is for pid 1") }, "a notice is <5>: \(lines)")
        #expect(lines.contains("<6>stopped"))
        #expect(lines.allSatisfy { $0.range(of: #"^<[0-7]>"#, options: .regularExpression) != nil }, "\(lines)")
        #expect(!process.logText.contains(" info flowd:"))
    }

    @Test func aJournalStreamOfAnotherFileKeepsTheUsualFormat() throws {
        // A shell started from a service inherits JOURNAL_STREAM, but its stderr is a terminal (here: a pipe).
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"], environment: ["JOURNAL_STREAM": "1:1"])
        #expect(daemon.logText.contains(" info flowd: "))
        #expect(!daemon.logText.contains("<6>"))
        // Stopped here, not left to `DaemonProcess`'s deinit: in a filtered run that deinit did not
        // always come, and the flowd outlived the tests.
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: The install script

    @Test func installServiceDryRunShowsTheUnitsAndTouchesNothing() throws {
        let home = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["XDG_CONFIG_HOME"] = nil
        let run = try ProductRun.run(
            executable: URL(fileURLWithPath: repositoryRoot + "/scripts/install-service"),
            ["--dry-run", "--prefix", "/opt/flowd-test", "--app", "tutorial"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("ExecStart=/opt/flowd-test/bin/flowd --app tutorial\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\(home)/.config/systemd/user/flowd.service"))
        #expect(run.stdout.contains("\(home)/.config/systemd/user/flowd.socket"))
        #expect(run.stdout.contains("ListenStream=%t/flowd/flowd.sock\n"))
        #expect(run.stdout.contains("Type=notify\n"))
        #expect(run.stdout.contains("systemctl --user daemon-reload && systemctl --user enable --now flowd.socket"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty, "a dry run wrote files")
    }

    @Test(.needs(systemdAnalyze))
    func theShippedUnitsPassSystemdAnalyzeVerify() throws {
        try Self.systemdAnalyze.require()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // As installed: ExecStart= names a flowd that exists.
        let flowd = productsDirectory.appendingPathComponent("flowd").path
        let service = try String(contentsOfFile: repositoryRoot + "/scripts/systemd/flowd.service", encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=%h/.local/bin/flowd", with: "ExecStart=\(flowd)")
        try service.write(toFile: directory + "/flowd.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/scripts/systemd/flowd.socket", toPath: directory + "/flowd.socket")
        let run = try ProductRun.run(
            executable: URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
            ["verify", directory + "/flowd.socket", directory + "/flowd.service"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }
}

extension NotifyReceiver {
    /// Notifications up to the first whose status satisfies `matches` (all of them if none did within `timeoutSeconds`).
    func receive(untilStatus matches: (String) -> Bool, timeoutSeconds: Double = 30) -> [String] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var messages: [String] = []
        while deadline.timeIntervalSinceNow > 0,
              let message = receive(timeoutMilliseconds: Int32(deadline.timeIntervalSinceNow * 1000) + 1) {
            messages.append(message)
            if let status = Self.status(in: message), matches(status) { break }
        }
        return messages
    }
}
