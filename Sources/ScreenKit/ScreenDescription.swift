/// The Swift description of a screen kind, as a screen process sees it: the
/// kind's name, the `State` the daemon places it with and the `Output`s it
/// sends. FlowKit's screen modules are meant to refine this protocol, so one
/// module type serves both the flow (in the daemon) and the screen process.
///
/// Both types travel as JSON made by Swift's synthesized `Codable` (see
/// docs/protocol.md, "Payloads and JSON conventions").
public protocol ScreenDescription {
    /// The state a flow gives the screen (`Place.state`, `Update.state`).
    associatedtype State: Codable & Sendable
    /// The events the screen sends (`Output.payload`).
    associatedtype Output: Codable & Sendable
    /// The kind's name on the wire, as in `Hello.provides` and `Place.kind` ("tutorial", "menu").
    static var kind: String { get }
}
