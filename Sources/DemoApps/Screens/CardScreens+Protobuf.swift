import FlowProtobuf
import Foundation

/// The card screens' payloads are protobuf messages (proto/flowd/demo/v1/cards.proto): Swift
/// screens decode them with the generated types, the Python login screen with its `cards_pb2`.
extension CardState: ProtobufPayload {
    public typealias Message = Flowd_Demo_V1_CardState

    public init(message: Message) {
        self.init(
            title: message.title, body: message.body, buttons: message.buttons,
            field: message.hasField ? message.field : nil, text: message.hasText ? message.text : nil)
    }

    public func message() -> Message {
        var message = Message()
        message.title = title
        message.body = body
        message.buttons = buttons
        if let field { message.field = field }
        if let text { message.text = text }
        return message
    }
}

extension CardOutput: ProtobufPayload {
    public typealias Message = Flowd_Demo_V1_CardOutput

    public init(message: Message) throws {
        switch message.event {
        case .didPressButton(let press):
            self = .didPressButton(index: Int(press.index))
        case .didEnterText(let entry):
            self = .didEnterText(text: entry.text)
        case nil:
            throw ProtobufPayloadError("a \(Message.protoMessageName) must set one of its events (didPressButton, didEnterText)")
        }
    }

    public func message() throws -> Message {
        var message = Message()
        switch self {
        case .didPressButton(let index):
            guard let index = Int32(exactly: index) else {
                throw ProtobufPayloadError("button index \(index) does not fit the message's int32")
            }
            var press = Flowd_Demo_V1_DidPressButton()
            press.index = index
            message.event = .didPressButton(press)
        case .didEnterText(let text):
            var entry = Flowd_Demo_V1_DidEnterText()
            entry.text = text
            message.event = .didEnterText(entry)
        }
        return message
    }
}
