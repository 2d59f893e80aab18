import ArgumentParser
import CBenchRelay

/// `flowbench _dbus-server`: process B of the D-Bus row; owns org.flowd.Bench on the bus and
/// answers Echo(ay) with its argument (sd-bus, C), until the broker goes away or SIGTERM.
struct DBusServerChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_dbus-server", abstract: "Serves Echo on a D-Bus bus (internal).", shouldDisplay: false)

    @Option(help: "The bus's D-Bus address (unix:path=...).")
    var address: String

    func run() throws {
        var error = [CChar](repeating: 0, count: Int(CBR_ERROR_SIZE))
        guard cbr_dbus_serve(address, 1, &error) == 0 else {
            throw BenchError(context: "D-Bus server (process B)", cError: error)
        }
    }
}
