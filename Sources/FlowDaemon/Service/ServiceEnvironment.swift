import Logging
import UVKit

#if canImport(Glibc)
import Glibc
#endif

/// What a service manager (systemd) handed the daemon when it started it: a listening socket
/// (`LISTEN_PID`/`LISTEN_FDS`/`LISTEN_FDNAMES`, the `sd_listen_fds` protocol), where to send
/// readiness and status (`NOTIFY_SOCKET`) and how often to ping its watchdog (`WATCHDOG_USEC`,
/// `WATCHDOG_PID`). Empty when flowd was started by hand. `take(requestedSocketPath:logger:)` reads
/// it and removes the variables, so the screen processes flowd spawns do not inherit them
/// (docs/service.md).
public struct ServiceEnvironment: Sendable {
    /// The descriptor `LISTEN_FDS` passed (always 3, the protocol's first), if it was meant for us.
    package var listenDescriptor: Int32?
    /// The socket's name from `LISTEN_FDNAMES` (systemd: the socket unit's name, or `FileDescriptorName=`).
    package var listenName: String?
    /// The passed socket, inspected (set by `take`).
    package var passedSocket: PassedSocket?
    /// Where notifications go: a path or `@name` (abstract); nil: nobody listens.
    package var notifySocket: String?
    /// The watchdog's interval, when the service manager wants pings from this process.
    package var watchdogMicroseconds: UInt64?
    /// Variables found and ignored, and why (logged by `take`).
    package var notes: [String] = []

    /// Nothing handed over: the daemon binds its own socket and notifies nobody.
    public init() {}

    /// The path of the socket the service manager passed (empty when it has no name), if it passed one.
    public var passedSocketPath: String? { passedSocket?.path }

    /// Whether the service manager listens for notifications.
    public var notifies: Bool { notifySocket != nil }

    /// The variables `take` reads and removes.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// Reads what the service manager handed over from the process environment, removes those variables
    /// (children must not take our socket or notify as us), and checks the passed socket: a listening
    /// Unix stream socket, made close-on-exec. `requestedSocketPath` is the path asked for explicitly
    /// (`--socket`), if any: a passed socket elsewhere is refused rather than silently preferred.
    /// Throws a `DaemonError` with exit code 78 when the hand-over is unusable; logs what it ignored.
    public static func take(requestedSocketPath: String?, logger: Logger) throws(DaemonError) -> ServiceEnvironment {
        var environment: [String: String] = [:]
        for name in variables {
            if let value = getenv(name) { environment[name] = String(cString: value) }
            unsetenv(name)
        }
        var service = try parse(environment, pid: getpid())
        for note in service.notes { logger.notice("\(note)") }
        if let descriptor = service.listenDescriptor {
            do {
                service.passedSocket = try PassedSocket.inspect(descriptor: descriptor)
            } catch {
                throw .listen(error)
            }
            if let requested = requestedSocketPath, let passed = service.passedSocket, !isSameSocket(requested, passed.path) {
                throw .serviceHandover(
                    "the socket path asked for, \(requested) (--socket), is not the socket the service manager passed, "
                        + "\(passed.path.isEmpty ? "an unnamed socket" : passed.path) (descriptor \(descriptor), LISTEN_FDS); "
                        + "drop --socket from the service's command line or make the socket unit's ListenStream= that path")
            }
        }
        return service
    }

    /// What `environment` hands over to process `pid`, the `sd_listen_fds` rules applied: `LISTEN_FDS` counts
    /// only when `LISTEN_PID` is our pid (otherwise the variables were inherited from a parent and are ignored,
    /// with a note); flowd serves exactly one socket. The passed descriptor is not inspected here.
    package static func parse(_ environment: [String: String], pid: Int32) throws(DaemonError) -> ServiceEnvironment {
        var service = ServiceEnvironment()
        if let fdsText = environment["LISTEN_FDS"] {
            guard let count = Int(fdsText), count >= 0 else {
                throw .serviceHandover(
                    "LISTEN_FDS=\"\(fdsText)\" is not a number of descriptors; a service manager passes e.g. LISTEN_FDS=1 "
                        + "(check the service's Environment= lines)")
            }
            switch environment["LISTEN_PID"].map({ ($0, Int32($0)) }) {
            case nil:
                service.notes.append("LISTEN_FDS=\(fdsText) without LISTEN_PID is not for this process; ignored")
            case (let pidText, nil)?:
                throw .serviceHandover("LISTEN_PID=\"\(pidText)\" is not a process id; a service manager sets it to the pid it starts")
            case (_, let listenPID?)? where listenPID != pid:
                service.notes.append(
                    "LISTEN_FDS=\(fdsText) is for pid \(listenPID), not this process (pid \(pid)): inherited from a parent; ignored")
            case _?:
                guard count <= 1 else {
                    let names = environment["LISTEN_FDNAMES"].map { ", LISTEN_FDNAMES=\($0)" } ?? ""
                    throw .serviceHandover(
                        "the service manager passed \(count) sockets (LISTEN_FDS=\(count)\(names)); flowd serves exactly one: "
                            + "give its socket unit a single ListenStream= line")
                }
                if count == 1 {
                    service.listenDescriptor = 3  // SD_LISTEN_FDS_START
                    let name = environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).first
                    service.listenName = name.flatMap { $0.isEmpty ? nil : String($0) }
                }
            }
        }
        if let address = environment["NOTIFY_SOCKET"], !address.isEmpty {
            if address.hasPrefix("/") || address.hasPrefix("@") {
                service.notifySocket = address
            } else {
                service.notes.append("NOTIFY_SOCKET=\(address) is neither a path nor an abstract socket (@name); not notifying")
            }
        }
        if let usecText = environment["WATCHDOG_USEC"], service.notifySocket != nil {
            let watchdogPID = environment["WATCHDOG_PID"]
            if let usec = UInt64(usecText), usec > 0 {
                if let watchdogPID, Int32(watchdogPID) != pid {
                    service.notes.append("WATCHDOG_PID=\(watchdogPID) is not this process (pid \(pid)): no watchdog pings")
                } else {
                    service.watchdogMicroseconds = usec
                }
            } else {
                service.notes.append("WATCHDOG_USEC=\"\(usecText)\" is not a positive number of microseconds: no watchdog pings")
            }
        }
        return service
    }

    /// Whether two socket paths name the same file: equal, or the same inode (a relative or symlinked spelling).
    private static func isSameSocket(_ requested: String, _ passed: String) -> Bool {
        if requested == passed { return true }
        var a = stat(), b = stat()
        guard !passed.isEmpty, stat(requested, &a) == 0, stat(passed, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
