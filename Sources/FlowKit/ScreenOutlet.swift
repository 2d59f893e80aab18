import Foundation

/// A screen's typed side, stored by the runtime behind `any ScreenOutlet`: its module, and the owning
/// flow's output handler. Decoding and delivery happen in the typed conformance, so nothing is cast.
protocol ScreenOutlet {
    /// The screen's kind name.
    var kind: String { get }
    /// Decodes `payload` as the module's `Output` (throwing if it does not decode, or if the module
    /// refuses it in the screen's current state `state`) and hands it to the handler when `deliver`
    /// is true; returns whether a handler received it.
    func receive(_ payload: Data, with codec: any PayloadCodec, state: Data, deliver: Bool) throws -> Bool
    /// The output payload of JSON a person wrote.
    func outputPayload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data
    /// The JSON people read for an output payload.
    func outputJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data
    /// The JSON people read for a state payload.
    func stateJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data
    /// The same screen with no handler (its owner changed).
    func withoutHandler() -> any ScreenOutlet
}

/// The outlet of a screen of module `M`.
struct TypedOutlet<M: ScreenModule>: ScreenOutlet {
    /// The owning flow's handler, if it set one.
    var handler: ((M.Output) -> Void)?

    var kind: String { M.kind }

    func receive(_ payload: Data, with codec: any PayloadCodec, state: Data, deliver: Bool) throws -> Bool {
        let output = try M.decodeOutput(payload, with: codec)
        if let reason = M.refusal(of: output, state: { try? M.stateCoder.decode(state, with: codec) }) {
            throw OutputRefusal(reason: reason)
        }
        guard deliver, let handler else { return false }
        handler(output)
        return true
    }

    func outputPayload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data {
        try M.outputCoder.payload(fromJSON: json, with: codec)
    }

    func outputJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data {
        try M.outputCoder.json(fromPayload: payload, with: codec)
    }

    func stateJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data {
        try M.stateCoder.json(fromPayload: payload, with: codec)
    }

    func withoutHandler() -> any ScreenOutlet { TypedOutlet<M>(handler: nil) }
}

/// A module's reason to refuse an output in its screen's current state (`ScreenModule.refusal`).
struct OutputRefusal: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
