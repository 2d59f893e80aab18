import ArgumentParser
import CBenchRelay

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench _latency-load`: N screen hosts (kinds `<prefix>0`...), each keeping a window of
/// outputs in flight, timing every output to the Update it causes. Prints `ready`, runs until a
/// line `phases bounds=T0,T1,...` (CLOCK_MONOTONIC nanoseconds) arrives on its standard input,
/// then prints one `result` line per phase [Ti, Ti+1) for the outputs sent in it.
struct LatencyLoadChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_latency-load", abstract: "Times outputs through flows at many hosts, by phase (internal).", shouldDisplay: false)

    @Option(help: "flowd's socket.")
    var socket: String

    @Option(help: "Connection i provides kind <prefix><i>.")
    var hostKindPrefix: String = "echo-"

    @Option(help: "Screen hosts.")
    var connections: Int = 16

    @Option(help: "Outputs in flight per host.")
    var window: Int = 1

    func run() throws {
        OS.raiseOpenFileLimit()
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        var handshakeSeconds = 0.0
        guard let load = cbr_load_open_hosts(socket, Int32(connections), hostKindPrefix, &handshakeSeconds, &error) else {
            throw BenchError(context: "latency hosts", cError: error)
        }
        defer { cbr_load_close(load) }
        ResultLine("ready", [("handshake", "\(handshakeSeconds)")]).emit()
        var samples: UnsafeMutablePointer<cbr_latency_sample>?
        var count = 0
        guard cbr_load_run_latency(load, 0, Int32(window), 0, &samples, &count, &error) == 0 else {
            throw BenchError(context: "latency hosts", cError: error)
        }
        defer { free(samples) }
        let all = UnsafeBufferPointer(start: samples, count: count)
        guard let text = readLine(), let line = ResultLine(parsing: text), line.tag == "phases",
              let bounds = line.fields.first(where: { $0.key == "bounds" })?.value.split(separator: ",").compactMap({ UInt64($0) }),
              bounds.count >= 2
        else {
            throw BenchError("latency hosts: expected 'phases bounds=T0,T1,...' on standard input")
        }
        for phase in 0..<(bounds.count - 1) {
            let range = bounds[phase]..<bounds[phase + 1]
            let inPhase = all.filter { range.contains($0.sent_ns) }
            let summary = LatencySummary(samplesNanoseconds: inPhase.map(\.latency_ns))
            var result = summary.resultLine
            result.fields += [
                (key: "phase", value: "\(phase)"),
                (key: "unanswered", value: "\(inPhase.filter { $0.answered == 0 }.count)"),
                (key: "seconds", value: "\(Double(range.upperBound - range.lowerBound) / 1e9)"),
                (key: "max_at", value: "\(Double((inPhase.max { $0.latency_ns < $1.latency_ns }?.sent_ns ?? range.lowerBound) - range.lowerBound) / 1e9)"),
            ]
            result.emit()
        }
    }
}
