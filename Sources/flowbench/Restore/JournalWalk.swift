import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowWire
import Foundation

/// A long session of app `deep-stack` written into a real journal by the daemon itself: the embedded
/// daemon (FlowDaemonTesting: flowd's core on fake connections) journals into the file while a host
/// walks the stack at random — button 0 pushes an item, the user's back pops the top and the host
/// acknowledges its `Dismiss` — so the journal holds exactly what `flowd --app deep-stack --state`
/// writes, one transaction per input with its placement check, and the tree stays bounded (at most
/// `maxDepth` screens) however long the session.
struct JournalWalk {
    /// The app the journal belongs to (`flowd --app`).
    static let appName = "deep-stack"
    /// The kind of its screens (what a host provides).
    static let kind = ItemScreen.kind
    /// The deepest the walk goes.
    static let maxDepth = 20

    /// The history's app (`flowd --app`).
    var app = Self.appName
    /// The kind of the screen a restore places first (what the waiting host provides).
    var kind = Self.kind
    /// Inputs in the history: a press is one, a back two (the navigation, then the dismissal the host
    /// acknowledged).
    let inputs: Int
    /// Inputs a restore replays: all of them, or those after the checkpoint of a compacted journal.
    var replayed: Int
    /// Screens on the stack at the end, all re-placed by a restore.
    let screens: Int
    /// The journal's size on disk (database and log), in bytes.
    let bytes: Int
    /// Seconds it took to write (or to check, when it was kept from an earlier run).
    let seconds: Double

    /// One step of the walk.
    enum Step {
        /// Button 0 on the top screen: one more item (one input).
        case push
        /// The user's back on the top screen, and the host's ack of its `Dismiss` (two inputs).
        case back
    }

    /// The steps of a walk of exactly `inputs` inputs: pushes and backs at random (from a fixed seed,
    /// the same in every run) between 1 and `maxDepth` screens.
    static func steps(inputs: Int) -> [Step] {
        var steps: [Step] = []
        var depth = 1
        var written = 0
        // xorshift64
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        while written < inputs {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            // A back needs two inputs and a screen above the root.
            if depth == 1 || written == inputs - 1 || (depth < maxDepth && random >> 63 == 0) {
                steps.append(.push)
                depth += 1
                written += 1
            } else {
                steps.append(.back)
                depth -= 1
                written += 2
            }
        }
        return steps
    }

    /// The walk of `inputs` inputs in the journal at `path`: the one there if it holds that many
    /// inputs (kept from an earlier run), else a new one written there.
    static func journal(inputs: Int, at path: String) throws -> JournalWalk {
        let steps = steps(inputs: inputs)
        let screens = steps.reduce(1) { $0 + ($1 == .push ? 1 : -1) }
        let started = Date()
        if !FileManager.default.fileExists(atPath: path) {
            try write(steps, to: path)
        }
        let journaled = try count(path)
        guard journaled == inputs else {
            throw BenchError("the journal \(path) holds \(journaled) inputs, expected \(inputs): remove it, or a press or a back no longer makes the inputs it did")
        }
        let bytes = ["", "-wal"].reduce(0) { sum, suffix in
            sum + (((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? Int) ?? 0)
        }
        return JournalWalk(inputs: inputs, replayed: inputs, screens: screens, bytes: bytes, seconds: Date().timeIntervalSince(started))
    }

    /// Runs `steps` on the embedded daemon journaling into the new file `path`.
    private static func write(_ steps: [Step], to path: String) throws {
        let daemon: EmbeddedDaemon
        do {
            // deep-stack's flow does not handle links: its journal is never compacted (docs/restore.md).
            daemon = try EmbeddedDaemon(app: try builtInApp(), statePath: path) {
                $0.exitWhenAppFinishes = false
                $0.compactAfterInputs = 0
            }
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("cannot journal into \(path): \(error)")
        }
        let host = daemon.connect()
        var stack = acknowledge(host.hello(role: .screenHost, name: "flowbench", provides: [kind]), on: host)
        guard stack.count == 1 else { throw BenchError("deep-stack placed \(stack.count) screens at start, expected 1") }
        for step in steps {
            switch step {
            case .push:
                var output = Flowd_V1_Output()
                output.screenID = stack[stack.count - 1]
                output.payload = FlowHost.pressPayload(0)
                host.send(.output(output))
                stack += acknowledge(host.readBodies(), on: host)
            case .back:
                var navigation = Flowd_V1_UserNavigation()
                navigation.screenID = stack.removeLast()
                navigation.action = .back(Flowd_V1_Back())
                host.send(.userNavigation(navigation))
                _ = acknowledge(host.readBodies(), on: host)
            }
        }
        let restoredInputs = daemon.daemon.stats().restoredInputs
        guard restoredInputs == 0 else { throw BenchError("\(path) was not a new journal: it restored \(restoredInputs) inputs") }
        // As kill -9 leaves it: what was committed stays. Closing the journal copies its log into the file.
        daemon.crash()
    }

    /// The app, as flowd runs it.
    private static func builtInApp() throws -> App {
        guard let app = BuiltInApps.named(appName) else { throw BenchError("flowd has no built-in app \(appName)") }
        return app
    }

    /// Acknowledges every screen command among `bodies`; returns the screens placed.
    static func acknowledge(_ bodies: [Flowd_V1_Envelope.OneOf_Body], on host: EmbeddedConnection) -> [UInt64] {
        var placed: [UInt64] = []
        for body in bodies {
            let command: (screen: UInt64, serial: UInt64)?
            switch body {
            case .place(let place): command = (place.screenID, place.serial); placed.append(place.screenID)
            case .update(let update): command = (update.screenID, update.serial)
            case .placementChanged(let change): command = (change.screenID, change.serial)
            case .dismiss(let dismiss): command = (dismiss.screenID, dismiss.serial)
            default: command = nil
            }
            if let command { host.ack(command.screen, serial: command.serial) }
        }
        return placed
    }

    /// The inputs the journal at `path` holds (not its other records: the times they were received).
    private static func count(_ path: String) throws -> Int {
        let app = try builtInApp()
        do {
            var inputs = 0
            try Journal(path: path, identity: .init(app: app.name, appVersion: app.version)).forEachRecord { record in
                if record.kind < 64 { inputs += 1 }
                return true
            }
            return inputs
        } catch {
            throw BenchError("cannot read back the journal \(path): \(error)")
        }
    }
}
