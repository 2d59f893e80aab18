import Foundation

/// A flow's asynchronous work, as its driver receives it (`ExternalRequest.Kind.work`): run it off
/// the runtime's thread, then hand the result back on that thread as the input
/// `runtime.input(for:)` makes of it. The runtime never runs it itself.
public struct ExternalWork: Sendable {
    /// The request it answers.
    public let request: RequestID
    private let body: @Sendable () async -> ExternalWorkResult

    init(request: RequestID, body: @escaping @Sendable () async -> ExternalWorkResult) {
        self.request = request
        self.body = body
    }

    /// Runs the work (on any thread; never throws: a thrown error is the result's failure).
    public func run() async -> ExternalWorkResult { await body() }
}

/// What a piece of work produced, not yet encoded: the runtime's `PayloadCodec` belongs to its
/// thread, so the value is encoded there, by `FlowRuntime.input(for:)`.
public struct ExternalWorkResult: Sendable {
    enum Outcome: Sendable {
        /// The value, with how to encode it.
        case success(@Sendable (any PayloadCodec) throws -> Data)
        /// The error it threw, described.
        case failure(String)
    }

    /// The request it answers.
    public let request: RequestID
    let outcome: Outcome

    /// Whether the work returned a value (rather than throwing).
    public var succeeded: Bool {
        if case .success = outcome { true } else { false }
    }
}
