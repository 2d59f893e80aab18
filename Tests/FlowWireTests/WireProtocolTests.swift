import FlowWire
import Foundation
import Testing

@Suite struct WireProtocolTests {
    @Test func versionNegotiationPicksTheHighestCommonVersion() {
        #expect(WireProtocol.version == 1)
        #expect(WireProtocol.supportedVersions == 1...1)
        #expect(WireProtocol.negotiateVersion(clientMin: 1, clientMax: 1) == 1)
        #expect(WireProtocol.negotiateVersion(clientMin: 1, clientMax: 5) == 1)
        #expect(WireProtocol.negotiateVersion(clientMin: 2, clientMax: 3) == nil)
        #expect(WireProtocol.negotiateVersion(clientMin: 0, clientMax: 0) == nil)
        #expect(WireProtocol.negotiateVersion(clientMin: 3, clientMax: 1) == nil)
        #expect(WireProtocol.negotiateVersion(clientMin: 1, clientMax: 9, supported: 2...4) == 4)
        #expect(WireProtocol.negotiateVersion(clientMin: 1, clientMax: 3, supported: 2...4) == 3)
    }

    @Test func maxFrameSizeNegotiationTakesTheSmallerWithAFloor() {
        #expect(WireProtocol.negotiateMaxFrameSize(requested: 0) == 1 << 20)
        #expect(WireProtocol.negotiateMaxFrameSize(requested: 65536) == 65536)
        #expect(WireProtocol.negotiateMaxFrameSize(requested: 8 << 20) == 1 << 20)
        #expect(WireProtocol.negotiateMaxFrameSize(requested: 8 << 20, local: 4 << 20) == 4 << 20)
        #expect(WireProtocol.negotiateMaxFrameSize(requested: 10) == WireProtocol.minimumMaxFrameSize)
    }

    @Test func defaultSocketPath() {
        #expect(WireProtocol.defaultSocketPath(environment: [:], uid: 1000) == "/tmp/flowd-1000/flowd.sock")
        #expect(
            WireProtocol.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
                == "/run/user/1000/flowd/flowd.sock")
        #expect(
            WireProtocol.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], uid: 1000)
                == "/run/user/1000/flowd/flowd.sock")
        #expect(
            WireProtocol.defaultSocketPath(
                environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "FLOWD_SOCKET": "/x/y.sock"], uid: 1000)
                == "/x/y.sock")
        #expect(WireProtocol.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": ""], uid: 0) == "/tmp/flowd-0/flowd.sock")
    }

    @Test func bodyNames() {
        #expect(Flowd_V1_Envelope(.hello(.init())).bodyName == "Hello")
        #expect(Flowd_V1_Envelope(.placementChanged(.init())).bodyName == "PlacementChanged")
        #expect(Flowd_V1_Envelope().bodyName == "none")
        let envelope = Flowd_V1_Envelope(.ping(.init()), seq: 4, replyTo: 2)
        #expect(envelope.seq == 4 && envelope.replyTo == 2)
    }

    @Test func errorCodeFatality() {
        #expect(Flowd_V1_ErrorCode.malformedFrame.isFatal)
        #expect(Flowd_V1_ErrorCode.handshakeTimeout.isFatal)
        #expect(!Flowd_V1_ErrorCode.unknownSerial.isFatal)
        #expect(!Flowd_V1_ErrorCode.badPayload.isFatal)
        let error = Flowd_V1_Error(code: .unauthorized, message: "bad token")
        #expect(error.fatal)
        #expect(!Flowd_V1_Error(code: .unauthorized, message: "x", fatal: false).fatal)
    }

    // The JSON conventions docs/protocol.md promises other languages.
    enum TutorialOutput: Codable, Equatable { case didPressButton(index: Int), didPressSkip, selected(String) }
    struct TutorialState: Codable, Equatable { var title: String; var buttons: [String] }

    @Test func payloadJSONFollowsSwiftCodableSynthesis() throws {
        let press = try Flowd_V1_Payload.json(encoding: TutorialOutput.didPressButton(index: 0))
        #expect(press.contentType == "application/json")
        #expect(String(decoding: press.data, as: UTF8.self) == #"{"didPressButton":{"index":0}}"#)
        let skip = try Flowd_V1_Payload.json(encoding: TutorialOutput.didPressSkip)
        #expect(String(decoding: skip.data, as: UTF8.self) == #"{"didPressSkip":{}}"#)
        let state = try Flowd_V1_Payload.json(encoding: TutorialState(title: "Hi", buttons: ["Skip", "Next"]))
        #expect(String(decoding: state.data, as: UTF8.self) == #"{"buttons":["Skip","Next"],"title":"Hi"}"#)

        // What a client in another language writes decodes, key order and whitespace aside.
        let foreign = Flowd_V1_Payload.json(Data(#"{ "didPressButton" : { "index" : 2 } }"#.utf8))
        #expect(try foreign.decodeJSON(TutorialOutput.self) == .didPressButton(index: 2))
        #expect(try Flowd_V1_Payload.json(Data(#"{"didPressSkip":{}}"#.utf8)).decodeJSON(TutorialOutput.self) == .didPressSkip)
        let selected = try Flowd_V1_Payload.json(encoding: TutorialOutput.selected("x"))
        #expect(String(decoding: selected.data, as: UTF8.self) == #"{"selected":{"_0":"x"}}"#)

        // Extra keys inside a case's object are ignored; two case keys are refused.
        let extra = Flowd_V1_Payload.json(Data(#"{"didPressButton":{"index":1,"extra":true}}"#.utf8))
        #expect(try extra.decodeJSON(TutorialOutput.self) == .didPressButton(index: 1))
        let twoCases = Flowd_V1_Payload.json(Data(#"{"didPressSkip":{},"selected":{"_0":"x"}}"#.utf8))
        #expect(throws: DecodingError.self) { try twoCases.decodeJSON(TutorialOutput.self) }
        let missing = Flowd_V1_Payload.json(Data(#"{"didPressButton":{}}"#.utf8))
        #expect(throws: DecodingError.self) { try missing.decodeJSON(TutorialOutput.self) }
    }

    @Test func payloadContentTypes() {
        var payload = Flowd_V1_Payload()
        #expect(payload.isJSON)
        payload.contentType = "application/json; charset=utf-8"
        #expect(payload.isJSON)
        payload.contentType = "application/cbor"
        #expect(!payload.isJSON)
    }
}
