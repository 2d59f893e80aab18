import Foundation

/// One running flow with its types: the flow object, the placer it was started with, the context
/// that placer returned and the parent's typed handler. Stored by the runtime as its base,
/// `FlowController`; everything typed goes through here, so nothing is cast back.
final class FlowNode<F: Flow>: FlowController {
    /// The flow object (retained while running).
    private(set) var flow: F?
    /// The placer the flow was started with (dropped at the end).
    private(set) var placer: ScreenPlacer<F.RequiredContext>?
    /// The context its own placer returned, once used (kept after the end so late calls stay harmless).
    var context: F.RequiredContext?
    /// The parent's handler.
    private var handler: ((FlowEvent<F>) -> Void)?

    init(id: FlowID, runtime: FlowRuntime, parent: FlowController, flow: F, placer: ScreenPlacer<F.RequiredContext>,
         handler: @escaping (FlowEvent<F>) -> Void) {
        self.flow = flow
        self.placer = placer
        self.handler = handler
        super.init(id: id, runtime: runtime, parent: parent)
    }

    override var typeName: String { runtime.typeName(of: F.self) }

    override var object: AnyObject? { flow }

    override var handlesLinks: Bool { flow is any LinkHandling }

    override var linkIdentity: LinkIdentity? {
        guard let flow, let handling = flow as? any LinkHandling else { return nil }
        return LinkIdentity(type: ObjectIdentifier(type(of: flow)), name: String(describing: type(of: flow)), id: handling.linkID)
    }

    override func linkPlan(_ link: LinkRoute) throws(LinkError) -> ErasedLinkPlan? {
        guard isRunning, let handling = flow as? any LinkHandling else { return nil }
        return try handling.erasedPlan(link)
    }

    override func placeSegments(toward child: FlowController?) -> [String]? {
        guard isRunning, let handling = flow as? any LinkHandling else { return nil }
        return handling.place(toward: child?.object as? any Flow)
    }

    override func encodedMemento() throws -> Data? {
        guard let handling = flow as? any LinkHandling else { return nil }
        return try handling.encodedMemento()
    }

    override func restoreMemento(_ data: Data) throws {
        guard let handling = flow as? any LinkHandling else { return }
        try handling.restoreMemento(data)
    }

    override func carriedMemento() throws -> (version: Int, data: Data)? {
        guard let handling = flow as? any LinkHandling else { return nil }
        return try handling.carriedMemento()
    }

    override func restoreCarried(_ data: Data, version: Int) throws(MementoRefused) {
        guard let handling = flow as? any LinkHandling else { throw MementoRefused("\(typeName) does not handle links, so it keeps no memento") }
        guard (try? handling.encodedMemento()) != nil else { throw MementoRefused("\(typeName) keeps no memento in this version") }
        try handling.restoreCarried(data, version: version)
    }

    /// Tells the parent an output.
    func reportOutput(_ output: F.Output) { handler?(.output(output)) }

    /// The parent's handler, taken before the node is released (the release drops it).
    var parentHandler: ((FlowEvent<F>) -> Void)? { handler }

    override func endedReporter() -> ((FlowEnding) -> Void)? {
        guard let handler else { return nil }
        return { handler(.ended($0)) }
    }

    override func release() {
        super.release()
        flow = nil
        placer = nil
        handler = nil
    }
}
