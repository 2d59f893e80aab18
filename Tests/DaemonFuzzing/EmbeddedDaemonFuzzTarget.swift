import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowKit
import FlowWire
import FlowWireFuzzing
import Foundation
import Synchronization

/// Fuzz target: the whole daemon core (embedded: connection state machines, screen delivery, the
/// runtime, the event bus, deadlines, shutdown) fed an arbitrary program of frames and events from
/// several fake connections — two screen hosts and a debug client, which may hang up and come back.
///
/// The input is read as a program: the first byte picks the app, then each byte is an operation
/// whose arguments are the bytes that follow (raw bytes, well-formed outputs, acks, navigation,
/// debug requests, time, hang-ups, resumes with the last token, and — for the spawned app — screen
/// processes that join, crash or exit and are restarted by their policy). The daemon journals into a
/// file of the execution's own, and an operation kills it — between loop iterations, or after it
/// read an input and before the iteration's commit — and starts a new one on the journal, which must
/// restore what was committed; the peers reconnect and the program goes on (deterministic
/// simulation: a restore bug replays from its input). After every operation the runtime and the
/// delivery must agree (`Daemon.invariantViolations()`); at the end a shutdown with cooperative
/// hosts must reach `stopped` and leave nothing (`EmbeddedDaemon.finish()`). Any trap is a finding too.
package enum EmbeddedDaemonFuzzTarget {
    /// The apps a program can run (none that spawn processes or push 999 screens at once).
    static let apps = ["tutorial", "modal", "leave-in-place", "mirror", "mirror-spawned"]

    /// The app called `name`; `-spawned`: every screen spawned with a tight restart policy.
    static func app(_ name: String) -> App? {
        guard name.hasSuffix("-spawned") else { return BuiltInApps.named(name) }
        guard let app = BuiltInApps.named(String(name.dropLast("-spawned".count))) else { return nil }
        return app.withAllScreens(.spawn(executable: "fuzz-screen", restart: .restart(maxRestarts: 2, withinMilliseconds: 300)),
                                  kinds: app.kinds)
    }

    /// What a fresh start of each app shows, read from the first program's daemon.
    private static let freshStarts = Mutex<[String: Committed]>([:])

    /// What a fresh start of app `name` shows: `daemon`'s, which has just started on an empty journal.
    private static func freshStart(of name: String, _ daemon: EmbeddedDaemon) throws(FuzzViolation) -> Committed {
        if let known = freshStarts.withLock({ $0[name] }) { return known }
        let fresh = try Committed(daemon, fresh: nil)
        freshStarts.withLock { $0[name] = fresh }
        return fresh
    }

    /// What one program did.
    package struct Summary {
        /// Operations run.
        package var operations = 0
        /// Restores from the journal (operation 28).
        package var restores = 0

        package init() {}
    }

    /// Runs one input; throws what did not hold.
    @discardableResult
    package static func run(_ input: UnsafeRawBufferPointer) throws(FuzzViolation) -> Summary {
        var program = Program(bytes: Array(input))
        var summary = Summary()
        let first = Int(program.next() ?? 0)
        guard let name = apps[safe: first % apps.count], let app = app(name) else { return summary }
        // The journal compacts after 1 to 7 inputs (0: never), so checkpoints land between the crashes;
        // from the same byte's other bits, so that the corpus's programs keep their meaning.
        let compactAfter = (first / apps.count) % 8
        // Every kind the app shows (`App.kinds`: its factories' and its modules'), offered by both hosts.
        let kinds = app.kinds
        let folder = try ScratchFolder()
        defer { folder.remove() }
        var daemon: EmbeddedDaemon
        do {
            daemon = try EmbeddedDaemon(app: app, statePath: folder.journalPath) {
                $0.ackTimeoutMilliseconds = 200
                $0.handshakeTimeoutMilliseconds = 100
                $0.shutdownGraceMilliseconds = 100
                $0.writeQueueLimit = 64 << 10
                $0.exitWhenAppFinishes = false
                $0.resumeGraceMilliseconds = 300
                $0.hangTimeoutMilliseconds = 100
                $0.compactAfterInputs = compactAfter
            }
        } catch {
            throw FuzzViolation("the daemon did not start on an empty journal: \(error)")
        }
        // What a restore shows once the app ended (its journal cleared): a fresh start, the same
        // for every program of the app (read once: building the tree is a fifth of a short program).
        let fresh = try freshStart(of: name, daemon)
        var peers = [Peer(daemon.connect()), Peer(daemon.connect()), Peer(daemon.connect())]
        var historyChecked = false
        /// The spawned processes' ends, by pid.
        var spawned: [Int32: Peer] = [:]
        func liveChild(_ byte: UInt8) -> EmbeddedChild? {
            let live = daemon.children.filter { !$0.hasExited }
            return live.isEmpty ? nil : live[Int(byte) % live.count]
        }
        /// Kills the daemon, restores a new one that must show `committed`, and reconnects the peers.
        func crashAndRestore(expecting committed: Committed, variant: UInt8) throws(FuzzViolation) {
            // The crashed daemon's connections and children go with it.
            spawned.removeAll()
            let (restored, shown) = try restore(daemon, expecting: committed)
            daemon = restored
            summary.restores += 1
            peers = try reconnect(peers, to: daemon, kinds: kinds, presentingOldTokens: variant & 1 != 0, screens: shown)
        }
        while let op = program.next() {
            summary.operations += 1
            let index = Int(op >> 5) % peers.count
            switch op & 0x1F {
            case 0...3:
                let role: Flowd_V1_Role = index == 2 ? .debug : .screenHost
                peers[index].welcomed(peers[index].connection.hello(role: role, name: "fuzz-\(index)", provides: index == 2 ? [] : kinds),
                                      as: role)
            case 4...9:
                peers[index].sendOutput(program.next() ?? 0)
            case 10...13:
                peers[index].ackSome(program.next() ?? 0)
            case 14, 15:
                peers[index].navigate(program.next() ?? 0)
            case 16:
                peers[index].connection.sendBytes(program.take(Int(program.next() ?? 0) % 24))
            case 17:
                // A well-framed envelope of arbitrary bytes.
                let body = program.take(Int(program.next() ?? 0) % 40)
                var frame: [UInt8] = []
                let length = UInt32(body.count)
                frame += [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
                peers[index].connection.sendBytes(frame + body)
            case 18, 19:
                peers[2].debug(program.next() ?? 0, screens: peers.flatMap(\.screens))
            case 20, 21:
                daemon.advanceTime(by: UInt64(program.next() ?? 0) * 2)
            case 22:
                peers[index].connection.hangUp()
                peers[index] = Peer(daemon.connect())
            case 23:
                peers[index].connection.reads.toggle()
                daemon.run()
            case 24:
                // The host drops and comes back with its last token (or a stale one).
                let token = peers[index].resumeToken
                peers[index].connection.hangUp()
                peers[index] = Peer(daemon.connect())
                peers[index].welcomed(peers[index].connection.hello(role: .screenHost, name: "fuzz-\(index)", provides: kinds, resumeToken: token),
                                      as: .screenHost)
            case 25:
                // A spawned process joins (or, once joined, acts): hello, then acks and an output.
                guard let child = liveChild(program.next() ?? 0) else { break }
                if spawned[child.pid] == nil {
                    spawned[child.pid] = Peer(child.connection)
                    _ = child.connection.hello(role: .screenHost, name: "fuzz-child", token: child.token)
                }
                spawned[child.pid]?.read()
                spawned[child.pid]?.ackSome(0xFF)
                spawned[child.pid]?.sendOutput(program.next() ?? 0)
            case 26:
                liveChild(program.next() ?? 0)?.crash()
            case 27:
                guard let child = liveChild(program.next() ?? 0) else { break }
                child.connection.hangUp()
                child.exit()
            case 28:
                // The daemon is killed and a new one restores from the journal. Bit 1 of the argument:
                // killed between two loop iterations (everything it did is committed), or after it
                // read an output (the next byte) and applied it, before the iteration's commit and
                // frames (the restore shows the state before the output). Bit 0: the hosts first
                // try to resume with their old tokens.
                let variant = program.next() ?? 0
                var committed = try Committed(daemon, fresh: fresh)
                // Between two iterations, the history's last moment is that committed state too: checked
                // at a program's first such crash (the timeline replays the whole journal each time: at
                // every crash it halved the executions a second).
                if variant & 2 == 0, !historyChecked {
                    historyChecked = true
                    try Self.checkHistory(daemon, committed: committed)
                }
                if variant & 2 != 0 {
                    if let body = peers[index].output(program.next() ?? 0) { peers[index].connection.write([body]) }
                    // An output that ended the app cleared the journal at once: a fresh start.
                    if daemon.daemon.appOutcome != nil { committed = try Committed(daemon, fresh: fresh) }
                }
                try crashAndRestore(expecting: committed, variant: variant)
            default:
                peers[index].read()
            }
            // Every operation let the daemon run until it had nothing left to do: read what it wrote.
            for i in peers.indices { peers[i].read(settle: false) }
            for pid in spawned.keys { spawned[pid]?.read(settle: false) }
            let problems = daemon.daemon.invariantViolations()
            if !problems.isEmpty { throw FuzzViolation("after op \(op) (\(program.position) bytes read): \(problems)") }
        }
        // Wind down with cooperative hosts: everything must go.
        daemon.shutdown()
        for _ in 0..<4 {
            for i in peers.indices {
                peers[i].connection.reads = true
                peers[i].read()
                peers[i].ackSome(0xFF)
            }
            for pid in spawned.keys {
                spawned[pid]?.read()
                spawned[pid]?.ackSome(0xFF)
            }
            // Processes the daemon retired or killed go.
            for child in daemon.children where !child.hasExited && (child.retiredBecause != nil || child.wasKilled) { child.exit() }
            daemon.advanceTime(by: 250)
        }
        for peer in peers { peer.connection.hangUp() }
        for child in daemon.children where !child.hasExited {
            child.connection.hangUp()
            child.exit()
        }
        daemon.advanceTime(by: 250)
        let left = daemon.finish()
        guard daemon.phase == .stopped, left.isClean else {
            throw FuzzViolation("after shutdown the daemon is \(daemon.phase) and \(left)")
        }
        return summary
    }
}

/// The input, read byte by byte.
struct Program {
    let bytes: [UInt8]
    private(set) var position = 0

    /// The next byte, nil at the end.
    mutating func next() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// Up to `count` next bytes.
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
}

/// One fake peer and what it has seen: the screens placed on it and the serials to ack.
struct Peer {
    let connection: EmbeddedConnection
    /// Screens placed on this peer, oldest first, with the last serial received.
    private(set) var serials: [(screen: UInt64, serial: UInt64)] = []

    /// The resume token of its last `Welcome`.
    private(set) var resumeToken = ""
    /// The role a `Welcome` accepted (nil: no handshake finished).
    private(set) var role: Flowd_V1_Role?

    init(_ connection: EmbeddedConnection) { self.connection = connection }

    /// Remembers the role and the token a handshake's `Welcome` gave, and the screens placed with it.
    mutating func welcomed(_ answer: [Flowd_V1_Envelope.OneOf_Body], as role: Flowd_V1_Role) {
        for body in answer {
            if case .welcome(let welcome) = body {
                self.role = role
                if !welcome.resumeToken.isEmpty { resumeToken = welcome.resumeToken }
            }
            if case .place(let m) = body { record(m.screenID, m.serial) }
        }
    }

    var screens: [UInt64] { serials.map(\.screen) }

    /// Reads what the daemon wrote and remembers screens and serials; `settle` false when the daemon
    /// has nothing left to run (`EmbeddedConnection.readBodies(settle:)`).
    mutating func read(settle: Bool = true) {
        for body in connection.readBodies(settle: settle) {
            switch body {
            case .place(let m): record(m.screenID, m.serial)
            case .update(let m): record(m.screenID, m.serial)
            case .placementChanged(let m): record(m.screenID, m.serial)
            case .dismiss(let m): record(m.screenID, m.serial)
            default: break
            }
        }
    }

    private mutating func record(_ screen: UInt64, _ serial: UInt64) {
        if let i = serials.firstIndex(where: { $0.screen == screen }) { serials[i].serial = serial } else { serials.append((screen, serial)) }
    }

    /// Acks the screens the mask selects (bit i: the i-th screen), some with a wrong serial.
    mutating func ackSome(_ mask: UInt8) {
        for (i, entry) in serials.enumerated() where i < 8 && mask & (1 << i) != 0 {
            connection.ack(entry.screen, serial: mask == 0x7F ? entry.serial + 1 : entry.serial)
        }
    }

    /// Sends an output of one of the demo's card screens (a button press or text).
    func sendOutput(_ byte: UInt8) {
        if let body = output(byte) { connection.send(body) }
    }

    /// An output of one of the screens placed on it (nil: none is).
    func output(_ byte: UInt8) -> Flowd_V1_Envelope.OneOf_Body? {
        guard !serials.isEmpty else { return nil }
        let choice = Int(byte)
        var output = Flowd_V1_Output()
        output.screenID = serials[choice % serials.count].screen
        let json = choice & 0x80 != 0 ? #"{"didEnterText":{"text":"x"}}"# : #"{"didPressButton":{"index":\#(choice % 4)}}"#
        output.payload = .json(Data(json.utf8))
        return .output(output)
    }

    /// Back (each phase), close modal or select tab on one of its screens.
    func navigate(_ byte: UInt8) {
        guard !serials.isEmpty else { return }
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = serials[Int(byte >> 3) % serials.count].screen
        var back = Flowd_V1_Back()
        var close = Flowd_V1_CloseModal()
        var tab = Flowd_V1_SelectTab()
        switch byte & 7 {
        case 0, 1, 2, 3:
            back.phase = Flowd_V1_NavigationPhase(rawValue: Int(byte & 3)) ?? .immediate
            navigation.action = .back(back)
        case 4, 5:
            close.phase = byte & 1 == 0 ? .immediate : .commit
            navigation.action = .closeModal(close)
        default:
            tab.index = UInt32(byte >> 6)
            navigation.action = .selectTab(tab)
        }
        connection.send(.userNavigation(navigation))
    }

    /// A debug request: tree, stats, subscribe, inject an output, inject navigation, terminate a flow.
    func debug(_ byte: UInt8, screens: [UInt64]) {
        switch byte % 6 {
        case 0: connection.send(.getTree(Flowd_V1_GetTree()))
        case 1: connection.send(.getStats(Flowd_V1_GetStats()))
        case 2:
            var subscribe = Flowd_V1_Subscribe()
            subscribe.payloads = byte & 0x80 != 0
            connection.send(.subscribe(subscribe))
        case 3:
            var inject = Flowd_V1_InjectOutput()
            inject.screenID = screens.isEmpty ? UInt64(byte) : screens[Int(byte >> 3) % screens.count]
            inject.payload = .json(Data(#"{"didPressButton":{"index":\#(byte % 3)}}"#.utf8))
            connection.send(.injectOutput(inject))
        case 4:
            var terminate = Flowd_V1_TerminateFlow()
            terminate.flowID = UInt64(byte >> 3) % 6
            terminate.animated = byte & 0x80 != 0
            connection.send(.terminateFlow(terminate))
        default:
            var inject = Flowd_V1_InjectNavigation()
            var navigation = Flowd_V1_UserNavigation()
            navigation.screenID = screens.isEmpty ? 1 : screens[Int(byte >> 3) % screens.count]
            navigation.action = .back(Flowd_V1_Back())
            inject.navigation = navigation
            connection.send(.injectNavigation(inject))
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
