import DemoApps
import FlowDaemon
import FlowDaemonTesting
import FlowWire
import Foundation
import Testing

/// `OpenLink` on the embedded daemon (docs/protocol.md §21): typed errors that change nothing.
@Suite("OpenLink")
struct OpenLinkTests {
    static func open(_ link: String, from connection: EmbeddedConnection) -> Flowd_V1_Envelope.OneOf_Body? {
        var request = Flowd_V1_OpenLink()
        request.link = link
        connection.send(.openLink(request))
        return connection.readBodies().last
    }

    @Test(arguments: [
        ("", Flowd_V1_ErrorCode.badLink), ("a//b", .badLink), ("bad%zz", .badLink), ("sp ace", .badLink),
        (String(repeating: "x/", count: 5_000), .badLink), ("no-such-place", .linkRefused),
    ])
    func aBadLinkIsATypedErrorAndChangesNothing(link: String, code: Flowd_V1_ErrorCode) throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        let before = daemon.daemon.tree()
        let debug = daemon.connect()
        _ = debug.hello(role: .debug)
        guard case .error(let error)? = Self.open(link, from: debug) else {
            Issue.record("expected an Error for \(link.prefix(40))")
            return
        }
        #expect(error.code == code, "\(link.prefix(40)): \(error.message)")
        #expect(!error.fatal, "the connection stays open")
        #expect(!error.message.isEmpty)
        #expect(daemon.daemon.tree().rootFlow == before.rootFlow && daemon.daemon.tree().window == before.window, "nothing changed")
        #expect(host.readBodies().isEmpty, "the host was told nothing")
        // The same connection goes on.
        #expect(Self.open("", from: debug) != nil)
    }

    @Test func aScreenHostMayOpenLinks() throws {
        let daemon = try EmbeddedDaemonTests.deepStack()
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        guard case .error(let error)? = Self.open("item", from: host) else {
            Issue.record("expected an Error")
            return
        }
        #expect(error.code == .linkRefused && error.message.contains("handles links"), "deep-stack handles no links: \(error.message)")
    }
}
