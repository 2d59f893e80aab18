import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The demo walk-through with every screen in its own spawned demo-screens
/// process (`scripts/demo --headless --spawned`): the processes follow the
/// script in order through a shared progress file; killed ones are restarted
/// by flowd (`scripts/kill-screens` is the same with more kills).
@Suite("spawned demo walk")
struct SpawnedWalkTests {
    static let walkPath = demoWalkthroughPath

    @Test func everyScreenSpawnedTheWalkReachesEveryResult() throws {
        #expect(try walk(kills: 0) == 0)
    }

    /// The walk stays the same when screen processes are SIGKILLed at random moments.
    @Test(arguments: [UInt64(12), 34])
    func screenProcessesKilledDuringTheWalkAreRestarted(seed: UInt64) throws {
        #expect(try walk(kills: 5, seed: seed, flowdArguments: ["--restart-screens", "10/10"]) == 5, "seed \(seed)")
    }

    /// Runs the spawned walk, SIGKILLing `kills` random live screen processes, each after a random
    /// number of steps done and a random few milliseconds; checks what every walk must reach.
    /// Returns the kills done.
    private func walk(kills: Int, seed: UInt64 = 0, flowdArguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let progress = directory + "/progress"
        let steps = try String(contentsOfFile: Self.walkPath, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().filter { $0.element.hasPrefix("on ") }.map { $0.offset + 1 }
        // A long spawn grace: a slow machine must not turn a late exit into SIGTERM.
        let daemon = try DaemonProcess(
            arguments: ["--app", "launcher", "--spawn-screens", "demo-screens", "--spawn-grace", "30",
                        "--screen-env", "DEMO_SCREENS_SCRIPT,DEMO_SCREENS_PROGRESS"] + flowdArguments,
            environment: ["DEMO_SCREENS_SCRIPT": Self.walkPath, "DEMO_SCREENS_PROGRESS": progress], directory: directory)

        var generator = SeededGenerator(seed: seed)
        // Not in the last steps: the walk must not end before the last kill.
        let moments = (0..<kills).map { _ in Int.random(in: 0..<(steps.count - 5), using: &generator) }.sorted()
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "screen-killer")
        var killed = 0
        for stepsDone in moments {
            // Paces the killer on the walk (the walk never waits for it); a walk stuck for a minute fails.
            let deadline = ContinuousClock.now + .seconds(60)
            while daemon.process.isRunning, Self.done(in: progress).count < stepsDone {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the walk did not reach step \(stepsDone) in 60 s", sourceLocation: sourceLocation)
                    return killed
                }
                usleep(2_000)
            }
            usleep(UInt32.random(in: 0...20_000, using: &generator))
            if Self.killOne(of: daemon, debug, progress: progress, using: &generator) { killed += 1 }
        }

        #expect(daemon.waitForExit(timeoutSeconds: 60) == 0, "the walk ends with Quit: flowd exits 0 on its own", sourceLocation: sourceLocation)
        let log = daemon.logText
        #expect(log.contains("app launcher finished with Login: logged in as ann (dismiss animated)"), "\(log)", sourceLocation: sourceLocation)
        #expect(!log.contains("screen lost"), "\(log)", sourceLocation: sourceLocation)
        if killed > 0 {
            #expect(log.contains("screen process crashed; restarting it"), "the kills hit shown screens: \(log)", sourceLocation: sourceLocation)
        }
        #expect(!log.contains("demo-screens: "), "no screen process failed: \(log)", sourceLocation: sourceLocation)
        // Every step done, each `on menu body "..." expect` included: the launcher showed every result.
        #expect(Self.done(in: progress) == Set(steps), "\((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "")", sourceLocation: sourceLocation)
        let deadline = ContinuousClock.now + .seconds(5)
        while !Self.processes(of: progress).isEmpty, ContinuousClock.now < deadline { usleep(10_000) }
        #expect(Self.processes(of: progress).isEmpty, "every screen process exited", sourceLocation: sourceLocation)
        return killed
    }
}

extension SpawnedWalkTests {
    /// SIGKILLs a random live screen process of the walk (retrying while none is connected); false if none.
    private static func killOne(of daemon: DaemonProcess, _ debug: RawClient, progress: String, using generator: inout SeededGenerator) -> Bool {
        for _ in 0..<100 {
            guard daemon.process.isRunning, let tree = try? debug.tree() else { return false }
            let ours = processes(of: progress)
            let candidates = tree.connections.filter { $0.spawned && ours.contains($0.pid) }.map(\.pid).sorted()
            if let pid = candidates.randomElement(using: &generator), kill(pid, SIGKILL) == 0 { return true }
            usleep(10_000)
        }
        return false
    }

    /// The lines the walk's processes recorded done.
    private static func done(in progress: String) -> Set<Int> {
        let text = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").compactMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil })
    }

    /// The live demo-screens processes of this walk: their environment names its progress file (flowd's
    /// does too, but its executable is not demo-screens). A scan of /proc.
    private static func processes(of progress: String) -> Set<Int32> {
        let marker = Array("DEMO_SCREENS_PROGRESS=\(progress)".utf8)
        var found: Set<Int32> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                  let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  let executable = command.split(separator: 0).first,
                  String(decoding: executable, as: UTF8.self).hasSuffix("/demo-screens"),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { continue }
            if environment.split(separator: 0).contains(where: { Array($0) == marker }) { found.insert(pid) }
        }
        return found
    }
}
