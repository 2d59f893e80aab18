/// The Swift description of one kind of screen: its `kind` name, the `State` a flow gives it and the
/// `Output`s it sends back. State and outputs cross the process boundary as JSON. The same type
/// describes the kind to a screen process (ScreenKit's `ScreenHost.register`).
public protocol ScreenModule {
    /// The state a flow passes to the screen.
    associatedtype State: Codable
    /// The user events the screen sends to its flow.
    associatedtype Output: Codable
    /// The kind name screen hosts provide, e.g. `"tutorial"`.
    static var kind: String { get }
}
