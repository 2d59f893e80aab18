import Foundation

/// `flowbench flowd-relay --json`: the relay's ratios on one line a script reads (docs/performance.md,
/// "Targets"), so nobody divides CPU figures by hand.
struct RelayRatios {
    let baseline: Benchmarks.RelayBaseline
    let journaled: Benchmarks.RelayBaseline
    let unjournaled: Benchmarks.RelayBaseline
    let dbus: DBusPeer

    /// Microseconds of a latency in nanoseconds (`signed`: the bits of a difference that may be below 0).
    private static func micros(_ nanoseconds: UInt64, signed: Bool = false) -> Double {
        (signed ? Double(Int64(bitPattern: nanoseconds)) : Double(nanoseconds)) / 1_000
    }

    /// `part` against `whole`, rounded to 3 decimals (nil without a measure).
    private static func ratio(_ part: Double?, _ whole: Double?) -> Double? {
        guard let part, let whole, whole > 0 else { return nil }
        return (part / whole * 1_000).rounded() / 1_000
    }

    private static func run(_ run: Benchmarks.RelayBaseline, against baseline: Benchmarks.RelayBaseline) -> [String: Any] {
        var fields: [String: Any] = [
            "p50_us": micros(run.latency.p50), "p99_us": micros(run.latency.p99), "p999_us": micros(run.latency.p999),
        ]
        if let cpu = run.serverCPU { fields["cpu_us"] = (cpu / 10).rounded() / 100 }
        fields["p50_ratio"] = ratio(Double(run.latency.p50), Double(baseline.latency.p50))
        fields["p99_ratio"] = ratio(Double(run.latency.p99), Double(baseline.latency.p99))
        fields["cpu_ratio"] = ratio(run.serverCPU, baseline.serverCPU)
        return fields.compactMapValues { $0 }
    }

    var object: [String: Any] {
        var object: [String: Any] = [
            "benchmark": "flowd-relay",
            "baseline_relay": Self.run(baseline, against: baseline).filter { !$0.key.hasSuffix("_ratio") },
            "journal": Self.run(journaled, against: baseline),
            "no_state": Self.run(unjournaled, against: baseline),
            "cpus": OS.allowedCPUs,
            "load": OS.loadAverage,
        ]
        // The journal's own cost: journaling against --no-state, the same run.
        var cost: [String: Any] = [
            "p50_us": Self.micros(journaled.latency.p50 &- unjournaled.latency.p50, signed: true),
            "p99_us": Self.micros(journaled.latency.p99 &- unjournaled.latency.p99, signed: true),
        ]
        if let with = journaled.serverCPU, let without = unjournaled.serverCPU { cost["cpu_us"] = ((with - without) / 10).rounded() / 100 }
        object["journal_cost"] = cost
        let met = [("p50_ratio", 1.25), ("p99_ratio", 1.5), ("cpu_ratio", 2.0)].allSatisfy { name, bound in
            ((object["journal"] as? [String: Any])?[name] as? Double).map { $0 <= bound } ?? false
        }
        object["targets_met"] = met
        switch dbus {
        case .measured(let call):
            object["dbus_call"] = [
                "p50_us": Self.micros(call.p50), "p99_us": Self.micros(call.p99),
                "flowd_p50_ratio": Self.ratio(Double(journaled.latency.p50), Double(call.p50)) ?? 0,
                "flowd_p99_ratio": Self.ratio(Double(journaled.latency.p99), Double(call.p99)) ?? 0,
            ]
        case .unavailable(let reason):
            object["dbus_call"] = ["unavailable": reason]
        }
        return object
    }

    /// The object as one line of JSON, keys sorted.
    var jsonLine: String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
