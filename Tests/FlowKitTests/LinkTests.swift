import FlowKit
import FlowKitTesting
import FlowdTestSupport
import Testing

/// Link text: parsing, limits, percent-coding; every bad link is a typed error, never a trap.
@Suite struct LinkParsingTests {
    @Test func segmentsQueryAndCanonicalText() throws {
        let link = try Link(parsing: "directory/events/Party?x=1&from=notif%20center&flag")
        #expect(link.segments == ["directory", "events", "Party"])
        #expect(link.query == [.init("x", "1"), .init("from", "notif center"), .init("flag")])
        #expect(link.value(of: "from") == "notif center")
        #expect(link.description == "directory/events/Party?x=1&from=notif%20center&flag")
        let encoded = try Link(parsing: "students/Zo%C3%AB%2Fx/age")
        #expect(encoded.segments == ["students", "Zoë/x", "age"])
        #expect(encoded.description == "students/Zo%C3%AB%2Fx/age")
        #expect(try Link(parsing: encoded.description) == encoded)
        #expect(try Link(["a b", "c=d"], query: [.init("k", "v&w")]).description == "a%20b/c%3Dd?k=v%26w")
    }

    @Test func sixteenQueryItemsAreTheLimit() throws {
        let items = (1...Link.maxQueryItems).map { "q\($0)=\($0)" }
        #expect(Link.maxQueryItems == 16)
        #expect(try Link(parsing: "a?" + items.joined(separator: "&")).query.count == 16)
        #expect(throws: LinkError.self) { try Link(["a"], query: (1...17).map { .init("q\($0)", "1") }) }
    }

    @Test func everyBadLinkHasItsCode() {
        let cases: [(String, LinkError.Code, Int?)] = [
            ("", .empty, nil),
            (String(repeating: "a", count: Link.maxBytes + 1), .tooLong, nil),
            (Array(repeating: "a", count: Link.maxSegments + 1).joined(separator: "/"), .tooLong, nil),
            ("a/" + String(repeating: "b", count: Link.maxSegmentBytes + 1), .tooLong, 1),
            // 17 query items, one more than protocol.md §21 allows (16 parse: below).
            ("a?" + (1...Link.maxQueryItems + 1).map { "q\($0)=1" }.joined(separator: "&"), .tooLong, nil),
            ("a/b c", .invalidCharacter, 1), ("a/b#c", .invalidCharacter, 1), ("a/é", .invalidCharacter, 1), ("a/%00", .invalidCharacter, 1),
            ("a/%zz", .invalidPercentEncoding, 1), ("a/%4", .invalidPercentEncoding, 1), ("a%", .invalidPercentEncoding, 0),
            ("a/%C3", .notUTF8, 1), ("%FF", .notUTF8, 0),
            ("a//b", .emptySegment, 1), ("/a", .emptySegment, 0), ("a/", .emptySegment, 1), ("?x=1", .emptySegment, 0),
            ("a?", .invalidQuery, nil), ("a?=1", .invalidQuery, nil), ("a?x=1&&y", .invalidQuery, nil),
            ("a?x=1=2", .invalidCharacter, nil),
        ]
        for (text, code, segment) in cases {
            do {
                let link = try Link(parsing: text)
                Issue.record("\(text) parsed as \(link)")
            } catch {
                #expect(error.code == code, "\(text): \(error)")
                #expect(error.segment == segment, "\(text): \(error)")
            }
        }
        #expect(throws: LinkError.self) { try Link([]) }
        #expect(throws: LinkError.self) { try Link(["a", ""]) }
        #expect(throws: LinkError.self) { try Link(["a\n"]) }
    }

    @Test func randomTextNeverTrapsAndRoundTrips() {
        var generator = SeededGenerator(seed: 13)
        let alphabet = Array("ab/?=&%2Fc3é /#\u{0}".unicodeScalars)
        var parsed = 0
        for _ in 0..<20_000 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
            guard let link = try? Link(parsing: text) else { continue }
            parsed += 1
            #expect((try? Link(parsing: link.description)) == link, "\(text)")
        }
        #expect(parsed > 100)
    }
}

// MARK: flows for the runtime's link tests

enum PageScreen: ScreenModule {
    static let kind = "page"
    struct State: Codable, Equatable { var title: String }
    enum Output: Codable, Equatable { case done, open(String) }
}

/// A root with a list of items; each item may open a child item or a detail page.
final class ItemsRoot: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    var results: [String] = []
    var endings: [FlowEnding] = []

    func start(_ flow: FlowContext<ItemsRoot>) {
        flow.show(PageScreen.self, .init(title: "root")).onOutput { [unowned self] output in
            if case .open(let name) = output { open(ItemFlow(name), in: flow) }
        }
    }

    func open(_ item: ItemFlow, in flow: FlowContext<ItemsRoot>) {
        flow.start(item, .pushed(in: flow.context)) { [unowned self] result, dismisser in
            results.append(result)
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] ending in endings.append(ending) }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ItemsRoot> {
        switch link.first {
        case nil: return .here()
        case "item":
            guard link.remaining.count >= 2 else { throw link.unknown(at: 1, "an item needs a name") }
            let name = link.remaining[link.position + 1]
            return .start(ItemFlow(name), consuming: 2) { [unowned self] flow, item in open(item, in: flow) }
        case "refuse": throw link.refused("the root declines")
        default: throw link.unknown()
        }
    }
}

final class ItemFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    typealias Result = String
    let name: String
    init(_ name: String) { self.name = name }
    var linkID: String { name }

    func start(_ flow: FlowContext<ItemFlow>) {
        flow.show(PageScreen.self, .init(title: "item \(name)")).onOutput { [unowned self] output in
            switch output {
            case .done: flow.finish(name)
            case .open: openChild(ItemFlow("\(name)-child"), in: flow)
            }
        }
    }

    func openChild(_ child: ItemFlow, in flow: FlowContext<ItemFlow>) {
        flow.start(child, .pushed(in: flow.context)) { result, dismisser in dismisser.dismiss(animated: true) } onEnd: { _ in }
    }

    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ItemFlow> {
        switch link.first {
        case nil: return .here()
        case "detail": return .here(consuming: 1) { [unowned self] flow in flow.show(PageScreen.self, .init(title: "detail of \(name)"), .pushed(in: flow.context)) }
        case "child": return .start(ItemFlow("\(name)-child"), consuming: 1) { [unowned self] flow, child in openChild(child, in: flow) }
        case "deny": throw link.refused("\(name) denies")
        case "broken": return .start(ItemFlow("never"), consuming: 1) { _, _ in }
        default: throw link.unknown()
        }
    }
}

/// Opening links through nested flows: the tree, reuse, refusals that change nothing, results.
@Suite struct LinkOpeningTests {
    func launch(acknowledges: Bool = true) -> (FlowTester, ItemsRoot) {
        let tester = FlowTester(acknowledgesAutomatically: acknowledges)
        let root = ItemsRoot()
        tester.start(root, windowRoot.withNavigationEmbedding())
        return (tester, root)
    }

    func titles(_ tester: FlowTester) -> [String] {
        tester.screens(PageScreen.self).compactMap { tester.state(of: $0, as: PageScreen.self)?.title }
    }

    @Test func aLinkGoesThroughNestedFlowsAndBackWalksTheRealStack() throws {
        let (tester, _) = launch()
        let opened = try tester.open("item/x/child/detail")
        #expect(opened.started.map { tester.runtime.typeName(of: $0) } == ["ItemFlow", "ItemFlow"])
        #expect(opened.reused == [FlowID(rawValue: 1)])
        #expect(titles(tester) == ["root", "item x", "item x-child", "detail of x-child"])
        tester.expectSound()
        try tester.back()
        #expect(tester.state(of: try #require(tester.visibleScreen), as: PageScreen.self)?.title == "item x-child")
        try tester.back()
        #expect(tester.state(of: try #require(tester.visibleScreen), as: PageScreen.self)?.title == "item x")
        #expect(tester.runtime.liveFlowCount == 2)
    }

    @Test func theTreeEqualsTheTreeAfterAWalk() throws {
        let (walked, _) = launch()
        walked.send(.open("x"), from: PageScreen.self)
        walked.send(.open("x"), from: PageScreen.self)
        let (linked, _) = launch()
        try linked.open("item/x/child")
        #expect(linked.runtime.debugTree() == walked.runtime.debugTree())
    }

    @Test func refusalsDeepDownChangeNothing() throws {
        let (tester, _) = launch()
        try tester.open("item/x")
        tester.expectLinkRefused("item/x/child/deny", .refused)
        tester.expectLinkRefused("item/y/deny", .refused)
        tester.expectLinkRefused("item/x/bogus", .unknownLink)
        tester.expectLinkRefused("item/x/detail/extra", .unknownLink)
        tester.expectLinkRefused("item", .unknownLink)
        tester.expectLinkRefused("refuse", .refused)
        do {
            try tester.open("item/x/child/nope")
            Issue.record("opened")
        } catch {
            #expect(error.code == .unknownLink)
            #expect(error.segment == 3)
            #expect(error.message.contains("'nope'"))
        }
        #expect(throws: LinkError.self) { try tester.runtime.canOpen(Link(parsing: "item/x/deny")) }
        try tester.runtime.canOpen(Link(parsing: "item/z/child"))
        #expect(tester.runtime.liveFlowCount == 2, "canOpen starts nothing")
    }

    @Test func flowsOpenAlongThePathAreReusedAndWhatIsAboveIsUnwound() throws {
        let (tester, root) = launch()
        let first = try tester.open("item/x/child")
        let x = try #require(first.started.first)
        let second = try tester.open("item/x/detail")
        #expect(second.reused == [FlowID(rawValue: 1), x])
        #expect(second.unwound == [first.started[1]], "the child above item x is unwound")
        #expect(second.started.isEmpty)
        #expect(titles(tester) == ["root", "item x", "detail of x"])
        let third = try tester.open("item/y")
        #expect(third.unwound == [x])
        #expect(titles(tester) == ["root", "item y"])
        #expect(root.endings.isEmpty, "the parent is not told of what a link unwinds, as after flow.terminate")
        tester.expectSound()
    }

    @Test func resultsOfAFlowOpenedByLinkReachItsParent() throws {
        let (tester, root) = launch()
        try tester.open("item/x")
        tester.send(.done, from: PageScreen.self)
        #expect(root.results == ["x"])
        #expect(titles(tester) == ["root"])
        try tester.open("item/z/detail")
        try tester.back()
        try tester.back()
        #expect(root.endings == [.dismissedByUser])
    }

    @Test func aPlanThatDoesNotStartItsFlowFailsAndUnwindsWhatTheLinkStarted() throws {
        let (tester, _) = launch()
        let before = tester.runtime.debugTree()
        do {
            try tester.open("item/x/broken")
            Issue.record("opened")
        } catch {
            #expect(error.code == .failed)
        }
        tester.settle()
        #expect(tester.runtime.debugTree() == before)
    }

    @Test func busyWhileADismissalIsInFlightAndUnavailableWithoutARoot() throws {
        let (tester, _) = launch(acknowledges: false)
        try tester.open("item/x")
        try tester.back()
        tester.expectLinkRefused("item/y", .busy)
        tester.transport.acknowledgeAll()
        try tester.open("item/y")
        FlowTester().expectLinkRefused("item/y", .unavailable)
    }

    @Test func aLinkIsAnInput() throws {
        let (tester, _) = launch()
        let link = try Link(parsing: "item/x/child")
        try tester.runtime.apply(.openLink(link))
        #expect(tester.runtime.hasEffects)
        tester.settle()
        #expect(titles(tester) == ["root", "item x", "item x-child"])
        #expect(throws: FlowKitError.self) { try tester.runtime.apply(.openLink(Link(parsing: "nope"))) }
        let unknown = try Link(parsing: "nope")
        do throws(FlowKitError) {
            try tester.runtime.apply(.openLink(unknown))
        } catch {
            #expect(error.code == .unknownLink)
        }
    }
}
