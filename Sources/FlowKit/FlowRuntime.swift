import Foundation

/// Owns the navigation model and the flows, talks to screens through a `ScreenTransport`, and takes
/// the daemon's inputs (outputs, user navigation, lost screens, terminations). Single-threaded:
/// every call happens on one thread; nothing here locks.
public final class FlowRuntime {
    /// One live screen's bookkeeping.
    struct ScreenRecord {
        /// The screen's module (its kind name and Output type).
        let module: any ScreenModule.Type
        /// The state to send with `place`, dropped once sent.
        var pendingState: Data?
        /// The owning flow's observer, if any.
        var handler: Any?
    }

    /// Why screens are being removed.
    enum RemovalCause {
        /// A flow removes its own screens (ending, or a dismisser it holds).
        case unwind(by: FlowID)
        /// A placer replaced content (window, stack, tab).
        case displaced(by: FlowID)
        case userBack
        case userClosedModal
        case lost(ScreenID)
    }

    /// Where commands for screens go. The runtime retains it.
    public let transport: ScreenTransport
    /// The navigation model (package access: the daemon reads it for debug output).
    package var model = NavigationModel()
    var controllers: [FlowID: FlowController] = [:]
    var screens: [NodeID: ScreenRecord] = [:]
    private(set) var host: FlowController!
    private var nextFlow: UInt64 = 1
    var backGesture: NodeID?
    /// Encodes states (Foundation's `.sortedKeys` bytes, written directly).
    let encoder = FastJSONEncoder()
    /// Decodes outputs (Foundation's results and errors, without its value tree).
    let decoder = FastJSONDecoder()

    /// Hears every flow's start, outputs and end (for the daemon's event stream and debugging). Called
    /// synchronously on the runtime's thread; it must not call back into the runtime.
    public var observer: ((FlowLifecycleEvent) -> Void)?

    /// Dismissals sent and not yet acknowledged, timed out or lost.
    public internal(set) var pendingDismissals = 0

    /// A runtime with an empty window.
    public init(transport: ScreenTransport) {
        self.transport = transport
        host = FlowController(id: .host, flowType: FlowRuntime.self, runtime: self, parent: nil)
    }

    /// Flows running now (the host not counted).
    public var liveFlowCount: Int { controllers.count }

    /// Screens placed now.
    public var liveScreenCount: Int { model.screenCount }

    /// Starts a root flow (several may run side by side); `handler` hears its outputs and its end.
    /// What it leaves in place belongs to the runtime's host until dismissed.
    @discardableResult
    public func start<F: Flow>(_ flow: F, _ placer: ScreenPlacer<F.RequiredContext>, handler: @escaping (FlowEvent<F>) -> Void) -> FlowID {
        startFlow(flow, placer: placer, parent: host, handler: handler)
    }

    func controller(_ id: FlowID) -> FlowController? {
        id == .host ? host : controllers[id]
    }

    func startFlow<F: Flow>(_ flow: F, placer: ScreenPlacer<F.RequiredContext>, parent: FlowController, handler: @escaping (FlowEvent<F>) -> Void) -> FlowID {
        let id = FlowID(rawValue: nextFlow)
        nextFlow += 1
        guard parent.isRunning else { return id }
        let controller = FlowController(id: id, flowType: F.self, runtime: self, parent: parent)
        controller.flow = flow
        controller.placer = placer
        controller.report = { report in
            switch report {
            case .output(let output): handler(.output(output as! F.Output))
            case .finished(let result, let dismisser): handler(.finished(result as! F.Result, dismisser))
            case .ended(let ending): handler(.ended(ending))
            }
        }
        parent.children[id] = controller
        controllers[id] = controller
        controller.notify(.started)
        flow.start(FlowContext<F>(controller: controller))
        return id
    }

    /// Decodes a payload as a module's `Output`.
    static func decodeOutput<M: ScreenModule>(_ module: M.Type, _ payload: Data, with decoder: FastJSONDecoder) throws -> Any {
        try decoder.decode(M.Output.self, from: payload)
    }

    /// Calls a stored `(M.Output) -> Void` observer with a decoded output.
    static func deliver<M: ScreenModule>(_ module: M.Type, _ output: Any, to handler: Any) {
        (handler as! (M.Output) -> Void)(output as! M.Output)
    }

    /// While positive, `flush` waits: an unwinding of several screens is
    /// reported once at its end, so screens removed by the same unwinding are
    /// never told they were uncovered or moved on the way.
    var flushHolds = 0

    /// Runs `body` with flushing held, then flushes once.
    func batched(_ body: () -> Void) {
        flushHolds += 1
        body()
        flushHolds -= 1
        flush()
    }

    /// Sends the model's pending changes to the transport.
    func flush() {
        guard flushHolds == 0 else { return }
        for change in model.commit() {
            switch change {
            case .placed(let id, let placement):
                let state = screens[id]?.pendingState ?? Data("{}".utf8)
                screens[id]?.pendingState = nil
                transport.place(id, kind: screens[id]?.module.kind ?? "", state: state, placement: placement)
            case .changed(let id, let placement, let change):
                transport.placementChanged(id, placement: placement, change: change)
            }
        }
    }

    func update<State: Encodable>(_ screen: NodeID, state: State, owner: FlowController) {
        guard model[screen]?.owner == owner.id, screens[screen] != nil else { return }
        guard let data = try? encoder.encode(state) else { return }
        transport.update(screen, state: data)
    }

    /// Stores a typed `(M.Output) -> Void` observer unwrapped (no extra closure per screen).
    func setOutputHandler<M: ScreenModule>(_ screen: NodeID, _ module: M.Type, owner: FlowController, _ handler: @escaping (M.Output) -> Void) {
        guard model[screen]?.owner == owner.id else { return }
        screens[screen]?.handler = handler
    }
}
