import CBenchRelay
import FlowControl
import FlowWire
import Foundation

/// `flowbench history`: the inspector's timeline on a long history — a daemon started on a journal of
/// `inputs` inputs of deep-stack (never compacted), asked for its history once (the scratch runtime
/// replays the whole journal, on the daemon's loop) and then for `steps` moments in a random order
/// (each a lookup), with the daemon's memory before and after (docs/performance.md, "history").
enum HistoryBench {
    static func rows(flowd: String, inputs: Int, steps: Int) throws -> [TableRow] {
        let directory = try OS.makeScratchDirectory()
        defer { OS.removeDirectory(directory) }
        let path = directory + "/history.journal"
        Report.progress("history, a journal of \(Format.count(UInt64(inputs))) inputs of \(JournalWalk.appName)")
        let walk = try JournalWalk.journal(inputs: inputs, at: path)
        let server = try ServerUnderTest.flowd(
            executable: flowd, app: JournalWalk.appName, arguments: ["--state", path, "--log-level", "notice"], waitForAccept: false)
        defer {
            server.process.signal(SIGKILL)
            server.process.waitForExit()
        }
        let context = "history of \(inputs) inputs"
        let client = try RestoreBench.debugClient(server, context: context)
        defer { client.close() }
        do {
            _ = try client.tree(timeoutMilliseconds: 60_000)
            let before = try OS.residentBytes(pid: server.pid)
            let cpuBefore = cbr_process_cpu_seconds(server.pid)
            // Meanwhile another client pings: the longest wait is how long the live app was held.
            let pinger = try RestoreBench.debugClient(server, context: context)
            defer { pinger.close() }
            let pinging = Pinger(client: pinger)
            pinging.start()
            let firstStart = cbr_now_ns()
            let count = try client.historyPage(limit: 1, timeoutMilliseconds: 600_000).count
            let first = Double(cbr_now_ns() - firstStart) / 1e9
            let (pings, longest) = pinging.stop()
            let firstCPU = cbr_process_cpu_seconds(server.pid) - cpuBefore
            guard count == UInt64(walk.replayed) else {
                throw BenchError("\(context): the history holds \(count) inputs, the journal \(walk.replayed)")
            }
            let after = try OS.residentBytes(pid: server.pid)
            let listStart = cbr_now_ns()
            let listed = try client.history(timeoutMilliseconds: 60_000).inputs.count
            let list = Double(cbr_now_ns() - listStart) / 1e9

            var random = SystemRandomNumberGenerator()
            var times: [Double] = []
            let cpuSteps = cbr_process_cpu_seconds(server.pid)
            for _ in 0..<steps {
                let index = UInt64.random(in: 0...count, using: &random)
                let start = cbr_now_ns()
                let moment = try client.moment(index)
                times.append(Double(cbr_now_ns() - start) / 1e9)
                guard moment.index == index else { throw BenchError("\(context): asked for moment \(index), got \(moment.index)") }
            }
            let stepCPU = (cbr_process_cpu_seconds(server.pid) - cpuSteps) / Double(max(steps, 1))
            times.sort()
            let perInput = Double(max(after - before, 0)) / Double(max(count, 1))
            return [TableRow(
                benchmark: "history",
                setting: "deep-stack: a step to a random moment of \(Format.count(count)) inputs",
                count: "\(steps) steps",
                p50: Format.millis(times[times.count / 2]), p99: Format.millis(times[min(times.count - 1, times.count * 99 / 100)]),
                serverCPU: Format.micros(stepCPU * 1e9),
                memory: "\(Format.bytes(perInput))/input",
                note: """
                    first question (replays the whole journal in slices) \(Format.millis(first)), CPU \(Format.millis(firstCPU)), \
                    meanwhile \(pings) pings answered, the longest in \(Format.millis(longest)); \
                    the \(listed) inputs listed in \(Format.millis(list)); daemon RSS \(Format.bytes(Double(before))) -> \(Format.bytes(Double(after))); \
                    target: a step <= 50 ms
                    """)]
        } catch let error as BenchError {
            throw error
        } catch {
            throw BenchError("\(context): \(error)")
        }
    }
}

/// Pings flowd on its own connection and thread until stopped, keeping the longest round trip.
private final class Pinger: @unchecked Sendable {  // `stopping` and the results are read after `done`
    private let client: FlowClient
    private let done = DispatchSemaphore(value: 0)
    private var stopping = false
    private let lock = NSLock()
    private var count = 0
    private var longest = 0.0

    init(client: FlowClient) { self.client = client }

    func start() {
        Thread { [self] in
            while !lock.withLock({ stopping }) {
                let start = cbr_now_ns()
                guard (try? client.barrier(timeoutMilliseconds: 60_000)) != nil else { break }
                let seconds = Double(cbr_now_ns() - start) / 1e9
                lock.withLock {
                    count += 1
                    longest = max(longest, seconds)
                }
            }
            done.signal()
        }.start()
    }

    func stop() -> (Int, Double) {
        lock.withLock { stopping = true }
        done.wait()
        return lock.withLock { (count, longest) }
    }
}
