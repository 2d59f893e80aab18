import FlowKit
import FlowdTestSupport
import Foundation
import Testing

/// Inputs as the journal stores them: every case round-trips, and no body traps.
@Suite struct FlowInputCodingTests {
    static let screen = ScreenID(rawValue: 300)

    static let every: [FlowInput] = [
        .output(screen, payload: Data(#"{"didPressButton":{"index":1}}"#.utf8)),
        .output(ScreenID(rawValue: UInt64.max), payload: Data()),
        .userNavigation(.back(.begin), screen: screen), .userNavigation(.back(.cancel), screen: screen),
        .userNavigation(.back(.commit), screen: screen), .userNavigation(.selectTab(0), screen: screen),
        .userNavigation(.selectTab(1_000_000), screen: screen), .userNavigation(.closeModal, screen: screen),
        .dismissalCompleted(screen, .acknowledged), .dismissalCompleted(screen, .timedOut), .dismissalCompleted(screen, .hostLost),
        .screenLost(screen), .terminate(FlowID(rawValue: 7), animated: true), .terminate(FlowID(rawValue: 0), animated: false),
        .terminateAll(animated: false), .terminateAll(animated: true),
        .timerFired(RequestID(rawValue: 1)), .timerFired(RequestID(rawValue: UInt64.max)),
        .workSucceeded(RequestID(rawValue: 2), payload: Data(#"{"accepted":{}}"#.utf8)), .workSucceeded(RequestID(rawValue: 3), payload: Data()),
        .workFailed(RequestID(rawValue: 4), message: "the service is down — réessayez"), .workFailed(RequestID(rawValue: 5), message: ""),
        .timerStarted(RequestID(rawValue: 6), deadline: 1_700_000_002_000), .timerStarted(RequestID(rawValue: 7), deadline: UInt64.max),
        .openLink(link("students/Bob/age")), .openLink(link("directory/events/Party?x=1&from=a%20b")), .openLink(link("Zo%C3%AB")),
        .displaysChanged([]), .displaysChanged([Display(id: "main", name: "HDMI-A-1", width: 1920, height: 1080), Display(id: "customer — ü")]),
    ]

    static func link(_ text: String) -> Link {
        guard let link = try? Link(parsing: text) else { preconditionFailure("\(text) does not parse") }
        return link
    }

    @Test func everyInputRoundTrips() throws {
        for input in Self.every {
            let (kind, body) = input.encoded
            #expect(try FlowInput(kind: kind, body: body) == input)
        }
    }

    /// The inputs written into room of their size (outputs and work results, each tap and answer)
    /// are the bytes of `encodeBody(into:)`; the others have no size.
    @Test func aBodyWrittenIntoItsRoomIsTheSameBytes() {
        for input in Self.every {
            let body = input.encoded.body
            guard let size = input.knownBodySize else {
                switch input {
                case .output, .workSucceeded: Issue.record("\(input) has no direct body size")
                default: break
                }
                continue
            }
            #expect(size == body.count, "\(input)")
            var room = [UInt8](repeating: 0xEE, count: size)
            room.withUnsafeMutableBytes { input.encodeBody(to: $0) }
            #expect(room == body, "\(input)")
        }
    }

    @Test func theEncodingIsStable() {
        // The journal's schema: these bytes must decode the same in every later flowd.
        #expect(FlowInput.screenLost(Self.screen).encoded == (4, [0xAC, 0x02]))
        #expect(FlowInput.userNavigation(.back(.commit), screen: Self.screen).encoded == (2, [0xAC, 0x02, 0, 2]))
        // A button press applies like a finished gesture and is journaled as one.
        #expect(FlowInput.userNavigation(.back(.immediate), screen: Self.screen).encoded == (2, [0xAC, 0x02, 0, 2]))
        #expect(FlowInput.terminate(FlowID(rawValue: 7), animated: true).encoded == (5, [7, 1]))
        #expect(FlowInput.timerFired(RequestID(rawValue: 300)).encoded == (7, [0xAC, 0x02]))
        #expect(FlowInput.workSucceeded(RequestID(rawValue: 2), payload: Data("1".utf8)).encoded == (8, [2, 0x31]))
        #expect(FlowInput.workFailed(RequestID(rawValue: 2), message: "no").encoded == (9, [2, 0x6E, 0x6F]))
        #expect(FlowInput.timerStarted(RequestID(rawValue: 2), deadline: 300).encoded == (10, [2, 0xAC, 0x02]))
        #expect(FlowInput.openLink(Self.link("a/b%20c")).encoded == (11, Array("a/b%20c".utf8)))
        #expect(FlowInput.displaysChanged([Display(id: "c", name: "H", width: 300, height: 2)]).encoded == (12, [1, 1, 0x63, 1, 0x48, 0xAC, 0x02, 2]))
    }

    @Test func badBodiesAreErrorsNotTraps() {
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 99, body: []) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 4, body: []) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 4, body: [0x80]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 4, body: [1, 2]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 4, body: Array(repeating: 0xFF, count: 11)) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 3, body: [1, 9]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 6, body: [2]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 7, body: []) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 7, body: [1, 0]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 8, body: [0x80]) }
        #expect(throws: FlowInputDecodingError.self, "a message that is not UTF-8") { try FlowInput(kind: 9, body: [1, 0xC3]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 9, body: []) }
        #expect(throws: FlowInputDecodingError.self, "a deadline missing") { try FlowInput(kind: 10, body: [1]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 10, body: [1, 2, 3]) }
        #expect(throws: FlowInputDecodingError.self, "a display missing") { try FlowInput(kind: 12, body: [1]) }
        #expect(throws: FlowInputDecodingError.self, "a size missing") { try FlowInput(kind: 12, body: [1, 1, 0x63, 0]) }
        #expect(throws: FlowInputDecodingError.self, "an id longer than the body") { try FlowInput(kind: 12, body: [1, 9, 0x63, 0, 0, 0]) }
        #expect(throws: FlowInputDecodingError.self, "an id that is not UTF-8") { try FlowInput(kind: 12, body: [1, 1, 0xFF, 0, 0, 0]) }
        #expect(throws: FlowInputDecodingError.self, "bytes after the displays") { try FlowInput(kind: 12, body: [0, 0]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 13, body: []) }
        #expect(throws: FlowInputDecodingError.self, "a link that does not parse") { try FlowInput(kind: 11, body: [1]) }
        #expect(throws: FlowInputDecodingError.self, "an empty link") { try FlowInput(kind: 11, body: []) }
        #expect(throws: FlowInputDecodingError.self, "a link that is not UTF-8") { try FlowInput(kind: 11, body: [0x61, 0xFF]) }
        #expect(throws: FlowInputDecodingError.self) { try FlowInput(kind: 11, body: Array("a//b".utf8)) }
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<20_000 {
            let kind = Int64.random(in: 0...13, using: &generator)
            let body = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let input = try? FlowInput(kind: kind, body: body) {
                let (again, bytes) = input.encoded
                #expect(again == kind)
                // Re-encoding may shorten a varint written longer than needed; it decodes the same.
                #expect((try? FlowInput(kind: again, body: bytes)) == input)
            }
        }
        // Link bodies from link-like bytes: some parse, and those round-trip.
        let alphabet = Array("ab/?=&%2F ".utf8)
        var links = 0
        for _ in 0..<5_000 {
            let body = (0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            guard let input = try? FlowInput(kind: 11, body: body) else { continue }
            links += 1
            #expect((try? FlowInput(kind: 11, body: input.encoded.body)) == input)
        }
        #expect(links > 100)
    }
}
