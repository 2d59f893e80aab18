import Foundation

/// A screen's typed side, stored by the runtime behind `any ScreenOutlet`: its module, and the owning
/// flow's output handler. Decoding and delivery happen in the typed conformance, so nothing is cast.
protocol ScreenOutlet {
    /// The screen's kind name.
    var kind: String { get }
    /// Decodes `payload` as the module's `Output` (throwing if it does not decode) and hands it to the
    /// handler when `deliver` is true; returns whether a handler received it.
    func receive(_ payload: Data, with codec: any PayloadCodec, deliver: Bool) throws -> Bool
    /// The same screen with no handler (its owner changed).
    func withoutHandler() -> any ScreenOutlet
}

/// The outlet of a screen of module `M`.
struct TypedOutlet<M: ScreenModule>: ScreenOutlet {
    /// The owning flow's handler, if it set one.
    var handler: ((M.Output) -> Void)?

    var kind: String { M.kind }

    func receive(_ payload: Data, with codec: any PayloadCodec, deliver: Bool) throws -> Bool {
        let output = try codec.decode(M.Output.self, from: payload)
        guard deliver, let handler else { return false }
        handler(output)
        return true
    }

    func withoutHandler() -> any ScreenOutlet { TypedOutlet<M>(handler: nil) }
}
