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
    /// What the entries that leave their screens on the stack left there, oldest first: the screens
    /// stay (the launcher owns them) until the user walks back over them or `menu` is opened.
    private var kept: [Dismisser] = []

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
        switch index {
        case 0:
            startTutorial(OnboardingFlow(), in: flow)
        case 1:
            startPersonalProfile(PersonalProfileFlow(), unwinding: .dismissAnimated, in: flow)
        case 3:
            startPersonalProfile(PersonalProfileFlow(linkID: Self.keptProfile, finishedNote: Self.keptNote), unwinding: .leaveOnStack, in: flow)
        case 2:
            startBusinessProfile(BusinessProfileFlow(), in: flow)
        case 4:
            startStudents(StudentsFlow(), in: flow)
        case 5:
            startDirectory(ContactsAndEventsFlow(), from: menu, in: flow)
        case 6:
            startLogin(LoginFlow(), from: menu, in: flow)
        default:
            flow.finish(status)
        }
    }

    private func startTutorial(_ app: OnboardingFlow, in flow: FlowContext<LauncherFlow>) {
        var tutorial: FlowID?
        tutorial = flow.start(app, .pushed(in: flow.context)) { [unowned self] (output: OnboardingFlow.Output) in
            // Skipping ends the tutorial early: terminated from its own handler, its screens unwound.
            guard case .didSkip = output, let tutorial else { return }
            report("Tutorial skipped")
            flow.terminate(tutorial, animated: true)
        } onFinish: { [unowned self] _, dismisser in
            report("Tutorial completed")
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] ending in
            report("Tutorial \(ending)")
        }
    }

    /// The personal profile's `linkID` when its entry leaves it on the stack (`profile/kept`), so that
    /// a link to one of the two entries never continues in the other.
    static let keptProfile = "kept"
    /// What the kept profile's summary says once it finished (its screens stay: the launcher leaves them).
    public static let keptNote = "Saved, and the profile finished: the launcher left its screens on the stack. Go back to the menu."

    private func startPersonalProfile(_ app: PersonalProfileFlow, unwinding: Unwinding, in flow: FlowContext<LauncherFlow>) {
        open(app, .pushed(in: flow.context), in: flow, label: "Personal profile", unwinding: unwinding) { "saved \($0.name)" }
    }

    private func startBusinessProfile(_ app: BusinessProfileFlow, in flow: FlowContext<LauncherFlow>) {
        open(app, .pushed(in: flow.context), in: flow, label: "Business profile", unwinding: .dismissWithoutAnimation) {
            "\($0.company ?? "") owned by \($0.name)"
        }
    }

    private func startLogin(_ app: LoginFlow, from menu: Screen<MenuScreen>, in flow: FlowContext<LauncherFlow>) {
        open(app, presented(on: menu).withNavigationEmbedding(), in: flow, label: "Login", unwinding: .dismissAnimated) { result in
            switch result {
            case .loggedIn(let name): "logged in as \(name)"
            case .cancelled: "cancelled"
            }
        }
    }

    private func startStudents(_ app: StudentsFlow, in flow: FlowContext<LauncherFlow>) {
        open(app, .pushed(in: flow.context), in: flow, label: "Student editor", unwinding: .dismissAnimated) { students in
            students.map { "\($0.name) \($0.age)" }.joined(separator: ", ")
        }
    }

    private func startDirectory(_ app: ContactsAndEventsFlow, from menu: Screen<MenuScreen>, in flow: FlowContext<LauncherFlow>) {
        open(app, .presented(on: menu), in: flow, label: "Contacts and events", unwinding: .dismissAnimated) { $0 }
    }

    /// Starts an app without outputs; when it finishes, unwinds it as its entry says and shows what it
    /// returned; when it ends without a result (a failure included), shows how.
    private func open<F: Flow>(
        _ app: F, _ placer: ScreenPlacer<F.RequiredContext>, in flow: FlowContext<LauncherFlow>, label: String,
        unwinding: Unwinding, describe: @escaping (F.Result) -> String
    ) where F.Output == Never {
        flow.start(app, placer) { [unowned self] result, dismisser in
            report("\(label): \(describe(result)) (\(unwinding.rawValue))")
            switch unwinding {
            case .dismissAnimated: dismisser.dismiss(animated: true)
            case .dismissWithoutAnimation: dismisser.dismiss(animated: false)
            case .leaveOnStack: kept.append(dismisser)   // left on the stack until the menu link (`menu`) takes it away
            }
        } onEnd: { [unowned self] ending in
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

/// Links: the first segment names the app, started exactly as its menu button starts it, and the
/// rest goes to the app's flow (docs/demo.md, Links):
///
/// - `tutorial`, `students`, `directory`, `login`: the entries of the same names;
/// - `profile` is "Personal profile (dismiss animated)", `profile/kept` "Personal profile (leave on the
///   stack)", `profile/business` "Business profile" (its `owner` the owner's profile inside it);
/// - `menu` is the launcher's own place: every app running is unwound without animation and without
///   its result (as a terminated flow; the status line keeps the last report), the screens a finished
///   app left on the stack are dismissed, and the menu is visible.
extension LauncherFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<LauncherFlow> {
        switch link.first {
        case nil:
            return .here { [unowned self] _ in dismissKept() }
        case "menu":
            return .here(consuming: 1) { [unowned self] _ in dismissKept() }
        case "tutorial":
            return .start(OnboardingFlow(), consuming: 1) { [unowned self] flow, app in startTutorial(app, in: flow) }
        case "profile":
            switch link.remaining.dropFirst().first {
            case "business":
                return .start(BusinessProfileFlow(), consuming: 2) { [unowned self] flow, app in startBusinessProfile(app, in: flow) }
            case Self.keptProfile:
                return .start(PersonalProfileFlow(linkID: Self.keptProfile, finishedNote: Self.keptNote), consuming: 2) { [unowned self] flow, app in
                    startPersonalProfile(app, unwinding: .leaveOnStack, in: flow)
                }
            default:
                return .start(PersonalProfileFlow(), consuming: 1) { [unowned self] flow, app in
                    startPersonalProfile(app, unwinding: .dismissAnimated, in: flow)
                }
            }
        case "students":
            return .start(StudentsFlow(), consuming: 1) { [unowned self] flow, app in startStudents(app, in: flow) }
        case "directory":
            guard let menu else { throw link.refused("the menu is not shown yet") }
            return .start(ContactsAndEventsFlow(), consuming: 1) { [unowned self] flow, app in startDirectory(app, from: menu, in: flow) }
        case "login":
            guard let menu else { throw link.refused("the menu is not shown yet") }
            return .start(LoginFlow(), consuming: 1) { [unowned self] flow, app in startLogin(app, from: menu, in: flow) }
        default:
            throw link.unknown(at: 0, "the launcher has menu and the apps tutorial, profile, profile/kept, profile/business, students, directory and login")
        }
    }

    /// The app running, by the link that starts it; `menu` otherwise (also while screens a finished
    /// app left on the stack are on top: no link names them, and the menu is the nearest place).
    public func place(toward child: (any Flow)?) -> [String]? {
        switch child {
        case is OnboardingFlow: ["tutorial"]
        case let profile as PersonalProfileFlow: profile.linkID == Self.keptProfile ? ["profile", Self.keptProfile] : ["profile"]
        case is BusinessProfileFlow: ["profile", "business"]
        case is StudentsFlow: ["students"]
        case is ContactsAndEventsFlow: ["directory"]
        case is LoginFlow: ["login"]
        default: ["menu"]
        }
    }

    /// The status line (how the last app ended): a checkpoint of a long session keeps it (docs/restore.md).
    public var memento: String { status }

    public func restore(_ memento: String) { report(memento) }

    /// Dismisses what finished apps left on the stack, newest first, without animation.
    private func dismissKept() {
        for dismisser in kept.reversed() { dismisser.dismiss(animated: false) }
        kept.removeAll()
    }
}
