import Foundation

/// The runtime's record of one flow: it retains every sub-flow the flow started until they finish or
/// are terminated, and remembers what the flow placed, in order. The non-generic base of
/// `FlowNode<F>`, which keeps the flow's typed parts; the runtime stores flows as this base and never
/// casts back.
public class FlowController {
    /// Where a flow is in its life.
    enum Phase { case running, ending, ended }

    /// The flow's id.
    public let id: FlowID
    /// The flow's type name, for debug trees (computed on demand, to keep per-flow memory small).
    public var typeName: String { "host" }
    unowned let runtime: FlowRuntime
    weak var parent: FlowController?
    var phase = Phase.running
    /// Sub-flows by id (ids grow with start order).
    var children: [FlowID: FlowController] = [:]
    /// Screens the flow owns, in placement order (may hold stale ids, skipped on use).
    var items: [NodeID] = []
    private var staleItems = 0
    /// The screen the flow's lifetime is tied to.
    var initialScreen: NodeID?
    /// The flow's navigation observer.
    var onNavigation: ((NavigationEvent) -> Void)?
    /// The flow's requests for outside data not yet answered.
    var requests: Set<RequestID> = []
    /// Whether the flow's `start` is running (sub-flows started meanwhile are structural).
    var isStarting = false
    /// Whether the flow was started by its parent's `start` (a tab's flow): part of the parent, never
    /// unwound by a link going through the parent.
    var isStructural = false

    init(id: FlowID, runtime: FlowRuntime, parent: FlowController?) {
        self.id = id
        self.runtime = runtime
        self.parent = parent
    }

    /// Whether the flow is running (not finishing, not ended).
    public var isRunning: Bool { phase == .running }

    /// The flow's live screens, in placement order.
    var liveItems: [NodeID] {
        items.filter { runtime.model[$0]?.owner == id }
    }

    func addItem(_ screen: NodeID) {
        items.append(screen)
    }

    /// Forgets a screen that was removed or given away: O(1) when it is the last, amortized otherwise.
    func forget(_ screen: NodeID) {
        if items.last == screen {
            items.removeLast()
            while let last = items.last, runtime.model[last]?.owner != id {
                items.removeLast()
                staleItems = max(0, staleItems - 1)
            }
        } else {
            staleItems += 1
            if staleItems * 2 > items.count {
                items = liveItems
                staleItems = 0
            }
        }
    }

    /// The flow object (nil for the host and after the end).
    var object: AnyObject? { nil }

    /// Whether the flow object handles links.
    var handlesLinks: Bool { false }

    /// Which place the flow is, for links (nil unless it handles links).
    var linkIdentity: LinkIdentity? { nil }

    /// The flow's plan for `link`, or nil when it does not handle links.
    func linkPlan(_ link: LinkRoute) throws(LinkError) -> ErasedLinkPlan? { nil }

    /// The segments from this flow toward `child` (nil: to its own visible screen), if it handles links.
    func placeSegments(toward child: FlowController?) -> [String]? { nil }

    /// The flow's memento as a checkpoint keeps it (nil: none; `LinkHandling.memento`).
    func encodedMemento() throws -> Data? { nil }

    /// Gives the flow back the memento it had at a checkpoint.
    func restoreMemento(_ data: Data) throws {}

    /// The flow's memento and its layout version, as a stop leaves it for the app's next version.
    func carriedMemento() throws -> (version: Int, data: Data)? { nil }

    /// Gives the flow a memento another version of the app left (`LinkHandling.restoreCarried`).
    func restoreCarried(_ data: Data, version: Int) throws(MementoRefused) {
        throw MementoRefused("\(typeName) keeps no memento")
    }

    /// What tells the parent's handler the flow ended without a result (typed in `FlowNode`); taken
    /// before the release, which drops the handler.
    func endedReporter() -> ((FlowEnding) -> Void)? { nil }

    /// Drops everything that could keep objects alive (the typed parts in `FlowNode`).
    func release() {
        phase = .ended
        onNavigation = nil
        children.removeAll()
        items.removeAll()
        requests.removeAll()
        parent = nil
    }
}
