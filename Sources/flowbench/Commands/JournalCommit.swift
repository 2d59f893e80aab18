import ArgumentParser
import FlowJournal
import FlowKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `flowbench journal-commit`: what journaling costs the daemon's loop — one frame appended to the
/// log per loop iteration, holding that iteration's inputs (docs/journal.md).
struct JournalCommit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-commit",
        abstract: "Time and CPU of one journal commit (a loop iteration's inputs) at 1, 16 and 256 inputs.",
        discussion: """
            Appends typical outputs (a button press as JSON) to a fresh journal in a scratch directory, one frame \
            per commit, with the log flushed to the disk on a background thread every 1000 commits (as the daemon does); \
            each size twice: written with pwritev, and copied into the mapped end of the file (the daemon's way, \
            docs/journal.md "A commit is a memory copy").
            """)

    @OptionGroup var options: BenchOptions

    @Option(help: "Transactions per batch size (default 2000; --quick: 200).")
    var transactions: Int?

    func run() throws {
        let count = transactions ?? (options.quick ? 200 : 2_000)
        guard count >= 10 else { throw ValidationError("--transactions must be at least 10, got \(count)") }
        var rows: [TableRow] = []
        for batch in [1, 16, 256] {
            for mapped in [false, true] {
                Report.progress("journal-commit, \(count) transactions of \(batch) inputs\(mapped ? ", mapped" : "")")
                rows.append(try Self.measure(batch: batch, transactions: count, mapped: mapped))
            }
        }
        Report.emit(rows, quick: options.quick)
    }

    static func measure(batch: Int, transactions: Int, mapped: Bool) throws -> TableRow {
        let directory = try OS.makeScratchDirectory()
        defer { OS.removeDirectory(directory) }
        let journal = try Journal(path: directory + "/bench.journal", identity: .init(app: "bench", appVersion: "1"), mapsAhead: mapped)
        let flushes = DispatchQueue(label: "flowbench.journal.sync")
        var flushCount = 0
        let records = (0..<batch).map { index in
            let input = FlowInput.output(ScreenID(rawValue: UInt64(1_000 + index)), payload: Data(#"{"didPressButton":{"index":1}}"#.utf8))
            let (kind, body) = input.encoded
            return Journal.Record(kind: kind, body: body)
        }
        var nanos: [UInt64] = []
        nanos.reserveCapacity(transactions)
        let cpuBefore = Self.cpuNanos()
        for index in 0..<transactions {
            let start = DispatchTime.now().uptimeNanoseconds
            try journal.append(records)
            nanos.append(DispatchTime.now().uptimeNanoseconds - start)
            if index % 1_000 == 999, let sync = journal.syncRequest() {
                flushes.async { sync.run() }
                flushCount += 1
            }
        }
        flushes.sync {}
        let cpu = Double(Self.cpuNanos() - cpuBefore) / Double(transactions)
        nanos.sort()
        func percentile(_ p: Double) -> UInt64 { nanos[min(nanos.count - 1, Int(Double(nanos.count) * p))] }
        let perInput = Double(percentile(0.5)) / Double(batch)
        return TableRow(
            benchmark: "journal-commit",
            setting: "\(batch) inputs per commit, one frame \(mapped ? "copied into the mapped file" : "written (pwritev)"), flushes off the writer",
            count: Format.count(UInt64(transactions)), p50: Format.micros(percentile(0.5)), p99: Format.micros(percentile(0.99)),
            p999: Format.micros(percentile(0.999)), rate: Format.rate(1e9 / max(Double(percentile(0.5)), 1)),
            serverCPU: "\(Format.fixed(cpu / 1000, 1)) µs",
            note: "per input at p50: \(Format.fixed(perInput / 1000, 2)) µs; max \(Format.micros(nanos.last ?? 0)); \(flushCount) background flushes; CPU: both threads, per commit")
    }

    /// This process's CPU time (user + system), in nanoseconds.
    static func cpuNanos() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1_000
        let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1_000
        return user + system
    }
}
