import FlowKit

/// A login form in a new modal stack (the launcher presents it with
/// `.presented(on:).withNavigationEmbedding()`). "Log in" checks the name
/// with asynchronous work (`flow.run`, 300 ms, standing in for an identity
/// service) and, should the check take over 2 s, says so with a timer
/// (`flow.after`); an accepted name pushes a success screen, whose
/// "Continue" finishes with the user name. The check's answer is an input,
/// journaled: a restored daemon replays it instead of checking again.
public final class LoginFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public enum Result: Sendable, Equatable {
        case loggedIn(String)
        case cancelled
    }

    /// What the identity service answers.
    public enum Verdict: Codable, Sendable, Equatable {
        case accepted
        case refused(reason: String)
    }

    /// How long the check takes, in milliseconds.
    public static let checkMilliseconds: UInt64 = 300
    /// After how long the form says the check is slow, in milliseconds.
    public static let slowCheckMilliseconds: UInt64 = 2_000

    private var username = ""
    private var message = "Log in to continue."
    /// The check in progress: a second "Log in" waits for it.
    private var checking: RequestID?

    public init() {}

    public func start(_ flow: FlowContext<LoginFlow>) {
        let form = flow.show(LoginScreen.self, state())
        form.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let text):
                username = text.trimmingSpaces
                if checking == nil { message = "Log in to continue." }
                form.update(state())
            case .didPressButton(index: 0):
                guard checking == nil else { return }
                guard !username.isEmpty else {
                    message = "Enter a user name first."
                    form.update(state())
                    return
                }
                check(username, form: form, in: flow)
            case .didPressButton:
                // Finishing cancels the check and its timer.
                flow.finish(.cancelled)
            }
        }
    }

    private func check(_ name: String, form: Screen<LoginScreen>, in flow: FlowContext<LoginFlow>) {
        message = "Checking \(name)…"
        form.update(state())
        let slow = flow.after(milliseconds: Self.slowCheckMilliseconds) { [unowned self] in
            message = "Still checking \(name)…"
            form.update(state())
        }
        checking = flow.run { try await Self.checkCredentials(name) } then: { [unowned self] result in
            checking = nil
            flow.cancel(slow)
            switch result {
            case .success(.accepted):
                message = "Log in to continue."
                form.update(state())
                let success = flow.show(
                    LoginSuccessScreen.self, CardState(title: "Welcome, \(name)", body: "You are logged in.", buttons: ["Continue"]),
                    .pushed(in: flow.context))
                success.onOutput { _ in flow.finish(.loggedIn(name)) }
            case .success(.refused(let reason)):
                message = reason
                form.update(state())
            case .failure(let error):
                message = "The check failed (\(error)); try again."
                form.update(state())
            }
        }
    }

    /// Stands in for an identity service: answers after `checkMilliseconds`; refuses `root`.
    /// Runs off the daemon's loop; it gets the name as a value and touches nothing of the flow.
    static func checkCredentials(_ name: String) async throws -> Verdict {
        try await Task.sleep(for: .milliseconds(checkMilliseconds))
        return name.lowercased() == "root" ? .refused(reason: "root may not log in here.") : .accepted
    }

    private func state() -> CardState {
        CardState(title: "Log in", body: message, buttons: ["Log in", "Cancel"], field: "User name", text: username)
    }
}

/// `login` is the login form, in the modal the launcher presents; the link ends there (the form's
/// screens may be spawned processes: the link starts the flow, the daemon places its screens).
extension LoginFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<LoginFlow> {
        guard link.isEmpty else { throw link.unknown(at: 0, "the login ends at its form") }
        return .here()
    }
}
