import Foundation

/// What a screen host must understand to host one kind: the JSON Schema of its `State` and of each
/// `Output` case, with an example of each. Built from the `ScreenModule` itself (a probe of its
/// types plus the examples it supplies), never written by hand, so it cannot drift from the code.
/// `flowd describe` prints it; a running daemon answers `Describe` with it.
public struct ScreenContract: Sendable, Equatable {
    /// One `Output` case (or, for an `Output` that is not an enum, the whole type as `output`).
    public struct OutputCase: Sendable, Equatable {
        /// The case's JSON key (`didPressButton`), or `output` for a non-enum `Output`.
        public var name: String
        /// The case as JSON: an object whose one key is `name`.
        public var schema: JSONSchema
        /// An example from the module's `exampleOutputs`.
        public var example: JSONValue
    }

    /// The module's `kind`.
    public var kind: String
    /// What `State` decodes from.
    public var state: JSONSchema
    /// The module's `exampleState`, if it gives one.
    public var stateExample: JSONValue?
    /// One per case named by the module's examples, in their order.
    public var outputs: [OutputCase]
    /// The whole `Output` schema (`oneOf` the cases for an enum).
    public var output: JSONSchema
    /// What the contract could not say (a type that refused the probe, an enum without examples).
    public var notes: [String]
    /// The content type of the kind's states on the wire (`application/json`, or a protobuf message's).
    public var stateContentType: String
    /// The content type of the kind's outputs on the wire; JSON is taken for any kind too.
    public var outputContentType: String

    /// The contract of `module`.
    public init<M: ScreenModule>(_ module: M.Type) {
        kind = M.kind
        notes = []
        stateContentType = M.stateCoder.contentType
        outputContentType = M.outputCoder.contentType
        let stateProbe = SchemaProbe.probe(M.State.self)
        state = stateProbe.schema
        if let failure = stateProbe.failure { notes.append("State is only partly described: \(failure)") }
        stateExample = M.exampleState.flatMap { try? JSONValue(encoding: $0) }

        outputs = []
        let outputProbe = SchemaProbe.probe(M.Output.self)
        let examples = M.exampleOutputs.compactMap { try? JSONValue(encoding: $0) }
        guard outputProbe.asksForKeys, outputProbe.schema == .any || isOpenKeyed(outputProbe.schema) else {
            output = outputProbe.schema
            outputs = examples.map { OutputCase(name: "output", schema: outputProbe.schema, example: $0) }
            if let failure = outputProbe.failure { notes.append("Output is only partly described: \(failure)") }
            return
        }
        // An enum: each example names a case; probe the type with that case's key.
        for example in examples {
            guard case .object(let fields) = example, fields.count == 1, let name = fields.keys.first else {
                notes.append("an Output example is not one enum case: \(example.text)")
                continue
            }
            guard !outputs.contains(where: { $0.name == name }) else { continue }
            let probe = SchemaProbe.probe(M.Output.self, forcing: name)
            if let failure = probe.failure { notes.append("Output case \(name) is only partly described: \(failure)") }
            outputs.append(OutputCase(name: name, schema: probe.schema, example: example))
        }
        if outputs.isEmpty { notes.append("Output is an enum and the module gives no exampleOutputs, so its cases are not listed") }
        output = .oneOf(outputs.map(\.schema))
    }

    /// The contract as one JSON object: `kind`, `state` (`schema`, `example`, `content_type`),
    /// `outputs` (each `name`, `schema`, `example`), `output_content_type`, `notes`. The schemas and
    /// examples are the JSON people write; `content_type` is what crosses the wire.
    public var json: JSONValue {
        var state: [String: JSONValue] = ["schema": self.state.json, "content_type": .string(stateContentType)]
        if let stateExample { state["example"] = stateExample }
        var fields: [String: JSONValue] = [
            "kind": .string(kind), "state": .object(state), "output_content_type": .string(outputContentType),
            "outputs": .array(outputs.map { .object(["name": .string($0.name), "schema": $0.schema.json, "example": $0.example]) }),
        ]
        if !notes.isEmpty { fields["notes"] = .array(notes.map { .string($0) }) }
        return .object(fields)
    }
}

/// An enum's probe without a case: a keyed container that asked for its keys and got none.
private func isOpenKeyed(_ schema: JSONSchema) -> Bool {
    if case .object(let properties, _, _) = schema { return properties.isEmpty }
    return false
}
