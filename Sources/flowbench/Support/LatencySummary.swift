import Histogram

/// Round-trip percentiles of one latency run, in nanoseconds (HdrHistogram, 3 significant digits).
struct LatencySummary {
    /// Round trips measured (after the warm-up).
    var count: UInt64
    /// Median round trip.
    var p50: UInt64
    /// 99th percentile.
    var p99: UInt64
    /// 99.9th percentile.
    var p999: UInt64
    /// Largest round trip.
    var max: UInt64

    /// Summarises raw samples through an HdrHistogram.
    init(samplesNanoseconds samples: [UInt64]) {
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        for sample in samples {
            _ = histogram.record(Swift.min(Swift.max(sample, 1), 60_000_000_000))
        }
        count = histogram.totalCount
        p50 = histogram.valueAtPercentile(50)
        p99 = histogram.valueAtPercentile(99)
        p999 = histogram.valueAtPercentile(99.9)
        max = histogram.max
    }

    /// Reads a summary a child printed.
    init(_ line: ResultLine) throws {
        count = UInt64(try line.double("count"))
        p50 = UInt64(try line.double("p50"))
        p99 = UInt64(try line.double("p99"))
        p999 = UInt64(try line.double("p999"))
        max = UInt64(try line.double("max"))
    }

    /// The line a child prints for its parent.
    var resultLine: ResultLine {
        ResultLine("result", [("count", "\(count)"), ("p50", "\(p50)"), ("p99", "\(p99)"), ("p999", "\(p999)"), ("max", "\(max)")])
    }
}
