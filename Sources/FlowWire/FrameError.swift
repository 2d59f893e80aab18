/// Why a frame could not be decoded or encoded.
///
/// A closed set (like swift-protobuf's `BinaryDecodingError`). `frameTooLarge`
/// leaves a byte stream that cannot be resynchronised; the others concern one
/// frame. Every case maps to the `Flowd_V1_ErrorCode` a peer is told.
public enum FrameError: Error, Hashable, Sendable {
    /// A length prefix announced `length` bytes, over the maximum frame size `maxFrameSize`.
    case frameTooLarge(length: Int, maxFrameSize: Int)
    /// The frame's bytes are not a serialized `Flowd_V1_Envelope`; `reason` is the decoder's description.
    case malformed(reason: String)
    /// The envelope has no body set: a zero-length frame, or a body this protocol version does not know.
    case emptyBody
    /// swift-protobuf could not serialize the envelope; `reason` is its description.
    case unencodable(reason: String)
}

extension FrameError {
    /// The code to put in the `Flowd_V1_Error` sent to the peer.
    public var errorCode: Flowd_V1_ErrorCode {
        switch self {
        case .frameTooLarge: .frameTooLarge
        case .malformed, .emptyBody: .malformedFrame
        case .unencodable: .internal
        }
    }

    /// The fatal `Flowd_V1_Error` to send the peer before closing the connection.
    public var wireError: Flowd_V1_Error {
        Flowd_V1_Error(code: errorCode, message: description, fatal: true)
    }
}

extension FrameError: CustomStringConvertible {
    /// What happened, to what, and what to do.
    public var description: String {
        switch self {
        case .frameTooLarge(let length, let maxFrameSize):
            "frame too large: the length prefix announces \(length) bytes but the maximum frame size is "
                + "\(maxFrameSize) bytes; split the data or negotiate a larger max_frame_size in Hello"
        case .malformed(let reason):
            "malformed frame: the bytes are not a serialized flowd.v1.Envelope (\(reason)); "
                + "check that the sender writes a 4-byte little-endian length followed by exactly that many protobuf bytes"
        case .emptyBody:
            "malformed frame: the envelope has no body (a zero-length frame, or a message this protocol version "
                + "does not know); every frame must carry exactly one body"
        case .unencodable(let reason):
            "cannot encode the envelope: swift-protobuf failed to serialize it (\(reason)); this is a bug in the sender"
        }
    }
}
