import ArgumentParser

/// `flowbench tree-cost`: FlowKit's time per operation as the tree grows (in process, no sockets).
struct TreeCost: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree-cost",
        abstract: "Time per push, pop, update, output and dismissal at 10^3..10^6 nodes, and per screen when unwinding stacks.",
        discussion: "Runs FlowKit's FlowRuntime in this process with a transport that sends nothing.")

    @OptionGroup var options: BenchOptions

    @Option(help: "Tree sizes in screens, comma-separated (default 1000,10000,100000,1000000; --quick: 1000,10000).")
    var sizes: String?

    func run() throws {
        let settings = options.settings
        let sizes = try sizes.map { try BenchOptions.positiveIntegers($0, option: "--sizes") } ?? settings.treeSizes
        Report.emit(try Self.rows(sizes: sizes, depths: settings.unwindDepths, operations: settings.treeOperations), quick: options.quick)
    }

    /// One row per operation kind and one for unwinding.
    static func rows(sizes: [Int], depths: [Int], operations: Int) throws -> [TableRow] {
        var perSize: [[String: Double]] = []
        for size in sizes {
            Report.progress("tree-cost, \(Format.count(UInt64(size))) screens")
            perSize.append(try TreeCostRunner.measure(size: size, operations: operations))
        }
        var rows = TreeCostRunner.operations.map { name in
            var row = row("tree-cost", "\(name), \(operations) ops", sizes, perSize.map { $0[name] ?? 0 }, unit: "at", opsName: "ops")
            row.note += "; median per operation, mean at the largest \(Format.fixed(perSize.last?[name + " mean"] ?? 0, 0)) ns"
            return row
        }
        Report.progress("tree-cost, unwinding stacks \(depths.map(String.init).joined(separator: ", ")) deep")
        let unwinds = try depths.map { try TreeCostRunner.unwind(depth: $0) }
        rows.append(row("tree-cost", "unwind a stack, per dismissed screen", depths, unwinds, unit: "stack depth", opsName: "screens"))
        return rows
    }

    private static func row(_ name: String, _ setting: String, _ sizes: [Int], _ nanos: [Double], unit: String, opsName: String) -> TableRow {
        let cells = zip(sizes, nanos).map { "\(power(of: $0)): \(Format.fixed($1, 0)) ns" }
        let ratio = (nanos.last ?? 0) / max(nanos.first ?? 1, 1e-9)
        let flat = ratio <= 2 ? "flat" : "NOT flat"
        return TableRow(
            benchmark: name, setting: setting, count: "\(sizes.count) sizes",
            p50: "\(Format.fixed(nanos.last ?? 0, 0)) ns", rate: Format.rate(1e9 / max(nanos.last ?? 1, 1e-9)),
            note: "\(unit) \(cells.joined(separator: ", ")); x\(Format.fixed(ratio, 2)) largest/smallest (\(flat))")
    }

    /// `10^3` for 1000, else the number.
    private static func power(of value: Int) -> String {
        var exponent = 0, rest = value
        while rest >= 10, rest % 10 == 0 { rest /= 10; exponent += 1 }
        return rest == 1 && exponent >= 2 ? "10^\(exponent)" : Format.count(UInt64(value))
    }
}
