@testable import FlowDaemon
import Testing

/// The `sd_listen_fds` rules and the notify/watchdog variables, on a dictionary and a pid (no process state).
@Suite struct ServiceEnvironmentTests {
    let pid: Int32 = 4242

    func refusal(_ environment: [String: String]) throws -> DaemonError {
        try #require(throws: DaemonError.self) { try ServiceEnvironment.parse(environment, pid: pid) }
    }

    @Test func nothingHandedOverByHand() throws {
        let service = try ServiceEnvironment.parse([:], pid: pid)
        #expect(service.listenDescriptor == nil)
        #expect(service.notifySocket == nil)
        #expect(service.watchdogMicroseconds == nil)
        #expect(service.notes.isEmpty)
    }

    @Test func oneSocketForUsIsDescriptor3WithItsName() throws {
        let service = try ServiceEnvironment.parse(["LISTEN_FDS": "1", "LISTEN_PID": "4242", "LISTEN_FDNAMES": "flowd.socket"], pid: pid)
        #expect(service.listenDescriptor == 3)
        #expect(service.listenName == "flowd.socket")
        let unnamed = try ServiceEnvironment.parse(["LISTEN_FDS": "1", "LISTEN_PID": "4242"], pid: pid)
        #expect(unnamed.listenDescriptor == 3)
        #expect(unnamed.listenName == nil)
        #expect(try ServiceEnvironment.parse(["LISTEN_FDS": "0", "LISTEN_PID": "4242"], pid: pid).listenDescriptor == nil)
    }

    @Test func socketsForAnotherProcessAreIgnoredWithANote() throws {
        let inherited = try ServiceEnvironment.parse(["LISTEN_FDS": "1", "LISTEN_PID": "17"], pid: pid)
        #expect(inherited.listenDescriptor == nil)
        #expect(inherited.notes == ["LISTEN_FDS=1 is for pid 17, not this process (pid 4242): inherited from a parent; ignored"])
        let noPID = try ServiceEnvironment.parse(["LISTEN_FDS": "1"], pid: pid)
        #expect(noPID.listenDescriptor == nil)
        #expect(noPID.notes == ["LISTEN_FDS=1 without LISTEN_PID is not for this process; ignored"])
    }

    @Test func anythingButOneSocketOrGarbageIsRefusedWithExitCode78() throws {
        let two = try refusal(["LISTEN_FDS": "2", "LISTEN_PID": "4242", "LISTEN_FDNAMES": "a:b"])
        #expect(two.exitCode == 78)
        #expect(two.isServiceHandoverUnusable)
        #expect(two.description == "the service manager passed 2 sockets (LISTEN_FDS=2, LISTEN_FDNAMES=a:b); flowd serves exactly one: give its socket unit a single ListenStream= line")
        #expect(try refusal(["LISTEN_FDS": "one", "LISTEN_PID": "4242"]).description.hasPrefix("LISTEN_FDS=\"one\" is not a number of descriptors"))
        #expect(try refusal(["LISTEN_FDS": "-1", "LISTEN_PID": "4242"]).exitCode == 78)
        #expect(try refusal(["LISTEN_FDS": "1", "LISTEN_PID": "me"]).description.hasPrefix("LISTEN_PID=\"me\" is not a process id"))
    }

    @Test func notifySocketIsAPathOrAnAbstractName() throws {
        #expect(try ServiceEnvironment.parse(["NOTIFY_SOCKET": "/run/user/1000/systemd/notify"], pid: pid).notifySocket == "/run/user/1000/systemd/notify")
        #expect(try ServiceEnvironment.parse(["NOTIFY_SOCKET": "@/org/freedesktop/systemd1/notify"], pid: pid).notifySocket == "@/org/freedesktop/systemd1/notify")
        let vsock = try ServiceEnvironment.parse(["NOTIFY_SOCKET": "vsock:2:1234"], pid: pid)
        #expect(vsock.notifySocket == nil)
        #expect(vsock.notes == ["NOTIFY_SOCKET=vsock:2:1234 is neither a path nor an abstract socket (@name); not notifying"])
        #expect(try ServiceEnvironment.parse(["NOTIFY_SOCKET": ""], pid: pid).notifies == false)
    }

    @Test func watchdogOnlyWhenMeantForUsAndSomeoneListens() throws {
        let notify = ["NOTIFY_SOCKET": "/run/notify"]
        #expect(try ServiceEnvironment.parse(notify.merging(["WATCHDOG_USEC": "200000"]) { $1 }, pid: pid).watchdogMicroseconds == 200_000)
        #expect(try ServiceEnvironment.parse(notify.merging(["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "4242"]) { $1 }, pid: pid)
            .watchdogMicroseconds == 200_000)
        let other = try ServiceEnvironment.parse(notify.merging(["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]) { $1 }, pid: pid)
        #expect(other.watchdogMicroseconds == nil)
        #expect(other.notes == ["WATCHDOG_PID=1 is not this process (pid 4242): no watchdog pings"])
        let zero = try ServiceEnvironment.parse(notify.merging(["WATCHDOG_USEC": "0"]) { $1 }, pid: pid)
        #expect(zero.watchdogMicroseconds == nil)
        #expect(zero.notes.count == 1)
        // Nobody to ping.
        #expect(try ServiceEnvironment.parse(["WATCHDOG_USEC": "200000"], pid: pid).watchdogMicroseconds == nil)
    }
}
