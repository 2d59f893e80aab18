import ArgumentParser
import FlowControl
import FlowWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `flowctl ping`: checks that the daemon answers.
struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that flowd is running and answering.",
        discussion: """
            Examples:
              flowctl ping
              flowctl ping --socket /tmp/f/flowd.sock --count 3
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "How many pings to send.")
    var count: Int = 1

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1, got \(count)") }
    }

    func run() throws {
        let client = connection.connect()
        defer { client.close() }
        for nonce in 1...count {
            var ping = Flowd_V1_Ping()
            ping.nonce = UInt64(nonce)
            let started = ContinuousClock.now
            do {
                _ = try client.request(.ping(ping), timeoutMilliseconds: Int32(connection.timeout * 1000))
            } catch {
                fail(error)
            }
            let elapsed = ContinuousClock.now - started
            let micros = elapsed.components.attoseconds / 1_000_000_000_000 + elapsed.components.seconds * 1_000_000
            print("pong from \(client.welcome.server) at \(client.path) (app \(client.welcome.app)): \(micros) µs")
        }
    }
}

/// `flowctl stats`: the daemon's counters.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's counters (flows, screens, connections, processes, descriptors).",
        discussion: """
            Examples:
              flowctl stats
              flowctl stats --json | jq .connections
            """)

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    func run() throws {
        let client = connection.connect()
        defer { client.close() }
        let reply: Flowd_V1_Envelope
        do {
            reply = try client.request(.getStats(Flowd_V1_GetStats()), timeoutMilliseconds: Int32(connection.timeout * 1000))
        } catch {
            fail(error)
        }
        guard case .stats(let stats) = reply.body else { fail(.unexpected("expected Stats, got \(reply.body?.name ?? "nothing")")) }
        if json {
            print((try? stats.jsonString()) ?? "{}")
        } else {
            print("""
                flows             \(stats.flows)
                screens           \(stats.screens)
                connections       \(stats.connections)
                child processes   \(stats.childProcesses)
                open descriptors  \(stats.openDescriptors)
                libuv handles     \(stats.libuvHandles)
                pending acks      \(stats.pendingAcks)
                screens held      \(stats.screensHeld)
                screen restarts   \(stats.screenRestarts)
                restarts given up \(stats.restartsGivenUp)
                hosts resumed     \(stats.hostsResumed)
                resumes expired   \(stats.resumesExpired)
                hosts hung        \(stats.hostsHung)
                journaled inputs  \(stats.journaledInputs)
                restored inputs   \(stats.restoredInputs)
                journal pending   \(stats.journalPending)\(stats.journalPending > 0 ? "  (the last journal write failed; flowd retries every second)" : "")
                journal bytes     \(stats.journalBytes)
                journal inputs    \(stats.journalInputs)
                checkpoints       \(stats.journalCheckpoints)\(stats.journalCheckpointsRefused > 0 ? "  (\(stats.journalCheckpointsRefused) refused, the last: \(stats.lastCheckpointRefusal))" : "")
                unknown kinds     \(stats.unknownKindsOffered)
                without host      \(stats.screensWithoutHost)
                refused commands  \(stats.commandsRefused)
                pooled ready      \(stats.pooledReady)
                pooled starting   \(stats.pooledStarting)
                pool hits         \(stats.poolHits)
                pool misses       \(stats.poolMisses)
                unchanged updates \(stats.unchangedUpdates)
                """)
            // Only when it happened: the place a journal this version could not replay was at, opened again.
            if !stats.placeCarriedOver.isEmpty { print("place carried over \(stats.placeCarriedOver)") }
            if !stats.carriedOver.isEmpty { print("carried over      \(stats.carriedOver)") }
            // The previous version's journal, kept in the one archive slot until the next upgrade.
            if !stats.journalArchive.isEmpty { print("journal archive   \(stats.journalArchive)") }
            // Flows that cannot name their places: while they run the journal keeps its whole history.
            if !stats.flowsNotHandlingLinks.isEmpty {
                print("not handling links \(stats.flowsNotHandlingLinks.joined(separator: ", "))  (the journal keeps its whole history while they run; make them LinkHandling)")
            }
        }
    }
}
