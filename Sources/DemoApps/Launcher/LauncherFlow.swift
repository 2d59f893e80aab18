import FlowKit

/// The demo's root: a menu at the window root listing the apps. Choosing one
/// starts that app's flow as a sub-flow; when it finishes, the launcher
/// unwinds it as the entry says and shows the menu again. The last button
/// quits (the launcher finishes and flowd exits).
public final class LauncherFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = String

    /// How an entry's UI is unwound when its flow finishes.
    public enum Unwinding: String, Sendable {
        case dismissAnimated = "dismiss animated"
        case dismissWithoutAnimation = "dismiss without animation"
        case leaveOnStack = "leave on the stack"
    }

    /// The menu entries, in order.
    public static let entries: [String] = [
        "Onboarding tutorial",
        "Personal profile (dismiss animated)",
        "Business profile (dismiss without animation)",
        "Personal profile (leave on the stack)",
        "Student editor",
        "Contacts and events",
        "Log in",
        "Quit",
    ]

    private var status = "Choose a demo."
    private var menu: Screen<MenuScreen>?

    public init() {}

    public func start(_ flow: FlowContext<LauncherFlow>) {
        let menu = flow.show(MenuScreen.self, state())
        self.menu = menu
        menu.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            open(index, from: menu, in: flow)
        }
    }

    private func open(_ index: Int, from menu: Screen<MenuScreen>, in flow: FlowContext<LauncherFlow>) {
        let stack = flow.context
        switch index {
        case 0:
            flow.start(OnboardingFlow(), .pushed(in: stack)) { [unowned self] event in
                switch event {
                case .output(.didSkip):
                    // Skipping ends the tutorial early: terminated, its screens unwound.
                    report("Tutorial skipped")
                    for child in flow.runningSubFlows { flow.terminate(child, animated: true) }
                case .finished(_, let dismisser):
                    report("Tutorial completed")
                    dismisser.dismiss(animated: true)
                case .ended(let ending):
                    report("Tutorial \(ending)")
                }
            }
        case 1, 3:
            let unwinding: Unwinding = index == 1 ? .dismissAnimated : .leaveOnStack
            flow.start(PersonalProfileFlow(), .pushed(in: stack)) { [unowned self] event in
                finished(event, label: "Personal profile", unwinding: unwinding) { "saved \($0.name)" }
            }
        case 2:
            flow.start(BusinessProfileFlow(), .pushed(in: stack)) { [unowned self] event in
                finished(event, label: "Business profile", unwinding: .dismissWithoutAnimation) { "\($0.company ?? "") owned by \($0.name)" }
            }
        case 4:
            flow.start(StudentsFlow(), .pushed(in: stack)) { [unowned self] event in
                finished(event, label: "Student editor", unwinding: .dismissAnimated) { students in
                    students.map { "\($0.name) \($0.age)" }.joined(separator: ", ")
                }
            }
        case 5:
            flow.start(ContactsAndEventsFlow(), .presented(on: menu)) { [unowned self] event in
                finished(event, label: "Contacts and events", unwinding: .dismissAnimated) { $0 }
            }
        case 6:
            flow.start(LoginFlow(), presented(on: menu).withNavigationEmbedding()) { [unowned self] event in
                finished(event, label: "Login", unwinding: .dismissAnimated) { result in
                    switch result {
                    case .loggedIn(let name): "logged in as \(name)"
                    case .cancelled: "cancelled"
                    }
                }
            }
        default:
            flow.finish(status)
        }
    }

    /// Unwinds a finished app as its entry says and shows what it returned.
    private func finished<F: Flow>(
        _ event: FlowEvent<F>, label: String, unwinding: Unwinding, describe: (F.Result) -> String
    ) {
        switch event {
        case .output:
            break
        case .finished(let result, let dismisser):
            report("\(label): \(describe(result)) (\(unwinding.rawValue))")
            switch unwinding {
            case .dismissAnimated: dismisser.dismiss(animated: true)
            case .dismissWithoutAnimation: dismisser.dismiss(animated: false)
            case .leaveOnStack: dismisser.leave()
            }
        case .ended(let ending):
            report("\(label): \(ending)")
        }
    }

    private func report(_ message: String) {
        status = message
        menu?.update(state())
    }

    private func state() -> CardState {
        CardState(title: "flowd demos", body: status, buttons: Self.entries)
    }
}
