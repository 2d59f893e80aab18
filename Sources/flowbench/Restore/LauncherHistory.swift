import DemoApps
import FlowApp
import FlowDaemon
import FlowDaemonTesting
import FlowJournal
import FlowWire
import Foundation

/// A launcher that ran for months: the demo launcher's journal after `inputs` inputs of sub-apps
/// opened and closed from its menu, written by the daemon itself (the embedded daemon, flowd's core
/// on fake connections) with compaction at its default. Each round opens the student editor, edits a
/// student's age, walks back to the list and to the menu (the launcher's status line and the
/// students' ages change every round); the walk ends at the menu, with as many inputs after the last
/// checkpoint as a journal holds before the next (the slowest restore). What the journal holds
/// depends on what is open, not on the rounds: a checkpoint and at most `--compact-after` inputs.
enum LauncherHistory {
    static let app = "launcher"

    /// The inputs of one round, as the host presses them on the visible screen.
    private enum Step {
        case press(Int)
        case enter(String)
    }

    /// The round: Student editor, a student, Edit age, an age, Done, Back to list, Back to menu.
    private static func round(_ index: Int) -> [Step] {
        [.press(4), .press(index % 2), .press(0), .enter("\(20 + index % 60)"), .press(0), .press(1), .press(2)]
    }

    /// The history of at least `inputs` inputs in the journal at `path`: the one there when its
    /// sidecar (`PATH.inputs`) says it holds that many, else a new one written there.
    static func journal(inputs: Int, at path: String) throws -> JournalWalk {
        let started = Date()
        let sidecar = path + ".inputs"
        var history = (try? String(contentsOfFile: sidecar, encoding: .utf8)).flatMap { Int($0) } ?? 0
        if history < inputs || !FileManager.default.fileExists(atPath: path) {
            for file in [path, sidecar, path + ".lock"] { unlink(file) }
            history = try write(inputs: inputs, to: path)
            try "\(history)".write(toFile: sidecar, atomically: true, encoding: .utf8)
        }
        let replayed = try replayedInputs(path)
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        return JournalWalk(app: app, kind: MenuScreen.kind, inputs: history, replayed: replayed, screens: 1, bytes: bytes,
                           seconds: Date().timeIntervalSince(started))
    }

    /// Runs rounds on the embedded daemon journaling into the new file `path` until `inputs` inputs
    /// were journaled; returns how many were.
    private static func write(inputs: Int, to path: String) throws -> Int {
        guard let app = BuiltInApps.named(app)?.withAllScreens(.attached, kinds: BuiltInApps.kinds) else {
            throw BenchError("flowd has no built-in app \(app)")
        }
        let daemon: EmbeddedDaemon
        do {
            daemon = try EmbeddedDaemon(app: app, statePath: path) { $0.exitWhenAppFinishes = false }
        } catch {
            throw BenchError("cannot journal into \(path): \(error)")
        }
        let host = daemon.connect()
        var visible = JournalWalk.acknowledge(host.hello(role: .screenHost, name: "flowbench", provides: BuiltInApps.kinds), on: host).last
        var index = 0
        var journaled = 0
        // Past `inputs`, on to the most inputs a journal holds after its checkpoint (a round short of
        // the next compaction): the slowest restore of that history, not a lucky one.
        let fullest = DaemonConfiguration.Defaults.compactAfterInputs - 2 * round(0).count
        var held = 0
        while journaled < inputs || held < fullest {
            for step in round(index) {
                guard let screen = visible else { throw BenchError("the launcher shows no screen in round \(index)") }
                var output = Flowd_V1_Output()
                output.screenID = screen
                switch step {
                case .press(let button): output.payload = FlowHost.pressPayload(button)
                case .enter(let text):
                    output.payload.contentType = CardOutput.payloadContentType
                    output.payload.data = try CardOutput.didEnterText(text: text).binaryPayload()
                }
                host.send(.output(output))
                _ = JournalWalk.acknowledge(host.readBodies(), on: host)
                visible = daemon.daemon.visibleScreen?.rawValue
            }
            index += 1
            if index % 1024 == 0 || journaled >= inputs {
                let stats = daemon.daemon.stats()
                (journaled, held) = (Int(stats.journaledInputs), Int(stats.journalInputs))
            }
        }
        journaled = Int(daemon.daemon.stats().journaledInputs)
        let stats = daemon.daemon.stats()
        guard stats.journalCheckpointsRefused == 0 else {
            throw BenchError("the launcher's journal was not compacted \(stats.journalCheckpointsRefused) times: \(stats.lastCheckpointRefusal)")
        }
        daemon.crash()
        return journaled
    }

    /// The inputs the journal at `path` replays (records below the place's kind).
    private static func replayedInputs(_ path: String) throws -> Int {
        guard let app = BuiltInApps.named(app) else { throw BenchError("flowd has no built-in app \(app)") }
        do {
            var count = 0
            try Journal(path: path, identity: .init(app: app.name, appVersion: app.version)).forEachRecord { record in
                if record.kind < 64 { count += 1 }
                return true
            }
            return count
        } catch {
            throw BenchError("cannot read back the journal \(path): \(error)")
        }
    }
}
