import Foundation

/// A flow that takes part in opening links (docs/flows.md, Links). Given the segments left,
/// `route(_:)` says which it consumes and what it does with them — show its screens (`.here`),
/// start the sub-flow for the next part with the placer and handlers its own UI uses (`.start`), or
/// hand the rest to a sub-flow it started itself in `start`, such as a tab (`.into`) — and the
/// runtime hands the rest to that sub-flow. A flow that is not `LinkHandling` refuses every link
/// with `LinkError.unknownLink`.
public protocol LinkHandling: Flow {
    /// Plans how to open `link.remaining`. Must change nothing: the runtime calls it to check a whole
    /// link before anything is opened, on running flows and on flows not started yet, and runs the
    /// plan's closures only once every flow along the link agreed. Throw `link.unknown()` for a
    /// segment the flow does not know, `link.refused(reason)` to decline.
    func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<Self>

    /// Which place this flow is, among flows of its type: a running sub-flow of the same type and
    /// `linkID` as the one a plan would start is reused instead (default: empty, the type alone).
    var linkID: String { get }

    /// Where this flow is now, as the segments of a link: the inverse of `route(_:)`. `child` is the
    /// running sub-flow that holds the user's place (the visible screen is its, or its sub-flows'):
    /// return the segments whose plan starts it, or hands the link into it (`.start`, `.into`). Nil
    /// `child`: the visible screen is this flow's own; return the segments that show it (`.here`),
    /// none for the flow's first screen. Return nil when no link leads there: the link ends before
    /// this flow's part, at a place it can open. The runtime joins the parts of every flow from the
    /// root down (`FlowRuntime.place`); opening that link must arrive where the user is. Must change
    /// nothing. Default: none for the flow's own screens, nil toward a child (it cannot say which
    /// segments start it).
    func place(toward child: (any Flow)?) -> [String]?

    /// What the flow keeps beyond its place that its screens show: a small `Codable` value (the demo
    /// launcher's status line, the students' edited ages). A long-running daemon compacts its journal
    /// to a checkpoint — the place's link opened from a fresh start — and gives each flow its memento
    /// back right after its `start` returns there (`restore(_:)`): after the sub-flows its `start`
    /// started itself (which got theirs first), before those a link or an output starts later
    /// (docs/restore.md, "Long sessions"). Default: `NoMemento`, nothing kept. Encoded as JSON with
    /// sorted keys.
    associatedtype Memento: Codable = NoMemento

    /// The flow's memento now. Must change nothing.
    var memento: Memento { get }

    /// Takes back the memento the flow had at a checkpoint, right after `start` returned (its first
    /// screens shown): set the fields and update the screens it shows. Start nothing and show nothing
    /// new here; the checkpoint is refused when the tree it rebuilds differs.
    func restore(_ memento: Memento)

    /// The layout of `Memento`, kept with it when a stop leaves it for the app's next version (default
    /// 1). A new version decodes a memento of its own layout version with `Codable` (a field added as
    /// an optional decodes as nil); raise it when `Memento` changes so that an older one must be
    /// converted, and say how in `mementoMigrations` (docs/restore.md, "A new version of the app").
    static var mementoVersion: Int { get }

    /// How mementos of older layout versions become today's `Memento`, one per version read (default:
    /// none, so a memento of another layout version is dropped, with a warning naming the flow).
    static var mementoMigrations: [MementoMigration<Memento>] { get }
}

/// The memento of a flow that keeps nothing beyond its place.
public struct NoMemento: Codable, Hashable, Sendable {
    /// The empty memento.
    public init() {}
}

extension LinkHandling where Memento == NoMemento {
    /// Nothing kept.
    public var memento: NoMemento { NoMemento() }

    /// Nothing to take back.
    public func restore(_ memento: NoMemento) {}
}

extension LinkHandling {
    /// The type alone identifies the place.
    public var linkID: String { "" }

    /// A flow that says only its own start: the link ends here when a sub-flow holds the place.
    public func place(toward child: (any Flow)?) -> [String]? { child == nil ? [] : nil }

    /// The plan, without its type.
    func erasedPlan(_ link: LinkRoute) throws(LinkError) -> ErasedLinkPlan {
        try route(link).erased
    }
}

/// What to do with the sub-flows a flow already runs when a link goes through it
/// (`LinkPlan.start(_:consuming:reuse:_:)`).
public enum LinkReuse: Hashable, Sendable {
    /// The default, what a phone user expects from a notification: a running sub-flow of the same
    /// type and `linkID` is reused and the link continues in it; the flow's other sub-flows (those it
    /// started after its own `start`) are unwound. Without such a sub-flow they are all unwound and
    /// the new one is started.
    case reuse
    /// Unwind every sub-flow the flow started after its own `start`, a matching one included, and
    /// start the new one.
    case restart
    /// Unwind nothing and start the new one next to the running ones (a flow that stacks places).
    case keep
}

/// The segments of a link a flow is asked to route: the whole link and where the flow's part begins.
public struct LinkRoute: Hashable, Sendable {
    /// The whole link.
    public let link: Link
    /// The index of the first segment left for this flow.
    public let position: Int

    /// The segments left for this flow.
    public var remaining: ArraySlice<String> { link.segments[position...] }
    /// The first segment left, if any.
    public var first: String? { remaining.first }
    /// Whether the link ends at this flow.
    public var isEmpty: Bool { remaining.isEmpty }

    /// The error for a segment this flow does not know (`offset` from the first left).
    public func unknown(at offset: Int = 0, _ why: String? = nil) -> LinkError {
        let index = position + offset
        let name = link.segments.indices.contains(index) ? "'\(link.segments[index])'" : "(none)"
        return LinkError(.unknownLink, "segment \(index) \(name) of \(link) is unknown\(why.map { ": \($0)" } ?? ""); check the link", segment: index)
    }

    /// The error for a link this flow declines, with its reason.
    public func refused(_ reason: String, at offset: Int = 0) -> LinkError {
        LinkError(.refused, "\(link) was refused at segment \(position + offset): \(reason)", segment: position + offset)
    }
}

/// What a flow does with the segments it was given (`LinkHandling.route(_:)`).
public struct LinkPlan<F: Flow> {
    let erased: ErasedLinkPlan

    /// The link ends in this flow: consume `count` segments (all that are left; any more is an
    /// unknown segment) and run `perform` — show the screen they name, as the flow's UI would.
    public static func here(consuming count: Int = 0, _ perform: @escaping (FlowContext<F>) -> Void = { _ in }) -> LinkPlan {
        LinkPlan(erased: ErasedLinkPlan(consumed: count, kind: .here, perform: typed(perform)))
    }

    /// Consume `count` segments and hand the rest to `child`, which `perform` starts exactly as the
    /// flow's UI would (the same placer, the same handlers, so results reach this flow as after a
    /// walk). `reuse` says what happens to the sub-flows running already.
    public static func start<C: LinkHandling>(_ child: C, consuming count: Int, reuse: LinkReuse = .reuse,
                                              _ perform: @escaping (FlowContext<F>, C) -> Void) -> LinkPlan {
        LinkPlan(erased: ErasedLinkPlan(consumed: count, kind: .start(LinkChild(child), reuse), perform: typed { perform($0, child) }))
    }

    /// Consume `count` segments, run `perform` (select a tab, say) and hand the rest to `child`, a
    /// sub-flow this flow starts itself in its `start` and keeps for its whole life (a tab's flow).
    public static func into<C: LinkHandling>(_ child: C, consuming count: Int = 0, _ perform: @escaping (FlowContext<F>) -> Void = { _ in }) -> LinkPlan {
        LinkPlan(erased: ErasedLinkPlan(consumed: count, kind: .into(LinkChild(child)), perform: typed(perform)))
    }

    private static func typed(_ perform: @escaping (FlowContext<F>) -> Void) -> (FlowController) -> Void {
        { controller in
            guard let node = controller as? FlowNode<F> else { return }
            perform(FlowContext(controller: node))
        }
    }
}

/// A plan without its flow's type, as the runtime walks it.
struct ErasedLinkPlan {
    enum Kind {
        case here
        case start(LinkChild, LinkReuse)
        case into(LinkChild)
    }

    var consumed: Int
    var kind: Kind
    var perform: (FlowController) -> Void
}

/// A sub-flow named by a plan, not started yet (or started by its parent's `start`).
struct LinkChild {
    let object: AnyObject
    let identity: LinkIdentity
    let route: (LinkRoute) throws(LinkError) -> ErasedLinkPlan?

    init<C: LinkHandling>(_ child: C) {
        object = child
        identity = LinkIdentity(type: ObjectIdentifier(type(of: child)), name: String(describing: type(of: child)), id: child.linkID)
        route = { (link: LinkRoute) throws(LinkError) -> ErasedLinkPlan? in try child.erasedPlan(link) }
    }
}

/// Which place a flow is: its type and its `linkID`.
struct LinkIdentity: Hashable {
    var type: ObjectIdentifier
    var name: String
    var id: String
}

extension LinkHandling {
    /// The memento as a checkpoint keeps it (nil: the flow keeps none).
    func encodedMemento() throws -> Data? {
        guard Memento.self != NoMemento.self else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(memento)
    }

    /// Takes back a memento a checkpoint kept.
    func restoreMemento(_ data: Data) throws {
        restore(try JSONDecoder().decode(Memento.self, from: data))
    }
}
