import FlowProtobuf
import Foundation

/// The card screens' payloads are protobuf messages (proto/flowd/demo/v1/cards.proto): Swift
/// screens decode them with the generated types, the Python login screen with its `cards_pb2`.
///
/// Both types also have a hand-written fast codec (docs/flows.md, "Fast payload codecs"): they
/// write their bytes directly and read the usual shapes directly, declining to swift-protobuf's
/// generated code for anything else. `CardPayloadFuzzTarget` proves the two equal, both ways.
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

    /// The message's bytes, written directly: the same bytes as `message().serializedBytes()`.
    public func binaryPayload() -> Data {
        var size = 0
        if !title.isEmpty { size += ProtobufWriter.stringSize(field: 1, title) }
        if !body.isEmpty { size += ProtobufWriter.stringSize(field: 2, body) }
        for button in buttons { size += ProtobufWriter.stringSize(field: 3, button) }
        if let field { size += ProtobufWriter.stringSize(field: 4, field) }
        if let text { size += ProtobufWriter.stringSize(field: 5, text) }
        return ProtobufWriter.message(size: size) { writer in
            if !title.isEmpty { writer.stringField(1, title) }
            if !body.isEmpty { writer.stringField(2, body) }
            for button in buttons { writer.stringField(3, button) }
            if let field { writer.stringField(4, field) }
            if let text { writer.stringField(5, text) }
        }
    }

    public init(binaryPayload: Data) throws {
        try self.init(binaryPayload: binaryPayload, fast: Self.fastDecoded)
    }

    /// The state in `bytes`, or nil to decline (a field of a known number with another wire type, a
    /// group, bytes that are not a message, text that is not UTF-8).
    static func fastDecoded(_ bytes: UnsafeRawBufferPointer) -> CardState? {
        var reader = ProtobufReader(bytes)
        var state = CardState(title: "", buttons: [])
        while !reader.isAtEnd {
            guard let (field, wire) = reader.key() else { return nil }
            guard (1...5).contains(field) else {
                guard reader.skip(wire) else { return nil }
                continue
            }
            guard wire == .lengthDelimited, let text = reader.string() else { return nil }
            switch field {
            case 1: state.title = text
            case 2: state.body = text
            case 3: state.buttons.append(text)
            case 4: state.field = text
            default: state.text = text
            }
        }
        return state
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

    /// The message's bytes, written directly: the same bytes as `message().serializedBytes()`.
    public func binaryPayload() throws -> Data {
        switch self {
        case .didPressButton(let index):
            guard let index = Int32(exactly: index) else {
                throw ProtobufPayloadError("button index \(index) does not fit the message's int32")
            }
            // An int32 goes on the wire sign-extended to 64 bits.
            let value = UInt64(bitPattern: Int64(index))
            let press = ProtobufWriter.varintFieldSize(field: 1, value)
            return ProtobufWriter.message(size: ProtobufWriter.lengthDelimitedSize(field: 1, length: press)) { writer in
                writer.messageHeader(1, size: press)
                writer.varintField(1, value)
            }
        case .didEnterText(let text):
            let entry = ProtobufWriter.stringSize(field: 1, text)
            return ProtobufWriter.message(size: ProtobufWriter.lengthDelimitedSize(field: 2, length: entry)) { writer in
                writer.messageHeader(2, size: entry)
                writer.stringField(1, text)
            }
        }
    }

    public init(binaryPayload: Data) throws {
        try self.init(binaryPayload: binaryPayload, fast: Self.fastDecoded)
    }

    /// The output in `bytes`, or nil to decline: besides what `CardState.fastDecoded` declines, no
    /// event or more than one event field (swift-protobuf merges or replaces them).
    static func fastDecoded(_ bytes: UnsafeRawBufferPointer) -> CardOutput? {
        var reader = ProtobufReader(bytes)
        var output: CardOutput?
        while !reader.isAtEnd {
            guard let (field, wire) = reader.key() else { return nil }
            guard field == 1 || field == 2 else {
                guard reader.skip(wire) else { return nil }
                continue
            }
            guard output == nil, wire == .lengthDelimited, let event = reader.lengthDelimited() else { return nil }
            guard let decoded = field == 1 ? pressedButton(event) : enteredText(event) else { return nil }
            output = decoded
        }
        return output
    }

    /// A `DidPressButton`'s fields: an absent index is 0; the last of several wins.
    private static func pressedButton(_ bytes: UnsafeRawBufferPointer) -> CardOutput? {
        var reader = ProtobufReader(bytes)
        var index: Int32 = 0
        while !reader.isAtEnd {
            guard let (field, wire) = reader.key() else { return nil }
            if field == 1 {
                guard wire == .varint, let value = reader.varint() else { return nil }
                index = Int32(truncatingIfNeeded: value)
            } else {
                guard reader.skip(wire) else { return nil }
            }
        }
        return .didPressButton(index: Int(index))
    }

    /// A `DidEnterText`'s fields: an absent text is empty; the last of several wins.
    private static func enteredText(_ bytes: UnsafeRawBufferPointer) -> CardOutput? {
        var reader = ProtobufReader(bytes)
        var text = ""
        while !reader.isAtEnd {
            guard let (field, wire) = reader.key() else { return nil }
            if field == 1 {
                guard wire == .lengthDelimited, let value = reader.string() else { return nil }
                text = value
            } else {
                guard reader.skip(wire) else { return nil }
            }
        }
        return .didEnterText(text: text)
    }
}
