import Foundation

/// `FlowInput` as bytes, for the daemon's journal (docs/journal.md): a kind number and a body of
/// unsigned LEB128 varints, then (for an output or a work result) the payload's bytes as they came,
/// (for a failed work) the message's UTF-8, (for a link) its canonical text. Compact, no
/// field names, decoded without trapping on any input; the numbers are part of the journal's
/// schema and are never reused.
extension FlowInput {
    /// The kind numbers of the journal schema.
    enum Kind: Int64 {
        case output = 1, userNavigation = 2, dismissalCompleted = 3, screenLost = 4, terminate = 5, terminateAll = 6
        case timerFired = 7, workSucceeded = 8, workFailed = 9, timerStarted = 10, openLink = 11
        case displaysChanged = 12
    }

    /// The kind and body this input is journaled as.
    public var encoded: (kind: Int64, body: [UInt8]) {
        var body: [UInt8] = []
        encodeBody(into: &body)
        return (journalKind, body)
    }

    /// The kind this input is journaled as.
    public var journalKind: Int64 {
        let kind: Kind = switch self {
        case .output: .output
        case .userNavigation: .userNavigation
        case .dismissalCompleted: .dismissalCompleted
        case .screenLost: .screenLost
        case .terminate: .terminate
        case .terminateAll: .terminateAll
        case .timerFired: .timerFired
        case .workSucceeded: .workSucceeded
        case .workFailed: .workFailed
        case .timerStarted: .timerStarted
        case .openLink: .openLink
        case .displaysChanged: .displaysChanged
        }
        return kind.rawValue
    }

    /// The size of the body this input is journaled as, when `encodeBody(to:)` writes it: an output's
    /// and a work result's (the inputs of every tap and every answer); nil for the others.
    public var knownBodySize: Int? {
        switch self {
        case .output(let screen, let payload): Self.varintSize(screen.rawValue) + payload.count
        case .workSucceeded(let request, let payload): Self.varintSize(request.rawValue) + payload.count
        default: nil
        }
    }

    /// Writes the body this input is journaled as at the start of `room`, which holds
    /// `knownBodySize` bytes (the same bytes as `encodeBody(into:)`).
    public func encodeBody(to room: UnsafeMutableRawBufferPointer) {
        let (number, payload): (UInt64, Data) = switch self {
        case .output(let screen, let payload): (screen.rawValue, payload)
        case .workSucceeded(let request, let payload): (request.rawValue, payload)
        default: preconditionFailure("encodeBody(to:) of an input without a knownBodySize")
        }
        var value = number, at = 0
        while value >= 0x80 {
            room[at] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            at += 1
        }
        room[at] = UInt8(value)
        payload.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            (room.baseAddress! + at + 1).copyMemory(from: source, byteCount: bytes.count)
        }
    }

    private static func varintSize(_ value: UInt64) -> Int {
        (64 - value.leadingZeroBitCount + 6) / 7 + (value == 0 ? 1 : 0)
    }

    /// Appends the body this input is journaled as to `body`: the daemon writes each input in place
    /// into its pending batch (`EncodedBatch`), with no array of its own.
    public func encodeBody(into body: inout [UInt8]) {
        switch self {
        case .output(let screen, let payload):
            Self.append(screen.rawValue, to: &body)
            // Through its bytes: appending a `Data` as a sequence copies it a byte at a time.
            payload.withUnsafeBytes { body.append(contentsOf: $0) }
        case .userNavigation(let navigation, let screen):
            Self.append(screen.rawValue, to: &body)
            switch navigation {
            case .back(let phase): body += [0, Self.phaseNumber(phase)]
            case .selectTab(let index): body.append(1); Self.append(UInt64(max(0, index)), to: &body)
            case .closeModal: body.append(2)
            case .closeWindow: body.append(3)
            }
        case .dismissalCompleted(let screen, let outcome):
            Self.append(screen.rawValue, to: &body)
            body.append(Self.outcomeNumbers[outcome] ?? 0)
        case .screenLost(let screen):
            Self.append(screen.rawValue, to: &body)
        case .terminate(let flow, let animated):
            Self.append(flow.rawValue, to: &body)
            body.append(animated ? 1 : 0)
        case .terminateAll(let animated):
            body.append(animated ? 1 : 0)
        case .timerFired(let request):
            Self.append(request.rawValue, to: &body)
        case .workSucceeded(let request, let payload):
            Self.append(request.rawValue, to: &body)
            payload.withUnsafeBytes { body.append(contentsOf: $0) }
        case .workFailed(let request, let message):
            Self.append(request.rawValue, to: &body)
            body += message.utf8
        case .timerStarted(let request, let deadline):
            Self.append(request.rawValue, to: &body)
            Self.append(deadline, to: &body)
        case .openLink(let link):
            body += link.description.utf8
        case .displaysChanged(let displays):
            Self.append(UInt64(displays.count), to: &body)
            for display in displays {
                Self.append(display.id, to: &body)
                Self.append(display.name, to: &body)
                Self.append(UInt64(max(0, display.width)), to: &body)
                Self.append(UInt64(max(0, display.height)), to: &body)
            }
        }
    }

    /// Decodes a journaled input; throws (never traps) on anything it did not write.
    public init(kind: Int64, body: [UInt8]) throws(FlowInputDecodingError) {
        var reader = Reader(bytes: body)
        guard let known = Kind(rawValue: kind) else { throw FlowInputDecodingError("unknown input kind \(kind)") }
        switch known {
        case .output:
            let screen = ScreenID(rawValue: try reader.varint())
            self = .output(screen, payload: Data(reader.rest()))
            return
        case .userNavigation:
            let screen = ScreenID(rawValue: try reader.varint())
            let navigation: UserNavigation
            switch try reader.byte() {
            case 0:
                navigation = .back(try Self.phase(number: try reader.byte()))
            case 1:
                let index = try reader.varint()
                guard index <= UInt64(Int.max) else { throw FlowInputDecodingError("tab index \(index) out of range") }
                navigation = .selectTab(Int(index))
            case 2: navigation = .closeModal
            case 3: navigation = .closeWindow
            case let other: throw FlowInputDecodingError("unknown navigation \(other)")
            }
            self = .userNavigation(navigation, screen: screen)
        case .dismissalCompleted:
            let screen = ScreenID(rawValue: try reader.varint())
            let number = try reader.byte()
            guard let outcome = Self.outcomeNumbers.first(where: { $0.value == number })?.key else {
                throw FlowInputDecodingError("unknown dismissal outcome \(number)")
            }
            self = .dismissalCompleted(screen, outcome)
        case .screenLost:
            self = .screenLost(ScreenID(rawValue: try reader.varint()))
        case .terminate:
            let flow = FlowID(rawValue: try reader.varint())
            self = .terminate(flow, animated: try reader.flag())
        case .terminateAll:
            self = .terminateAll(animated: try reader.flag())
        case .timerFired:
            self = .timerFired(RequestID(rawValue: try reader.varint()))
        case .workSucceeded:
            let request = RequestID(rawValue: try reader.varint())
            self = .workSucceeded(request, payload: Data(reader.rest()))
            return
        case .workFailed:
            let request = RequestID(rawValue: try reader.varint())
            guard let message = String(validating: reader.rest(), as: UTF8.self) else {
                throw FlowInputDecodingError("the message of a failed \(request) is not UTF-8")
            }
            self = .workFailed(request, message: message)
            return
        case .timerStarted:
            let request = RequestID(rawValue: try reader.varint())
            self = .timerStarted(request, deadline: try reader.varint())
        case .openLink:
            guard let text = String(validating: reader.rest(), as: UTF8.self) else {
                throw FlowInputDecodingError("a link that is not UTF-8")
            }
            do {
                self = .openLink(try Link(parsing: text))
            } catch {
                throw FlowInputDecodingError("a link that does not parse (\(error))")
            }
            return
        case .displaysChanged:
            let count = try reader.varint()
            guard count <= UInt64(reader.remaining) else { throw FlowInputDecodingError("\(count) displays in \(reader.remaining) bytes") }
            var displays: [Display] = []
            for _ in 0..<count {
                let id = try reader.string(), name = try reader.string()
                let width = try reader.varint(), height = try reader.varint()
                guard width <= UInt64(Int32.max), height <= UInt64(Int32.max) else {
                    throw FlowInputDecodingError("the display \(id) is \(width)×\(height)")
                }
                displays.append(Display(id: id, name: name, width: Int(width), height: Int(height)))
            }
            self = .displaysChanged(displays)
        }
        guard reader.isAtEnd else { throw FlowInputDecodingError("\(reader.remaining) bytes after a \(known) input") }
    }

    /// The number a back's phase is journaled as. A button press (`immediate`) is journaled as
    /// `commit`: the runtime applies the two alike, and the schema keeps the three numbers it had.
    private static func phaseNumber(_ phase: NavigationPhase) -> UInt8 {
        switch phase {
        case .begin: 0
        case .cancel: 1
        case .commit, .immediate: 2
        }
    }

    /// The phase a journaled number stands for.
    private static func phase(number: UInt8) throws(FlowInputDecodingError) -> NavigationPhase {
        switch number {
        case 0: .begin
        case 1: .cancel
        case 2: .commit
        default: throw FlowInputDecodingError("unknown gesture phase \(number)")
        }
    }

    private static let outcomeNumbers: [DismissOutcome: UInt8] = [.acknowledged: 0, .timedOut: 1, .hostLost: 2]

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        append(UInt64(text.utf8.count), to: &bytes)
        bytes += text.utf8
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }
        var remaining: Int { bytes.count - position }

        mutating func byte() throws(FlowInputDecodingError) -> UInt8 {
            guard position < bytes.count else { throw FlowInputDecodingError("the body ends early") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func flag() throws(FlowInputDecodingError) -> Bool {
            switch try byte() {
            case 0: return false
            case 1: return true
            case let other: throw FlowInputDecodingError("a flag of \(other)")
            }
        }

        mutating func varint() throws(FlowInputDecodingError) -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                let byte = try byte()
                let bits = UInt64(byte & 0x7F)
                guard shift < 63 || bits <= 1 else { throw FlowInputDecodingError("a varint over 64 bits") }
                value |= bits << UInt64(shift)
                if byte & 0x80 == 0 { return value }
            }
            throw FlowInputDecodingError("a varint over 10 bytes")
        }

        /// A length-prefixed UTF-8 string.
        mutating func string() throws(FlowInputDecodingError) -> String {
            let length = try varint()
            guard length <= UInt64(remaining) else { throw FlowInputDecodingError("a string of \(length) bytes in \(remaining)") }
            let end = position + Int(length)
            defer { position = end }
            guard let text = String(validating: bytes[position..<end], as: UTF8.self) else {
                throw FlowInputDecodingError("a string that is not UTF-8")
            }
            return text
        }

        mutating func rest() -> [UInt8] {
            defer { position = bytes.count }
            return Array(bytes[position...])
        }
    }
}

/// A journaled input that does not decode: what was wrong.
public struct FlowInputDecodingError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
