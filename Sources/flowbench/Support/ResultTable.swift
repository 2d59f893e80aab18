import Foundation

/// One row of flowbench's table. Every cell is text with its unit; "-" when it does not apply.
struct TableRow {
    /// The benchmark's name, as its subcommand.
    var benchmark: String
    /// What was set up: server, clients, window.
    var setting: String
    /// Operations measured (round trips, replies, connections, runs).
    var count: String = "-"
    var p50: String = "-"
    var p99: String = "-"
    var p999: String = "-"
    /// Operations per second.
    var rate: String = "-"
    /// Server CPU time (user + system) per operation.
    var serverCPU: String = "-"
    /// Resident memory figure.
    var memory: String = "-"
    /// Ratios, targets and anything else worth a word.
    var note: String = ""
}

/// The one table `flowbench` prints: a Markdown table, aligned for the terminal.
struct ResultTable {
    /// The column titles, in order.
    static let headers = ["benchmark", "setting", "n", "p50", "p99", "p99.9", "rate", "server CPU/op", "memory", "note"]

    /// The rows so far.
    var rows: [TableRow] = []

    /// The table as Markdown with padded columns.
    var rendered: String {
        let cells = rows.map { row in
            [row.benchmark, row.setting, row.count, row.p50, row.p99, row.p999, row.rate, row.serverCPU, row.memory, row.note]
        }
        let widths = Self.headers.indices.map { column in
            ([Self.headers[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ values: [String]) -> String {
            "| " + values.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(Self.headers), rule] + cells.map(line)).joined(separator: "\n")
    }

    /// Prints the table to standard output.
    func print() {
        Swift.print(rendered)
    }
}

/// Formatting of the table's numbers.
enum Format {
    /// Nanoseconds as microseconds: `14.2 µs`.
    static func micros(_ nanoseconds: UInt64) -> String {
        micros(Double(nanoseconds))
    }

    /// Nanoseconds as microseconds: `14.2 µs`.
    static func micros(_ nanoseconds: Double) -> String {
        let us = nanoseconds / 1000
        return us >= 100 ? "\(Int(us.rounded())) µs" : "\(fixed(us, 1)) µs"
    }

    /// Seconds as milliseconds: `12.3 ms`.
    static func millis(_ seconds: Double) -> String {
        "\(fixed(seconds * 1000, 1)) ms"
    }

    /// A rate with a k/M suffix: `2.31 M/s`.
    static func rate(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return "\(fixed(perSecond / 1e6, 2)) M/s" }
        if perSecond >= 1e3 { return "\(fixed(perSecond / 1e3, 1)) k/s" }
        return "\(fixed(perSecond, 1)) /s"
    }

    /// Bytes with a unit: `1.9 KiB`, `312 B`, `48.1 MiB`.
    static func bytes(_ value: Double) -> String {
        if value.magnitude >= 1_048_576 { return "\(fixed(value / 1_048_576, 1)) MiB" }
        if value.magnitude >= 10 * 1024 { return "\(fixed(value / 1024, 1)) KiB" }
        return "\(Int(value.rounded())) B"
    }

    /// A count with thousands separators: `200,000`.
    static func count(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    /// `value` with `decimals` digits after the point.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "-" }
        return String(format: "%.\(decimals)f", value)
    }
}
