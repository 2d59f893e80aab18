/// An error FlowKit reports to the daemon or to an app: what happened, to what, and what to do.
public struct FlowKitError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare against the static constants.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case unknownScreen, outputDecodingFailed, invalidPlacement, invalidNavigation
            case unknownFlow, stateEncodingFailed, notRunning, contextUnavailable, unknownRequest
            case unknownLink, linkRefused, displayUnavailable
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No live screen has the given id.
        public static let unknownScreen = Code(.unknownScreen)
        /// An output payload did not decode as the screen module's `Output`.
        public static let outputDecodingFailed = Code(.outputDecodingFailed)
        /// A placer could not place its content (missing or wrong container, already presenting, …).
        public static let invalidPlacement = Code(.invalidPlacement)
        /// A user navigation is not possible in the current model (not visible, root of a stack, …).
        public static let invalidNavigation = Code(.invalidNavigation)
        /// No running flow has the given id.
        public static let unknownFlow = Code(.unknownFlow)
        /// A screen state did not encode to JSON.
        public static let stateEncodingFailed = Code(.stateEncodingFailed)
        /// The flow asked to act has already ended.
        public static let notRunning = Code(.notRunning)
        /// A flow read `flow.context` before its own placer placed the initial screen.
        public static let contextUnavailable = Code(.contextUnavailable)
        /// An answer (a timer firing, a work result) for a request that is not outstanding: never
        /// made, already answered, cancelled, its flow ended, or of another kind.
        public static let unknownRequest = Code(.unknownRequest)

        /// A link named a segment no flow understood (`LinkError.unknownLink`; the message names it).
        public static let unknownLink = Code(.unknownLink)
        /// A link was not opened for another reason: a flow declined, no flow handles links, a
        /// dismissal is in flight, or a flow failed while opening it (the message has the `LinkError`).
        public static let linkRefused = Code(.linkRefused)

        /// A flow opened a window on a display no host provides (`window(on:whenAbsent: .fail)`).
        public static let displayUnavailable = Code(.displayUnavailable)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence saying what happened, to what, and what to do.
    public let message: String
    /// The link's own error, when a `FlowInput.openLink` was refused (its finer code and message).
    public let link: LinkError?

    /// Builds an error.
    public init(_ code: Code, _ message: String, link: LinkError? = nil) {
        self.code = code
        self.message = message
        self.link = link
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
