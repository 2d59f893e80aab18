import FlowKit

/// One tab of the contacts-and-events app: a list, and details pushed on the
/// tab's own stack. A detail's links are entries of the other directory; the
/// flow reports them as outputs for the parent to open across tabs.
public final class DirectoryFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public enum Output: Sendable, Equatable {
        case openLinked(String)
        case close
    }

    let title: String
    let entries: [String: [String]]
    private var flow: FlowContext<DirectoryFlow>?
    /// The details pushed, oldest first (those the user went back from are no longer placed).
    private var details: [(name: String, screen: Screen<DirectoryDetailScreen>)] = []

    /// The entry whose detail is on top of this tab's stack, if any.
    var topDetail: String? { details.last { $0.screen.isPlaced }?.name }

    public init(_ title: String, _ entries: [String: [String]]) {
        self.title = title
        self.entries = entries
    }

    public func start(_ flow: FlowContext<DirectoryFlow>) {
        self.flow = flow
        let names = entries.keys.sorted()
        let list = flow.show(DirectoryListScreen.self, CardState(title: title, body: "\(names.count) entries", buttons: names + ["Close"]))
        list.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index < names.count { showDetail(names[index]) } else { flow.emit(.close) }
        }
    }

    /// Pushes the detail of `name` on this tab's stack (the parent calls this for links from the other tab).
    public func showDetail(_ name: String) {
        guard let flow, flow.isRunning else { return }
        let links = entries[name] ?? []
        let detail = flow.show(
            DirectoryDetailScreen.self,
            CardState(title: name, body: "In \(title). Linked: \(links.joined(separator: ", "))", buttons: links.map { "Open \($0)" }),
            .pushed(in: flow.context))
        details.removeAll { !$0.screen.isPlaced }
        details.append((name, detail))
        detail.onOutput { output in
            guard case .didPressButton(let index) = output, links.indices.contains(index) else { return }
            flow.emit(.openLinked(links[index]))
        }
    }
}

/// A tab bar with two stacks, contacts and events: a contact's detail opens
/// an event's detail in the events tab and selects it, and vice versa.
/// "Close" on either list finishes the flow with "closed"; closing the modal
/// from the UI (which ends both tabs' flows) finishes it with "modal closed
/// by the user".
public final class ContactsAndEventsFlow: Flow {
    public typealias RequiredContext = Presenter
    public typealias Result = String

    private var bar: TabBar?
    private let contacts = DirectoryFlow("Contacts", ["Ann": ["Party"], "Bob": ["Meeting", "Party"]])
    private let events = DirectoryFlow("Events", ["Party": ["Ann", "Bob"], "Meeting": ["Bob"]])

    public init() {}

    public func start(_ flow: FlowContext<ContactsAndEventsFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: 2).map { tab in
            tab.map { [unowned self] bar in
                self.bar = bar
                return bar
            }
        }
        start(contacts, tabs[0].withNavigationEmbedding(), in: flow, other: events, otherTab: 1)
        start(events, tabs[1].withNavigationEmbedding(), in: flow, other: contacts, otherTab: 0)
    }

    private func start(
        _ tab: DirectoryFlow, _ placer: ScreenPlacer<NavigationStack>, in flow: FlowContext<ContactsAndEventsFlow>,
        other: DirectoryFlow, otherTab: Int
    ) {
        flow.start(tab, placer) { [unowned self] output in
            switch output {
            case .openLinked(let name):
                other.showDetail(name)
                if let bar { flow.selectTab(otherTab, of: bar) }
            case .close:
                flow.finish("closed")
            }
        } onFinish: { _, dismisser in
            // A directory never finishes; should one, its screens go with this flow's.
            dismisser.leave()
        } onEnd: { ending in
            // The person closed the modal: both tabs' flows end; the first ending finishes this flow.
            // A tab that failed or lost its screen says so in the result.
            guard flow.isRunning else { return }
            flow.finish(ending == .dismissedByUser ? "modal closed by the user" : "\(tab.title) \(ending)")
        }
    }
}

/// `contacts` and `events` select that tab (as the user would) and hand the rest to its flow.
extension ContactsAndEventsFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ContactsAndEventsFlow> {
        let tabs = ["contacts": (contacts, 0), "events": (events, 1)]
        guard let first = link.first else { return .here() }
        guard let (tab, index) = tabs[first] else { throw link.unknown(at: 0, "the directory has contacts and events") }
        return .into(tab, consuming: 1) { [unowned self] flow in
            if let bar { flow.selectTab(index, of: bar) }
        }
    }

    /// The tab the user is in.
    public func place(toward child: (any Flow)?) -> [String]? {
        guard let child = child as? DirectoryFlow else { return [] }
        return child === contacts ? ["contacts"] : child === events ? ["events"] : []
    }
}

/// `NAME` pushes that entry's detail on the tab's stack, as choosing it in the list does.
extension DirectoryFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<DirectoryFlow> {
        guard let name = link.first else { return .here() }
        guard entries[name] != nil else { throw link.unknown(at: 0, "\(title) has no entry \(name)") }
        return .here(consuming: 1) { [unowned self] _ in if topDetail != name { showDetail(name) } }
    }

    /// The entry whose detail is on top of the tab's stack.
    public func place(toward child: (any Flow)?) -> [String]? { topDetail.map { [$0] } ?? [] }
}
