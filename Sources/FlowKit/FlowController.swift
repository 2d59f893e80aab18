/// The runtime's record of one flow: it retains the flow object and every sub-flow it started until
/// they finish or are terminated, and remembers what the flow placed, in order.
public final class FlowController {
    /// What a controller's parent hears; mapped to the typed `FlowEvent` by the start call.
    enum Report {
        case output(Any)
        case finished(Any, Dismisser)
        case ended(FlowEnding)
    }

    /// Where a flow is in its life.
    enum Phase { case running, ending, ended }

    /// The flow's id.
    public let id: FlowID
    /// The flow's type (its name is computed on demand, to keep per-flow memory small).
    let flowType: Any.Type
    /// The flow's type name, for debug trees.
    public var typeName: String { id == .host ? "host" : String(describing: flowType) }
    unowned let runtime: FlowRuntime
    weak var parent: FlowController?
    var phase = Phase.running
    /// The flow object (retained while running).
    var flow: AnyObject?
    /// The placer the flow was started with (a `ScreenPlacer<RequiredContext>`).
    var placer: Any?
    /// The context its own placer returned, once used (kept after the end so late calls stay harmless).
    var context: Any?
    /// Sub-flows by id (ids grow with start order).
    var children: [FlowID: FlowController] = [:]
    /// Screens the flow owns, in placement order (may hold stale ids, skipped on use).
    var items: [NodeID] = []
    private var staleItems = 0
    /// The screen the flow's lifetime is tied to.
    var initialScreen: NodeID?
    /// Delivers reports to the parent's handler.
    var report: ((Report) -> Void)?
    /// The flow's navigation observer.
    var onNavigation: ((NavigationEvent) -> Void)?

    init(id: FlowID, flowType: Any.Type, runtime: FlowRuntime, parent: FlowController?) {
        self.id = id
        self.flowType = flowType
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

    /// Drops everything that could keep objects alive.
    func release() {
        phase = .ended
        flow = nil
        placer = nil
        report = nil
        onNavigation = nil
        children.removeAll()
        items.removeAll()
        parent = nil
    }
}
