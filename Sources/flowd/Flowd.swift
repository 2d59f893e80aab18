import DemoApps
import FlowdCommand

/// `flowd`: the whole command line (FlowdCommand) over the built-in apps, the demo launcher first.
@main
enum Flowd {
    static func main() {
        FlowdCommand.main(name: "flowd", apps: BuiltInApps.all)
    }
}
