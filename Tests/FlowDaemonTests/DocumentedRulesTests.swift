import DemoApps
import FlowDaemonTesting
import FlowKit
import FlowWire
import Foundation
import Testing

/// Rules docs/protocol.md states that no other test showed: each test fails without the behaviour.
@Suite struct DocumentedRulesTests {
    typealias Body = Flowd_V1_Envelope.OneOf_Body

    static func errors(_ bodies: [Body]) -> [Flowd_V1_Error] {
        bodies.compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    static func dismisses(_ bodies: [Body]) -> [Flowd_V1_Dismiss] {
        bodies.compactMap { if case .dismiss(let dismiss) = $0 { dismiss } else { nil } }
    }

    /// §8: a late output for a screen being dismissed is dropped without an error; once its Dismiss
    /// is acknowledged the screen is forgotten, and an output for it is a non-fatal UNKNOWN_SCREEN.
    @Test func aLateOutputIsDroppedQuietlyAndAForgottenScreenIsUnknown() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let item = try #require(PayloadRulesTests.places(answer).first).screenID
        EmbeddedDaemonTests.ackAll(answer, on: host)
        EmbeddedDaemonTests.press(2, on: item, from: host)  // Finish: the app's one screen is dismissed
        let dismiss = try #require(Self.dismisses(host.readBodies()).first)
        #expect(dismiss.screenID == item)
        let before = daemon.daemon.stats()
        EmbeddedDaemonTests.press(0, on: item, from: host)  // a tap that crossed the Dismiss
        let late = host.readBodies()
        #expect(Self.errors(late).isEmpty, "dropped without an error: \(late)")
        #expect(daemon.daemon.stats().screens == before.screens && daemon.daemon.stats().flows == before.flows, "nothing changed")
        host.ack(item, serial: dismiss.serial)
        EmbeddedDaemonTests.press(0, on: item, from: host)
        let forgotten = try #require(Self.errors(host.readBodies()).first)
        #expect(forgotten.code == .unknownScreen && !forgotten.fatal && forgotten.screenID == item, "\(forgotten)")
    }

    /// §19: a host that said goodbye (`Shutdown`) left for good: its token is refused.
    @Test func theTokenOfAHostThatSaidGoodbyeIsRefused() throws {
        let daemon = try EmbeddedDaemonTests.deepStack { $0.exitWhenAppFinishes = false }
        let (host, answer) = EmbeddedDaemonTests.host(daemon)
        let token = try #require(answer.compactMap { if case .welcome(let welcome) = $0 { welcome.resumeToken } else { nil } }.first)
        #expect(!token.isEmpty)
        EmbeddedDaemonTests.ackAll(answer, on: host)
        _ = host.send(.shutdown(Flowd_V1_Shutdown()))
        daemon.run()
        let refused = daemon.connect().hello(role: .screenHost, provides: ["item"], resumeToken: token)
        let error = try #require(Self.errors(refused).first, "expected RESUME_REFUSED, got \(refused)")
        #expect(error.code == .resumeRefused && error.fatal)
        #expect(error.message.contains("left for good"), "\(error.message)")
    }

    /// §21: a link holds at most 16 query items; the 17th is refused as too long, and nothing opens.
    @Test func aLinkOfSeventeenQueryItemsIsTooLong() throws {
        let sixteen = (1...16).map { "q\($0)=\($0)" }.joined(separator: "&")
        #expect(try Link(parsing: "students/Bob?" + sixteen).query.count == 16)
        do {
            _ = try Link(parsing: "students/Bob?" + sixteen + "&q17=17")
            Issue.record("17 query items parsed")
        } catch {
            #expect(error.code == .tooLong && error.message.contains("16"), "\(error.message)")
        }
        let daemon = try EmbeddedDaemonTests.app("launcher")
        let embedded = EmbeddedDaemon(app: daemon.withAllScreens(.attached, kinds: BuiltInApps.kinds))
        let debug = embedded.connect()
        _ = debug.hello(role: .debug)
        guard case .error(let refused)? = OpenLinkTests.open("students/Bob?" + sixteen + "&q17=17", from: debug) else {
            Issue.record("expected BAD_LINK")
            return
        }
        #expect(refused.code == .badLink && !refused.fatal, "\(refused.message)")
    }
}
