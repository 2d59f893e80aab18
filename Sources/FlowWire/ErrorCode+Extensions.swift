extension Flowd_V1_ErrorCode {
    /// Whether the daemon closes the connection after sending this code (docs/protocol.md, error codes).
    /// The `fatal` field of a received `Flowd_V1_Error` is what counts; this is the sender's default.
    public var isFatal: Bool {
        switch self {
        case .malformedFrame, .frameTooLarge, .unsupportedVersion, .unauthorized, .unexpectedMessage,
            .handshakeTimeout, .writeQueueOverflow, .internal, .resumeRefused, .frameTimeout:
            true
        case .unspecified, .unknownScreen, .notYourScreen, .unknownSerial, .badPayload, .ackTimeout,
            .unknownKind, .invalidNavigation, .unknownFlow, .limitExceeded, .shuttingDown, .badLink, .unknownLink, .linkRefused,
            .UNRECOGNIZED:
            false
        }
    }
}

extension Flowd_V1_Error {
    /// An error message; `fatal` defaults to the code's usual fatality.
    public init(
        code: Flowd_V1_ErrorCode,
        message: String,
        fatal: Bool? = nil,
        screenID: UInt64 = 0,
        serial: UInt64 = 0
    ) {
        self.init()
        self.code = code
        self.message = message
        self.fatal = fatal ?? code.isFatal
        self.screenID = screenID
        self.serial = serial
    }
}
