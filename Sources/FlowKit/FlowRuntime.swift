import Foundation

/// Owns the navigation model and the flows. It takes inputs (outputs, user navigation, dismissal
/// completions, lost screens, terminations, answers to the flows' requests) and returns what they
/// caused as `RuntimeEffect`s (screen commands, flow lifecycle events, requests for outside data)
/// through `takeEffects()`; it never calls out, so whoever drives
/// it applies the effects after each call returns. Single-threaded: every call happens on one thread.
public final class FlowRuntime {
    /// One live screen's bookkeeping.
    struct ScreenRecord {
        /// The screen's typed side: its module and the owner's output handler.
        var outlet: any ScreenOutlet
        /// Its current state's payload: sent with `place`, and compared with each update's (an update
        /// that changes nothing sends nothing).
        var state: Data
        /// The content types of its states and outputs (one object per module, shared by its screens).
        var contentTypes: ContentTypes
        /// Whether the placer asked for an animated appearance.
        var animated: Bool
        /// The flow that owns it, as the navigation model says (`give` changes both; the invariants
        /// check them equal): an output and an update find their owner in the record they read
        /// anyway, one run-time-checked access to the runtime's fields fewer each (~100 instructions).
        var owner: FlowID
    }

    /// A module's content types, built once per module (`contentTypes(for:)`): a reference, so a
    /// screen's record holds 8 bytes for them, not two strings' 32 (docs/performance.md, "Memory").
    final class ContentTypes {
        let state: String
        let output: String

        init(state: String, output: String) {
            self.state = state
            self.output = output
        }
    }

    /// Why screens are being removed.
    enum RemovalCause {
        /// A flow removes its own screens (ending, or a dismisser it holds).
        case unwind(by: FlowID)
        /// A placer replaced content (window, stack, tab).
        case displaced(by: FlowID)
        case userBack
        case userClosedModal
        case userClosedWindow
        case lost(ScreenID)
    }

    /// The navigation model (package access: the daemon reads it for debug output).
    package var model = NavigationModel()
    /// The displays the hosts and the shell provide, by id (`FlowInput.displaysChanged`); nil while
    /// none has said, so a window may open on any.
    public internal(set) var displays: [Display]?
    /// The ids of `displays`.
    var availableDisplays: Set<String>? { displays.map { Set($0.map(\.id)) } }
    /// The tables an output and an update reach, in one stored value: each access to a class's
    /// stored property is checked for exclusivity at run time (~90 instructions), so the hot paths
    /// reach several of them through one access (`withTables`); everything else through the
    /// properties below, one access each as before.
    struct Tables {
        var controllers: [FlowID: FlowController] = [:]
        var screens = NodeTable<ScreenRecord>()
        /// What inputs caused, not yet taken by the driver.
        var effects: [RuntimeEffect] = []
    }
    private var tables = Tables()
    var controllers: [FlowID: FlowController] {
        _read { yield tables.controllers }
        _modify { yield &tables.controllers }
    }
    var screens: NodeTable<ScreenRecord> {
        _read { yield tables.screens }
        _modify { yield &tables.screens }
    }
    private var effects: [RuntimeEffect] {
        _read { yield tables.effects }
        _modify { yield &tables.effects }
    }

    /// Runs `body` with the tables, in one checked access; `body` must not call into flows.
    func withTables<T>(_ body: (inout Tables) -> T) -> T { body(&tables) }
    /// The runtime's own flow: it adopts what root flows leave behind.
    private(set) lazy var host = FlowController(id: .host, runtime: self, parent: nil)
    var nextFlow: UInt64 = 1
    /// While the runtime rebuilds a checkpoint: the ids and mementos it gives (`FlowRuntime+Checkpoint`).
    var rebuilding: Rebuilding?
    var backGesture: NodeID?
    /// Encodes states and decodes outputs.
    public let codec: any PayloadCodec
    /// The dismissal reason of the input being handled: what hosts are told for every `Dismiss` it causes.
    var inputReason: DismissalReason = .flowFinished
    /// Dismissals sent and not yet completed, with the unwinding each belongs to.
    var dismissals: [ScreenID: DismissalGroup?] = [:]
    /// Requests for outside data not yet answered, cancelled or ended with their flow.
    var requests: [RequestID: RequestRecord] = [:]
    /// The next request's number: requests are numbered in order, so a replay gets the same ids.
    var nextRequest: UInt64 = 1

    /// Dismissals sent and not yet acknowledged, timed out or lost.
    public var pendingDismissals: Int { dismissals.count }
    /// The screens whose `Dismiss` is not completed yet, top-most (newest) first.
    public var screensBeingDismissed: [ScreenID] { dismissals.keys.sorted(by: >) }

    /// A runtime with an empty window whose payloads use `codec`.
    public init(codec: any PayloadCodec = JSONPayloadCodec()) {
        self.codec = codec
    }

    /// A runtime dropped while flows still run (a daemon that stops or crashes, a restore that
    /// starts over) releases them: a flow that keeps its context is a cycle with its node (the
    /// context holds the node, the node the flow), which only `release()` breaks. Without this every
    /// dropped runtime leaked its running flows (the EmbeddedDaemon fuzz target grew by 8-10 KB per
    /// program until it ran out of memory).
    deinit {
        for controller in controllers.values { controller.release() }
        screens.removeAll()
    }

    /// Each module's content types, by module: built once, so an output's check compares strings
    /// and screens share them.
    private var moduleContentTypes: [ObjectIdentifier: ContentTypes] = [:]
    /// Flow type names, built once per type: `String(describing:)` of a type looks its conformances
    /// up each time (a third of a launcher input's replay, callgrind).
    private var flowTypeNames: [ObjectIdentifier: String] = [:]

    /// The name of flow type `type`, as debug trees and events show it.
    func typeName<F: Flow>(of type: F.Type) -> String {
        if let known = flowTypeNames[ObjectIdentifier(type)] { return known }
        let name = String(describing: type)
        flowTypeNames[ObjectIdentifier(type)] = name
        return name
    }

    /// Whether flows' lifecycle events (`RuntimeEffect.flow`) are recorded. A replay of the journal
    /// and a checkpoint's rebuild drop them (they were seen when they first happened), so they turn
    /// them off and skip describing every output and result.
    package var reportsFlowEvents = true

    /// The content types of module `M`.
    func contentTypes<M: ScreenModule>(for module: M.Type) -> ContentTypes {
        if let known = moduleContentTypes[ObjectIdentifier(module)] { return known }
        let types = ContentTypes(state: M.stateCoder.contentType, output: M.outputCoder.contentType)
        moduleContentTypes[ObjectIdentifier(module)] = types
        return types
    }

    /// Updates not sent because the new state's payload equalled the screen's current one.
    public internal(set) var unchangedUpdates: UInt64 = 0

    /// Flows running now (the host not counted).
    public var liveFlowCount: Int { controllers.count }

    /// Screens placed now.
    public var liveScreenCount: Int { model.screenCount }

    /// Everything the inputs since the last call caused, in order; the driver applies them.
    public func takeEffects() -> [RuntimeEffect] {
        guard !effects.isEmpty else { return [] }
        defer { effects.removeAll(keepingCapacity: true) }
        return effects
    }

    /// Moves everything the inputs caused into `buffer` (emptied first) and keeps `buffer`'s old
    /// storage for the next effects: a driver that reuses one buffer allocates nothing per input.
    public func takeEffects(into buffer: inout [RuntimeEffect]) {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        swap(&buffer, &effects)
    }

    /// Whether effects wait to be taken.
    public var hasEffects: Bool { !effects.isEmpty }

    /// The settle loop every driver of the runtime runs — the daemon (`AppCore.drive`),
    /// `LocalScreenHost` (FlowKitTesting's fake screens, `flowd replay`) and flowbench's tree-cost:
    /// takes the effects round by round until a take comes back empty, and hands each to `apply`.
    /// What applying one causes (a dismissal its delivery completes at once, fed back through
    /// `apply(_:)`) comes out in a later round of the same call. `buffer` is the driver's, reused
    /// from one call to the next: a driver that keeps it allocates nothing per input.
    public func settle(reusing buffer: inout [RuntimeEffect], _ apply: (RuntimeEffect) -> Void) {
        while true {
            takeEffects(into: &buffer)
            if buffer.isEmpty { return }
            buffer.takeEach(apply)
        }
    }

    /// Records a screen command.
    func send(_ command: ScreenCommand) { effects.append(.command(command)) }

    /// Records a flow lifecycle event.
    func record(_ event: FlowLifecycleEvent) { effects.append(.flow(event)) }

    /// Records a request for outside data, or its cancellation.
    func record(_ effect: RuntimeEffect) { effects.append(effect) }

    /// Starts a root flow (several may run side by side); `handler` hears its outputs and its end.
    /// What it leaves in place belongs to the runtime's host until dismissed.
    @discardableResult
    public func start<F: Flow>(_ flow: F, _ placer: ScreenPlacer<F.RequiredContext>, handler: @escaping (FlowEvent<F>) -> Void) -> FlowID {
        startFlow(flow, placer: placer, parent: host, handler: handler)
    }

    /// Starts an app's root flow: what it reports becomes `RuntimeEffect.root` — its outputs, and once
    /// how it ended; when it finishes, the UI it left is dismissed without animation first.
    @discardableResult
    public func startRoot<F: Flow>(_ flow: F, _ placer: ScreenPlacer<F.RequiredContext>) -> FlowID {
        start(flow, placer) { [unowned self] event in
            switch event {
            case .output(let output):
                record(.root(.output(String(describing: output))))
            case .finished(let result, let dismisser):
                dismisser.dismiss(animated: false) { [unowned self] report in
                    record(.root(.finished(result: String(describing: result), report: report)))
                }
            case .ended(let ending):
                record(.root(.ended(ending)))
            }
        }
    }

    func controller(_ id: FlowID) -> FlowController? {
        id == .host ? host : controllers[id]
    }

    func startFlow<F: Flow>(_ flow: F, placer: ScreenPlacer<F.RequiredContext>, parent: FlowController, handler: @escaping (FlowEvent<F>) -> Void) -> FlowID {
        let id = rebuilding == nil ? FlowID(rawValue: nextFlow) : rebuilding!.flowID(natural: nextFlow, parent: parent.id, typeName: typeName(of: F.self))
        nextFlow += 1
        guard parent.isRunning else { return id }
        let node = FlowNode<F>(id: id, runtime: self, parent: parent, flow: flow, placer: placer, handler: handler)
        parent.children[id] = node
        controllers[id] = node
        node.isStructural = parent.isStarting
        node.notify(.started)
        node.isStarting = true
        flow.start(FlowContext<F>(controller: node))
        node.isStarting = false
        if rebuilding != nil { restoreMemento(of: node) }
        return id
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

    /// Turns the model's pending changes into `place` and `placementChanged` commands.
    func flush() {
        guard flushHolds == 0 else { return }
        for change in model.commit() {
            switch change {
            case .placed(let id, let placement):
                guard let record = screens[id] else { continue }
                let owner = model[id]?.owner ?? .host
                send(.place(PlaceCommand(
                    screen: id, kind: record.outlet.kind, state: record.state, contentType: record.contentTypes.state,
                    outputContentType: record.contentTypes.output, placement: placement, owner: owner, flowType: controller(owner)?.typeName ?? "", animated: record.animated)))
            case .changed(let id, let placement, let change):
                send(.placementChanged(id, placement: placement, change: change, owner: model[id]?.owner ?? .host))
            }
        }
    }

    /// Changes `screen`'s record in place: a table's getter copies the whole record out (its outlet,
    /// state bytes and strings: retains and releases, ~0.2 k instructions each time), and a look-up
    /// then a store are two exclusive accesses to `screens`, each checked at run time (~90
    /// instructions). `body` must not call into flows: the record is being accessed meanwhile.
    func withRecord<T>(_ screen: NodeID, _ body: (inout ScreenRecord) -> T) -> T? {
        screens.modifyValue(forKey: screen, body)
    }

    /// Reads `screen`'s record where it is, through the in-place access (a read through a getter
    /// copies the record out); `body` must not call into flows.
    func readRecord<T>(_ screen: NodeID, _ body: (ScreenRecord) -> T) -> T? {
        screens.modifyValue(forKey: screen) { body($0) }
    }

    /// Encodes a screen's new state and sends it, unless its payload equals the screen's current one
    /// and `forced` is false; an encoding error fails the owning flow, as in `show`.
    /// `kept`: the screen's `KeptState` (a refusing module's), set to `state` when it is sent.
    func update<M: ScreenModule>(_ screen: NodeID, _ module: M.Type, state: M.State, kept: KeptState<M.State>?, forced: Bool,
                                 owner: FlowController) {
        let data: Data
        do {
            data = try M.encodeState(state, with: codec)
        } catch {
            // Only the owner of a screen still placed is failed (the others' updates are ignored).
            if readRecord(screen, { $0.owner }) == owner.id {
                fail(owner, FlowKitError(.stateEncodingFailed, "new state for \(M.kind) screen \(screen) of \(owner.typeName) did not encode (\(error)); make State encodable"))
            }
            return
        }
        // Nil: the screen is gone, or another flow owns it now (it was given to the adopter of a
        // flow that finished); the update is ignored.
        // The record and the effect in one access to the tables.
        let unchanged = withTables { tables -> Bool? in
            let result = tables.screens.modifyValue(forKey: screen) { record -> Bool? in
                guard record.owner == owner.id else { return nil }
                if !forced, Self.sameBytes(record.state, data) { return true }
                record.state = data
                return false
            }
            guard let unchanged = result ?? nil else { return nil }
            if !unchanged { tables.effects.append(.command(.update(screen, state: data, owner: owner.id))) }
            return unchanged
        }
        if unchanged == true { unchangedUpdates += 1 }
        // The typed state, for a module that refuses outputs in it (`ScreenModule.refusal`).
        if unchanged == false, let kept { kept.value = state }
    }

    /// Whether `a` and `b` hold the same bytes: a `memcmp` of two counted buffers, where `Data`'s `==`
    /// went through its representations first (0.16 k instructions per update against ~0.08 k, callgrind
    /// `flowd-echo`).
    static func sameBytes(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// Stores a typed `(M.Output) -> Void` handler.
    func setOutputHandler<M: ScreenModule>(_ screen: NodeID, _ module: M.Type, owner: FlowController, _ handler: @escaping (M.Output) -> Void) {
        guard model[screen]?.owner == owner.id, screens.contains(screen) else { return }
        let kept = M.refusesOutputs ? screens[screen]?.outlet.keptState as? KeptState<M.State> : nil
        screens[screen]?.outlet = TypedOutlet<M>(handler: handler, kept: kept)
    }
}
