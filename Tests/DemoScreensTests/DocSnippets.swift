// The Swift snippets of docs/flows.md, compiled (and run) by the test suite so that the page stays
// true. Each region between `// snippet: NAME` and `// end: NAME` must equal the page's block that
// follows `<!-- snippet: NAME -->` (DocSnippetsTests checks it, line for line).
import DemoApps
import Foundation
import FlowKit
import FlowKitTesting
import Testing

// snippet: handlers
final class CounterFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Result = Int
    private var count = 0

    func start(_ flow: FlowContext<CounterFlow>) {
        let screen = flow.show(ItemScreen.self, CardState(title: "0", buttons: ["+1", "Done"]))
        // One handler per screen: a second onOutput replaces this one.
        screen.onOutput { output in
            guard case .didPressButton(let index) = output else { return }
            if index == 1 { return flow.finish(self.count) }
            self.count += 1  // a strong self is fine: the handler goes when the flow ends
            screen.update(CardState(title: "\(self.count)", buttons: ["+1", "Done"]))
        }
    }
}
// end: handlers

// snippet: dismisser-timing
final class CountingHomeFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Output = String
    private(set) var log: [String] = []

    func start(_ flow: FlowContext<CountingHomeFlow>) {
        let home = flow.show(ItemScreen.self, CardState(title: "Home", buttons: ["Count"]))
        home.onOutput { _ in
            flow.start(CounterFlow(), .pushed(in: flow.context)) { count, dismisser in
                dismisser.dismiss(animated: true) { report in
                    // Later, once every screen acknowledged its Dismiss (or timed out, or lost its host).
                    self.log.append("\(report.outcomes.count) screen(s) gone")
                }
                // At once: the model no longer holds the counter's screen; home is on top again.
                self.log.append("counted \(count)")
                flow.emit("counted \(count)")
            } onEnd: { _ in }
        }
    }
}
// end: dismisser-timing

@Suite("docs/flows.md's snippets run as the page says")
struct DocSnippetRuns {
    // snippet: tester-reference
    @Test func aDismissalWaitsForItsAcks() throws {
        let tester = FlowTester(acknowledgesAutomatically: false)  // dismissals wait for acknowledge(_:)
        let home = tester.start(CountingHomeFlow(), windowRoot.withNavigationEmbedding())
        let homeScreen = try #require(tester.expectVisible(ItemScreen.self))  // ScreenID?: nil, and a failure, if not
        let counter = try #require(tester.expectPush(
            when: homeScreen, of: ItemScreen.self, sends: .didPressButton(index: 0), pushes: ItemScreen.self))
        let stack = try #require(tester.placement(of: counter)?.stack)
        tester.expectStack(stack, holds: ["item", "item"])  // returns nothing; a mismatch is a failure
        tester.send(.didPressButton(index: 1), from: ItemScreen.self)  // Done: the counter finishes with 0
        tester.expectOutputs(home, ["counted 0"])
        #expect(tester.visibleScreen == homeScreen)  // the model changed at once...
        #expect(tester.transport.unacknowledged == [counter])  // ...the Dismiss awaits its ack
        tester.transport.acknowledge(counter)
        #expect(throws: FlowKitError.self) { try tester.closeModal(from: homeScreen) }  // not in a modal: throws
        tester.expectSound()
    }
    // end: tester-reference

    @Test func theDismisserChangesTheModelAtOnceAndCompletesAfterTheAck() throws {
        let tester = FlowTester(acknowledgesAutomatically: false)
        let flow = CountingHomeFlow()
        _ = tester.start(flow, windowRoot.withNavigationEmbedding())
        tester.send(.didPressButton(index: 0), from: ItemScreen.self)
        let counter = try #require(tester.screen(ItemScreen.self))
        try tester.send(.didPressButton(index: 0), from: counter, as: ItemScreen.self)
        try tester.send(.didPressButton(index: 1), from: counter, as: ItemScreen.self)
        #expect(flow.log == ["counted 1"])
        tester.transport.acknowledge(counter)
        tester.settle()
        #expect(flow.log == ["counted 1", "1 screen(s) gone"])
    }
}

// snippet: links
/// `Dune` opens that book over the shelf, `Dune/notes` its notes, as the user's taps would.
final class ShelfFlow: Flow, LinkHandling {  // Output and Result left out: Never and Void
    typealias RequiredContext = NavigationStack
    let books = ["Dune", "Emma"]

    func start(_ flow: FlowContext<ShelfFlow>) {
        let list = flow.show(ItemScreen.self, CardState(title: "Shelf", buttons: books))
        list.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output, books.indices.contains(index) else { return }
            open(BookFlow(books[index]), in: flow)
        }
    }

    private func open(_ book: BookFlow, in flow: FlowContext<ShelfFlow>) {
        flow.start(book, .pushed(in: flow.context)) { _, dismisser in dismisser.dismiss(animated: true) } onEnd: { _ in }
    }

    // link.first (String?) is this flow's first segment; link.remaining (ArraySlice<String>) starts
    // with it and keeps the link's indices: the next segment is link.remaining.dropFirst().first.
    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<ShelfFlow> {
        guard let name = link.first else { return .here() }
        guard books.contains(name) else { throw link.unknown(at: 0, "no book is named \(name)") }
        // The child of .start must be LinkHandling too, even where the link ends at it.
        return .start(BookFlow(name), consuming: 1) { [unowned self] flow, book in open(book, in: flow) }
    }

    // The inverse of route: the segment of the book that holds the user's place.
    func place(toward child: (any Flow)?) -> [String]? { (child as? BookFlow).map { [$0.name] } ?? [] }
}

final class BookFlow: Flow, LinkHandling {
    typealias RequiredContext = NavigationStack
    let name: String
    // LinkHandling's `linkID`, a String: a running BookFlow with the same one is reused by a link.
    var linkID: String { name }
    private var notes: Screen<ItemScreen>?

    init(_ name: String) { self.name = name }

    func start(_ flow: FlowContext<BookFlow>) {
        let cover = flow.show(ItemScreen.self, CardState(title: name, buttons: ["Notes", "Close"]))
        cover.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            if index == 0 { showNotes(in: flow) } else { flow.finish(()) }
        }
    }

    private func showNotes(in flow: FlowContext<BookFlow>) {
        notes = flow.show(ItemScreen.self, CardState(title: "Notes on \(name)", buttons: []), .pushed(in: flow.context))
    }

    // A screen the flow pushes itself is shown by the closure of .here, as its UI shows it.
    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<BookFlow> {
        switch link.first {
        case nil: return .here()
        case "notes": return .here(consuming: 1) { [unowned self] flow in if notes?.isPlaced != true { showNotes(in: flow) } }
        default: throw link.unknown(at: 0, "a book has only notes")
        }
    }

    func place(toward child: (any Flow)?) -> [String]? { notes?.isPlaced == true ? ["notes"] : [] }
}
// end: links

@Suite struct LinkSnippetTests {
    // snippet: links-test
    @Test func aLinkOpensThroughTheFlowsAndThePlaceSaysItBack() throws {
        let tester = FlowTester()
        _ = tester.start(ShelfFlow(), windowRoot.withNavigationEmbedding())
        // `starts:` names the flows' types as strings, in start order.
        tester.expectOpen("Dune/notes", starts: ["BookFlow"], visible: ItemScreen.self)
        #expect(tester.runtime.place?.description == "Dune/notes")
        tester.expectLinkRefused("Zola", .unknownLink)  // and nothing changed
        tester.expectSound()
    }
    // end: links-test
}

// snippet: custom-placer
/// Pushed on `stack` while it is on screen, else presented in a new stack on `fallback`: the
/// context returned is the stack the content is really in, which only a placer can make.
func pushedOrPresented(in stack: NavigationStack, over fallback: some NavigationContext) -> ScreenPlacer<NavigationStack> {
    ScreenPlacer<NavigationStack>(animated: true) { (request) throws(FlowKitError) -> NavigationStack in
        if request.isPlaced(stack.node) {
            return try ScreenPlacer.pushed(in: stack).place(request)
        }
        return try ScreenPlacer.presented(on: fallback).withNavigationEmbedding().place(request)
    }
}
// end: custom-placer

/// A home screen that starts `CounterFlow` with the custom placer: pushed on its stack.
final class CustomPlacerHomeFlow: Flow {
    typealias RequiredContext = NavigationStack

    func start(_ flow: FlowContext<CustomPlacerHomeFlow>) {
        let home = flow.show(ItemScreen.self, CardState(title: "Home", buttons: ["Count"]))
        home.onOutput { _ in
            let placer = pushedOrPresented(in: flow.context, over: home)
            flow.start(CounterFlow(), placer, onFinish: { _, dismisser in dismisser.dismiss(animated: true) }, onEnd: { _ in })
        }
    }
}

@Suite struct CustomPlacerSnippetTests {
    @Test func theCustomPlacerPushesOnAStackThatIsPlaced() throws {
        let tester = FlowTester()
        _ = tester.start(CustomPlacerHomeFlow(), windowRoot.withNavigationEmbedding())
        tester.send(.didPressButton(index: 0), from: ItemScreen.self)
        let counter = try #require(tester.expectVisible(ItemScreen.self))
        #expect(tester.runtime.placement(of: counter)?.index == 1, "pushed above the home screen")
        tester.expectSound()
    }
}

/// The page's snippets are the compiled ones, line for line.
@Suite struct DocSnippetsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path

    @Test(arguments: ["handlers", "dismisser-timing", "tester-reference", "links", "links-test", "custom-placer"])
    func theSnippetOnThePageIsTheCompiledOne(name: String) throws {
        let page = try String(contentsOfFile: Self.root + "/docs/flows.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- snippet: \(name) "), "docs/flows.md has no snippet \(name)")
        let afterMarker = page[marker.upperBound...]
        let open = try #require(afterMarker.range(of: "```swift\n"))
        let close = try #require(afterMarker[open.upperBound...].range(of: "\n```"))
        let onPage = String(afterMarker[open.upperBound..<close.lowerBound])
        let start = try #require(source.range(of: "// snippet: \(name)\n"))
        let end = try #require(source[start.upperBound...].range(of: "// end: \(name)"))
        let lines = source[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        let compiled = lines.map { $0.count >= indent ? String($0.dropFirst(indent)) : "" }.joined(separator: "\n")
        #expect(onPage == compiled, "docs/flows.md's \(name) differs from Tests/DemoScreensTests/DocSnippets.swift")
    }
}
