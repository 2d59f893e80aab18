import FlowKit

/// A login form in a new modal stack (the launcher presents it with
/// `.presented(on:).withNavigationEmbedding()`); a successful login pushes a
/// success screen, whose "Continue" finishes with the user name.
public final class LoginFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public enum Result: Sendable, Equatable {
        case loggedIn(String)
        case cancelled
    }

    private var username = ""

    public init() {}

    public func start(_ flow: FlowContext<LoginFlow>) {
        let form = flow.show(LoginScreen.self, state())
        form.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let text):
                username = text.trimmingCharacters(in: .whitespaces)
                form.update(state())
            case .didPressButton(index: 0):
                guard !username.isEmpty else {
                    form.update(state(message: "Enter a user name first."))
                    return
                }
                let success = flow.show(
                    LoginSuccessScreen.self, CardState(title: "Welcome, \(username)", body: "You are logged in.", buttons: ["Continue"]),
                    .pushed(in: flow.context))
                success.onOutput { [unowned self] _ in flow.finish(.loggedIn(username)) }
            case .didPressButton:
                flow.finish(.cancelled)
            }
        }
    }

    private func state(message: String = "Log in to continue.") -> CardState {
        CardState(title: "Log in", body: message, buttons: ["Log in", "Cancel"], field: "User name", text: username)
    }
}
