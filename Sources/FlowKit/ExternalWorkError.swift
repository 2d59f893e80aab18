/// Why a flow's asynchronous work (`FlowContext.run(_:then:)`) has no result: the error it threw, or
/// its result that did not encode or decode, as text. Errors cross the journal as text; a flow that
/// needs a typed failure makes it part of the work's result type (an enum with a failure case).
public struct ExternalWorkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, worded for a person.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
