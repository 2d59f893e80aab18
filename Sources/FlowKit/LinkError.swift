/// Why a link could not be parsed or opened: what happened, at which segment, and what to do.
/// Opening a link that throws changes nothing in the tree (docs/flows.md, Links).
public struct LinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; compare against the static constants.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case empty, tooLong, invalidCharacter, invalidPercentEncoding, notUTF8, emptySegment, invalidQuery
            case unknownLink, refused, unavailable, busy, failed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The link text is empty.
        public static let empty = Code(.empty)
        /// Over a limit: bytes, segments, a segment's length or query items (`Link.maxBytes`, …).
        public static let tooLong = Code(.tooLong)
        /// A byte that must be percent-encoded, or a decoded control character.
        public static let invalidCharacter = Code(.invalidCharacter)
        /// A `%` not followed by two hex digits.
        public static let invalidPercentEncoding = Code(.invalidPercentEncoding)
        /// The percent-decoded bytes are not UTF-8.
        public static let notUTF8 = Code(.notUTF8)
        /// An empty segment (`a//b`, a leading or trailing `/`).
        public static let emptySegment = Code(.emptySegment)
        /// A query with an empty item or an item without a name.
        public static let invalidQuery = Code(.invalidQuery)
        /// No flow understood a segment (`segment` says which): the flow there does not handle links,
        /// or does not know that segment.
        public static let unknownLink = Code(.unknownLink)
        /// A flow understood the segment and declined to open it (the message gives its reason).
        public static let refused = Code(.refused)
        /// No running root flow handles links (the app has not started, finished, or shuts down).
        public static let unavailable = Code(.unavailable)
        /// A dismissal is in flight; open the link again once it completed.
        public static let busy = Code(.busy)
        /// A flow failed while the link was being opened (a placement failed, or a flow's plan did not
        /// start the flow it named); what the link had started is unwound.
        public static let failed = Code(.failed)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The index of the segment concerned (into `Link.segments`), when there is one.
    public let segment: Int?
    /// A sentence saying what happened, to what, and what to do.
    public let message: String

    /// Builds an error.
    public init(_ code: Code, _ message: String, segment: Int? = nil) {
        self.code = code
        self.message = message
        self.segment = segment
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
