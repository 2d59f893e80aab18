import Foundation

/// The Swift description of one kind of screen: its `kind` name, the `State` a flow gives it and the
/// `Output`s it sends back. State and outputs cross the process boundary as JSON, or in their own
/// binary form when the types are `BinaryPayload`s (protobuf messages: FlowProtobuf); see
/// `stateCoder`. The same type describes the kind to a screen process (ScreenKit's
/// `ScreenHost.register`).
public protocol ScreenModule {
    /// The state a flow passes to the screen.
    associatedtype State: Codable
    /// The user events the screen sends to its flow.
    associatedtype Output: Codable
    /// The kind name screen hosts provide, e.g. `"tutorial"`.
    static var kind: String { get }
    /// An example state for the module's contract (`flowd describe`); see the extension.
    static var exampleState: State? { get }
    /// One example per `Output` case for the module's contract; see the extension.
    static var exampleOutputs: [Output] { get }
    /// How `State` crosses the wire: `.binary` when it is a `BinaryPayload`, else `.json`.
    static var stateCoder: PayloadCoder<State> { get }
    /// How `Output` crosses the wire: `.binary` when it is a `BinaryPayload`, else `.json`.
    static var outputCoder: PayloadCoder<Output> { get }
    /// A state's payload, as `stateCoder` writes it (the runtime's path for every `place` and
    /// `update`: a requirement, so the right form is chosen when the module is declared, with no
    /// coder built per call).
    static func encodeState(_ state: State, with codec: any PayloadCodec) throws -> Data
    /// An output's value, as `outputCoder` reads it (the runtime's path for every output).
    static func decodeOutput(_ payload: Data, with codec: any PayloadCodec) throws -> Output
    /// Whether the runtime asks `refusal(of:in:)` about every output of this module's screens. It then
    /// keeps each screen's current state as a value beside its payload (no decoding per output).
    /// Default: false, and nothing is kept.
    static var refusesOutputs: Bool { get }
    /// Why the screen could not have sent `output` while it shows `state` (a button it does not
    /// show), or nil to accept it; asked only when `refusesOutputs`. The runtime asks before the flow
    /// sees the output; a refused output changes nothing, and its sender gets `BAD_PAYLOAD` with this
    /// reason. Default: nil.
    static func refusal(of output: Output, in state: State) -> String?
}

extension ScreenModule {
    /// An example state, shown by `flowd describe` (none by default).
    public static var exampleState: State? { nil }
    /// No output is refused.
    public static var refusesOutputs: Bool { false }

    /// Accepts every output that decodes.
    public static func refusal(of output: Output, in state: State) -> String? { nil }

    /// One example of every `Output` case, shown by `flowd describe`. An enum's cases cannot be listed
    /// by looking at the type, so these name them: the JSON Schema of each case is probed from the
    /// type once its name is known (`ScreenContract`). None by default.
    public static var exampleOutputs: [Output] { [] }
    /// JSON.
    public static var stateCoder: PayloadCoder<State> { .json }
    /// JSON.
    public static var outputCoder: PayloadCoder<Output> { .json }
    /// The state's JSON.
    public static func encodeState(_ state: State, with codec: any PayloadCodec) throws -> Data { try codec.encode(state) }
    /// The output read from JSON.
    public static func decodeOutput(_ payload: Data, with codec: any PayloadCodec) throws -> Output {
        try codec.decode(Output.self, from: payload)
    }
}

extension ScreenModule where State: BinaryPayload {
    /// The state's own binary form.
    public static var stateCoder: PayloadCoder<State> { .binary }
    /// The state's binary payload.
    public static func encodeState(_ state: State, with codec: any PayloadCodec) throws -> Data { try state.binaryPayload() }
}

extension ScreenModule where Output: BinaryPayload {
    /// The output's own binary form.
    public static var outputCoder: PayloadCoder<Output> { .binary }
    /// The output read from its binary payload.
    public static func decodeOutput(_ payload: Data, with codec: any PayloadCodec) throws -> Output {
        try Output(binaryPayload: payload)
    }
}
