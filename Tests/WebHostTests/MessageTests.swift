import FlowKit
import Foundation
import Testing

@testable import WebBridge

@Suite("The pages' messages: parsed into requests, or refused with a reason")
struct MessageTests {
    @Test("every screen-page message parses")
    func tabRequests() throws {
        #expect(try TabRequest.parse(#"{"type":"press","screen":4,"index":1}"#) == .press(screen: 4, index: 1))
        #expect(try TabRequest.parse(#"{"type":"text","screen":4,"text":"Ann"}"#) == .text(screen: 4, text: "Ann"))
        #expect(try TabRequest.parse(#"{"type":"back","screen":4}"#) == .back(screen: 4, phase: .immediate))
        #expect(try TabRequest.parse(#"{"type":"back","screen":4,"phase":"begin"}"#) == .back(screen: 4, phase: .begin))
        #expect(try TabRequest.parse(#"{"type":"closeModal","screen":4,"phase":"cancel"}"#) == .closeModal(screen: 4, phase: .cancel))
        #expect(try TabRequest.parse(#"{"type":"selectTab","screen":4,"index":1}"#) == .selectTab(screen: 4, index: 1))
        #expect(try TabRequest.parse(#"{"type":"ack","screen":4,"serial":3}"#) == .ack(screen: 4, serial: 3))
        #expect(try TabRequest.parse(#"{"type":"open","link":"students/Bob/age"}"#) == .open(link: "students/Bob/age"))
    }

    @Test("malformed messages are refused with what is wrong")
    func malformed() {
        let cases: [(String, String)] = [
            ("not json", "not a JSON object"),
            ("[1,2]", "not a JSON object"),
            (#"{"screen":4}"#, #"no "type" field"#),
            (#"{"type":"fly","screen":4}"#, #"unknown message type "fly""#),
            (#"{"type":"press","screen":4}"#, #""press" needs a "index" field"#),
            (#"{"type":"press","screen":"four","index":1}"#, #"field "screen" has the wrong type"#),
            (#"{"type":"back","screen":4,"phase":"sideways"}"#, #"phase "sideways""#),
            (#"{"type":"open"}"#, #""open" needs a "link" field"#),
            // Numbers a field cannot hold: said as such, not as "not a JSON object".
            (#"{"type":"press","screen":4,"index":1e30}"#, #"field "index" is a number out of range (an integer from -9223372036854775808 to 9223372036854775807)"#),
            (#"{"type":"press","screen":-1,"index":1}"#, #"field "screen" is a number out of range (an integer from 0 to 18446744073709551615)"#),
            (#"{"type":"press","screen":4,"index":1.5}"#, #"field "index" is a number out of range (an integer from -9223372036854775808 to 9223372036854775807)"#),
        ]
        for (text, reason) in cases {
            #expect(throws: MessageError.self, "\(text)") { try TabRequest.parse(text) }
            do {
                _ = try TabRequest.parse(text)
            } catch {
                #expect(error.reason.contains(reason), "\(text): \(error.reason)")
            }
        }
    }

    @Test("the inspector's inject keeps the output as JSON text; other actions parse")
    func inspectorRequests() throws {
        #expect(try InspectorRequest.parse(#"{"type":"inject","screen":2,"output":{"didPressButton":{"index":0}}}"#)
            == .inject(screen: 2, output: #"{"didPressButton":{"index":0}}"#))
        #expect(try InspectorRequest.parse(#"{"type":"terminate","flow":3}"#) == .terminate(flow: 3, animated: true))
        #expect(try InspectorRequest.parse(#"{"type":"terminate","flow":3,"animated":false}"#) == .terminate(flow: 3, animated: false))
        #expect(try InspectorRequest.parse(#"{"type":"selectTab","screen":9,"index":1}"#) == .selectTab(node: 9, index: 1))
        #expect(try InspectorRequest.parse(#"{"type":"recordStart"}"#) == .recordStart)
        #expect(throws: MessageError.self) { try InspectorRequest.parse(#"{"type":"selectTab","screen":9,"index":-1}"#) }
        #expect(throws: MessageError.self) { try InspectorRequest.parse(#"{"type":"inject","screen":2}"#) }
        #expect(throws: MessageError.self) { try InspectorRequest.parse(#"{"type":"press","screen":2,"index":0}"#) }
    }

    @Test("a Place reaches the page with the screen, its chrome's placement, its serial and animated")
    func placeEvent() throws {
        let placement = Placement(
            path: [.window, .modal(presenter: NodeID(rawValue: 3)), .tab(bar: NodeID(rawValue: 4), index: 1, count: 2), .stack(NodeID(rawValue: 5))],
            index: 1, isTopMost: true, isVisible: true)
        let view = ScreenView(id: 7, kind: "directory", flow: 2, flowType: "DirectoryFlow", state: .init(title: "Events", buttons: ["Close"]), placement: placement)
        let json = TabEvent.place(view, serial: 1, animated: true).json
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "place")
        #expect(object["serial"] as? Int == 1)
        #expect(object["animated"] as? Bool == true)
        let screen = try #require(object["screen"] as? [String: Any])
        #expect(screen["title"] as? String == "Events")
        let path = try #require((screen["placement"] as? [String: Any])?["path"] as? [[String: Any]])
        #expect(path.map { $0["step"] as? String } == ["window", "modal", "tab", "stack"])
        #expect(path[2]["tab"] as? Int == 1 && path[2]["tabCount"] as? Int == 2)
    }
}
