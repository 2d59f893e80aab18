import FlowKit

/// What every demo screen shows: a title, a body and numbered buttons.
/// `demo-screens` draws any kind with this state.
public struct CardState: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    public var buttons: [String]

    public init(title: String, body: String = "", buttons: [String]) {
        self.title = title
        self.body = body
        self.buttons = buttons
    }
}

/// What every demo screen sends: the index of the pressed button.
public enum CardOutput: Codable, Sendable, Equatable {
    case didPressButton(index: Int)
}

/// The onboarding tutorial's screens (welcome, finish).
public enum TutorialScreen: ScreenModule {
    public static let kind = "tutorial"
    public typealias State = CardState
    public typealias Output = CardOutput
}

/// A generic item screen used by the conformance apps.
public enum ItemScreen: ScreenModule {
    public static let kind = "item"
    public typealias State = CardState
    public typealias Output = CardOutput
}
