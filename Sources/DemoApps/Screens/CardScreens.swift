import FlowKit

/// What every demo screen shows: a title, a body, numbered buttons and, for
/// forms, one text field. `demo-screens` (and the Python screen) draw any
/// kind with this state, so a new flow needs no new screen code.
public struct CardState: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    public var buttons: [String]
    /// A text field's label; nil for no field.
    public var field: String?
    /// The text field's current value.
    public var text: String?

    public init(title: String, body: String = "", buttons: [String], field: String? = nil, text: String? = nil) {
        self.title = title
        self.body = body
        self.buttons = buttons
        self.field = field
        self.text = text
    }
}

/// What every demo screen sends: a pressed button, or the text field's new
/// value (sent before the button press that uses it).
public enum CardOutput: Codable, Sendable, Equatable {
    case didPressButton(index: Int)
    case didEnterText(String)
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
