import FlowKit

/// What every demo screen shows: a title, a body, numbered buttons and, for
/// forms, one text field. `demo-screens` (and the Python screen) draw any
/// kind with this state, so a new flow needs no new screen code. On the wire
/// it is the protobuf message `flowd.demo.v1.CardState` (CardScreens+Protobuf.swift).
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
/// value (sent before the button press that uses it). On the wire it is the
/// protobuf message `flowd.demo.v1.CardOutput`; its JSON, protobuf's mapping,
/// is also this enum's `Codable` JSON: `{"didEnterText":{"text":"Ann"}}`.
public enum CardOutput: Codable, Sendable, Equatable {
    case didPressButton(index: Int)
    case didEnterText(text: String)
}

/// The onboarding tutorial's screens (welcome, finish).
public enum TutorialScreen: CardScreen { public static let kind = "tutorial" }

/// A generic item screen used by the conformance apps.
public enum ItemScreen: CardScreen { public static let kind = "item" }

/// Declares a card-drawn screen kind in one line. The same `ScreenModule`
/// describes the screen to the flow (FlowKit) and to the screen process
/// (ScreenKit's hosts take it too).
public protocol CardScreen: ScreenModule where State == CardState, Output == CardOutput {}

extension CardScreen {
    /// A form card, for `flowd describe`.
    public static var exampleState: CardState? { CardState.example }
    /// Every `CardOutput` case, for `flowd describe`.
    public static var exampleOutputs: [CardOutput] { CardOutput.examples }

    /// A card sends a press of a button it shows, and text only when it has a field: anything else
    /// (`flowctl inject`, a buggy host) is refused rather than taken for another button.
    public static var refusesOutputs: Bool { true }

    /// What `refusesOutputs` asks: a button the card shows, text only with a field.
    public static func refusal(of output: CardOutput, in card: CardState) -> String? {
        switch output {
        case .didPressButton(let index) where !card.buttons.indices.contains(index):
            let shown = card.buttons.isEmpty ? "no buttons"
                : "\(card.buttons.count) button\(card.buttons.count == 1 ? "" : "s") (index 0 to \(card.buttons.count - 1): "
                    + card.buttons.map { "'\($0)'" }.joined(separator: ", ") + ")"
            return "'\(card.title)' shows \(shown); there is no button \(index)"
        case .didEnterText where card.field == nil:
            return "'\(card.title)' has no text field"
        default:
            return nil
        }
    }
}

extension CardState {
    /// A card with every field set (the contract's example).
    public static let example = CardState(title: "Your name", body: "Shown on your profile.", buttons: ["Save", "Cancel"], field: "Name", text: "Ann")
}

extension CardOutput {
    /// One example of every case (a test checks that none is missing).
    public static let examples: [CardOutput] = [.didPressButton(index: 0), .didEnterText(text: "Ann")]
}

/// Every card kind the demo apps use.
public var allCardScreens: [any CardScreen.Type] {
    [
    TutorialScreen.self, ItemScreen.self, MenuScreen.self, ProfileScreen.self, BusinessScreen.self, SummaryScreen.self,
    StudentListScreen.self, NameEditorScreen.self, AgeEditorScreen.self, DirectoryListScreen.self,
    DirectoryDetailScreen.self, LoginScreen.self, LoginSuccessScreen.self,
    TillScreen.self, CustomerScreen.self, CustomerPayScreen.self,
    ]
}

/// The launcher's menu.
public enum MenuScreen: CardScreen { public static let kind = "menu" }
/// A personal profile form (name).
public enum ProfileScreen: CardScreen { public static let kind = "profile" }
/// A business profile form (company).
public enum BusinessScreen: CardScreen { public static let kind = "business" }
/// A profile's summary.
public enum SummaryScreen: CardScreen { public static let kind = "summary" }
/// The list of students.
public enum StudentListScreen: CardScreen { public static let kind = "students" }
/// Editing a student's name.
public enum NameEditorScreen: CardScreen { public static let kind = "student-name" }
/// Editing a student's age.
public enum AgeEditorScreen: CardScreen { public static let kind = "student-age" }
/// A directory list (contacts, events).
public enum DirectoryListScreen: CardScreen { public static let kind = "directory" }
/// A directory entry with links to the other directory.
public enum DirectoryDetailScreen: CardScreen { public static let kind = "directory-detail" }
/// The login form; also implemented in Python (scripts/screens/login_screen.py).
public enum LoginScreen: CardScreen { public static let kind = "login" }
/// Shown after a successful login.
public enum LoginSuccessScreen: CardScreen { public static let kind = "login-success" }
