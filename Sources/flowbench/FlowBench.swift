import ArgumentParser

/// `flowbench`: measures flowd against a plain libuv baseline in one run.
@main
struct FlowBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowbench",
        abstract: "Measures flowd against a minimal C relay on libuv (the physical limit), and prints one table.",
        discussion: """
            Every process of a benchmark is this binary (hidden subcommands) or flowd. Progress goes to \
            stderr, the table to stdout. See docs/performance.md for what each number means.

            Examples:
              flowbench all --flowd .build/release/flowd
              flowbench all --quick
              flowbench baseline-echo --clients 256 --window 64
            """,
        subcommands: [
            All.self, BaselinePingPong.self, BaselineRelay.self, BaselineEcho.self, FlowdPing.self,
            IdleConnections.self, Startup.self,
            FlowdRelay.self, FlowdEcho.self, LiveScreens.self, TreeCost.self, SpawnStartup.self, JournalCommit.self,
            ScreenRestart.self, HungHost.self, Flood.self, Restore.self, History.self, DBusCall.self, SpawnPoolBench.self,
            ServerChild.self, PingPongChild.self, EchoPeerChild.self, LoadChild.self, IdleChild.self,
            FlowPingPongChild.self, FlowPeerChild.self, SpawnedChild.self, AckHostChild.self, LatencyLoadChild.self, FloodChild.self,
            DBusServerChild.self, DBusCallChild.self,
        ],
        defaultSubcommand: nil)
}
