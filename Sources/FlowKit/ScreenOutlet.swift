import Foundation

/// A screen's typed side, stored by the runtime behind `any ScreenOutlet`: its module, and the owning
/// flow's output handler. Decoding and delivery happen in the typed conformance, so nothing is cast.
protocol ScreenOutlet: AnyObject {
    /// The screen's kind name.
    var kind: String { get }
    /// Decodes `payload` as the module's `Output` (throwing if it does not decode, or if the module
    /// refuses it in the screen's current state) and hands it to the handler when `deliver` is true;
    /// returns whether a handler received it.
    func receive(_ payload: Data, with codec: any PayloadCodec, deliver: Bool) throws -> Bool
    /// The output payload of JSON a person wrote.
    func outputPayload(fromJSON json: Data, with codec: any PayloadCodec) throws -> Data
    /// The JSON people read for an output payload.
    func outputJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data
    /// The JSON people read for a state payload.
    func stateJSON(_ payload: Data, with codec: any PayloadCodec) throws -> Data
    /// The same screen with no handler (its owner changed).
    func withoutHandler() -> any ScreenOutlet
    /// The screen's `KeptState`, when its module refuses outputs (nil otherwise).
    var keptState: AnyObject? { get }
}

/// A screen's current state as a value, kept for a module that refuses outputs in it
/// (`ScreenModule.refusesOutputs`): a reference, so that an update sets it in place, with neither a
/// decode per output nor a new outlet per update.
final class KeptState<State> {
    var value: State
    init(_ value: State) { self.value = value }
}

/// The outlet of a screen of module `M`. A class, replaced whole when its handler changes: an output
/// takes it out of the screen's record with one retain, where a struct of two references in an
/// existential was copied and destroyed through its value witnesses (~0.2 k instructions per output).
final class TypedOutlet<M: ScreenModule>: ScreenOutlet {
    /// The owning flow's handler, if it set one.
    let handler: ((M.Output) -> Void)?
    /// The screen's current state, kept only for a module that refuses outputs (`M.refusesOutputs`).
    let kept: KeptState<M.State>?

    init(handler: ((M.Output) -> Void)?, kept: KeptState<M.State>?) {
        self.handler = handler
        self.kept = kept
    }

    var keptState: AnyObject? { kept }

    var kind: String { M.kind }

    func receive(_ payload: Data, with codec: any PayloadCodec, deliver: Bool) throws -> Bool {
        let output = try M.decodeOutput(payload, with: codec)
        if M.refusesOutputs, let kept, let reason = M.refusal(of: output, in: kept.value) {
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

    func withoutHandler() -> any ScreenOutlet { TypedOutlet<M>(handler: nil, kept: kept) }
}

/// A module's reason to refuse an output in its screen's current state (`ScreenModule.refusal`).
struct OutputRefusal: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
