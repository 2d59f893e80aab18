import FlowKit

/// A person's profile, as the profile flows pass it around.
public struct Profile: Sendable, Equatable {
    public var name: String
    public var company: String?
}

/// Asks for a name, then shows a summary; "Done" finishes with the profile.
public final class PersonalProfileFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Profile

    private var name: String
    /// Which place this profile is for links (the launcher's two personal-profile entries differ).
    public let linkID: String
    /// What the summary says once "Done" finished the flow, for a parent that leaves the screens in
    /// place (nil: the summary is not changed, the parent dismisses it).
    public let finishedNote: String?

    public init(name: String = "Ada", linkID: String = "", finishedNote: String? = nil) {
        self.name = name
        self.linkID = linkID
        self.finishedNote = finishedNote
    }

    public func start(_ flow: FlowContext<PersonalProfileFlow>) {
        let form = flow.show(ProfileScreen.self, state())
        form.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let text):
                name = text
                form.update(state())
            case .didPressButton:
                let summary = flow.show(
                    SummaryScreen.self, CardState(title: "Profile of \(name)", body: "Personal profile saved.", buttons: ["Done"]),
                    .pushed(in: flow.context))
                summary.onOutput { [unowned self] _ in
                    // Left in place, the summary says the flow finished, and offers nothing more to press.
                    if let finishedNote { summary.update(CardState(title: "Profile of \(name)", body: finishedNote, buttons: [])) }
                    flow.finish(Profile(name: name))
                }
            }
        }
    }

    private func state() -> CardState {
        CardState(title: "Personal profile", body: "Who are you?", buttons: ["Save"], field: "Name", text: name)
    }
}

/// A business profile whose owner is entered with the personal profile flow,
/// started as a sub-flow; its screens are dismissed with animation when it
/// finishes, and the business form shows the owner.
public final class BusinessProfileFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Profile

    private var company = "Acme"
    private var owner: Profile?
    private var form: Screen<BusinessScreen>?

    public init() {}

    public func start(_ flow: FlowContext<BusinessProfileFlow>) {
        let form = flow.show(BusinessScreen.self, state())
        self.form = form
        form.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let text):
                company = text
                form.update(state())
            case .didPressButton(index: 0):
                startOwner(PersonalProfileFlow(), in: flow)
            case .didPressButton:
                flow.finish(Profile(name: owner?.name ?? "nobody", company: company))
            }
        }
    }

    /// The owner's profile, pushed on the business form's stack.
    private func startOwner(_ profile: PersonalProfileFlow, in flow: FlowContext<BusinessProfileFlow>) {
        flow.start(profile, .pushed(in: flow.context)) { [unowned self] profile, dismisser in
            owner = profile
            form?.update(state())
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] ending in
            // Back from the owner's form keeps the business form as it was; anything else is shown.
            guard ending != .dismissedByUser else { return }
            form?.update(state(note: "Owner's profile \(ending)."))
        }
    }

    private func state(note: String? = nil) -> CardState {
        CardState(
            title: "Business profile", body: "Owner: \(owner?.name ?? "not set")" + (note.map { " \($0)" } ?? ""),
            buttons: ["Set owner's profile", "Finish"], field: "Company", text: company)
    }
}

/// The personal profile is a leaf: its link (`profile`, `profile/kept`, `profile/business/owner`)
/// ends at its form.
extension PersonalProfileFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<PersonalProfileFlow> {
        guard link.isEmpty else { throw link.unknown(at: 0, "the personal profile ends at its form") }
        return .here()
    }
}

/// `owner` opens the owner's profile inside the business profile, as "Set owner's profile" does.
extension BusinessProfileFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<BusinessProfileFlow> {
        switch link.first {
        case nil: return .here()
        case "owner": return .start(PersonalProfileFlow(), consuming: 1) { [unowned self] flow, owner in startOwner(owner, in: flow) }
        default: throw link.unknown(at: 0, "the business profile has only owner")
        }
    }

    /// The owner's profile, when it runs.
    public func place(toward child: (any Flow)?) -> [String]? { child is PersonalProfileFlow ? ["owner"] : [] }
}
