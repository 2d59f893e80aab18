import ArgumentParser

/// `flowbench dbus-call`: round trips of a D-Bus method call through a private dbus-daemon (sd-bus).
struct DBusCall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbus-call",
        abstract: "Round-trip latency of a D-Bus method call A -> dbus-daemon -> B -> dbus-daemon -> A (sd-bus, 64 bytes).")

    @OptionGroup var options: BenchOptions

    func run() throws {
        Report.progress("dbus-call")
        let (row, _) = try Benchmarks.dbusCall(settings: options.settings)
        Report.emit([row], quick: options.quick)
    }
}
