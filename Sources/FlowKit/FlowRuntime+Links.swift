/// What opening a link did: the flows it reused, unwound and started, and the screen now visible.
public struct OpenedLink: Hashable, Sendable, CustomStringConvertible {
    /// The link.
    public var link: Link
    /// Flows already open along the link's path, root first: the link continued in them.
    public var reused: [FlowID]
    /// Flows that stood above the common point and were unwound (ended `.terminated`, their parents
    /// not told, as after `flow.terminate`).
    public var unwound: [FlowID]
    /// Flows the link started (with the sub-flows they started themselves), in start order.
    public var started: [FlowID]
    /// The screen visible now.
    public var visibleScreen: ScreenID?

    /// One line: `students/Bob/age: reused flow#1, started flow#2 flow#3 flow#4, visible screen#7`.
    public var description: String {
        var parts: [String] = []
        if !reused.isEmpty { parts.append("reused " + reused.map(\.description).joined(separator: " ")) }
        if !unwound.isEmpty { parts.append("unwound " + unwound.map(\.description).joined(separator: " ")) }
        if !started.isEmpty { parts.append("started " + started.map(\.description).joined(separator: " ")) }
        parts.append("visible \(visibleScreen.map(String.init(describing:)) ?? "nothing")")
        return "\(link): " + parts.joined(separator: ", ")
    }
}

extension FlowRuntime {
    /// One step of a resolved link: a flow's plan, the running sub-flow it continues in (when one is
    /// reused or named by `.into`), and whether the flow's later sub-flows are unwound first.
    struct LinkHop {
        var plan: ErasedLinkPlan
        var reuse: FlowID?
        var unwinds: Bool
    }

    /// The most flows a link may go through (a plan that starts flows without consuming segments
    /// could otherwise go on forever).
    static let maxLinkDepth = 64

    /// Checks that `link` can be opened, changing nothing: every flow along it (running or not yet
    /// started) plans its part. Throws what `open(_:)` would throw before changing anything.
    public func canOpen(_ link: Link) throws(LinkError) {
        _ = try resolve(link)
    }

    /// Opens `link` through the real flows: from the newest root flow that handles links, each flow
    /// plans its part and hands the rest on; flows already open along the path are reused and what
    /// stands above the common point is unwound (`LinkReuse`). The whole link is planned before
    /// anything changes, so a refusal (`.unknownLink`, `.refused`, `.unavailable`, `.busy`) changes
    /// nothing. A flow failing while its plan runs (`.failed`) unwinds the flows this link started.
    @discardableResult
    public func open(_ link: Link) throws(LinkError) -> OpenedLink {
        let (root, hops) = try resolve(link)
        let before = Set(controllers.keys)
        var reused: [FlowID] = [root.id]
        var failure: LinkError?
        var current = root
        batched {
            for hop in hops {
                guard current.isRunning else {
                    failure = LinkError(.failed, "\(current.typeName) \(current.id) ended while \(link) was being opened")
                    return
                }
                if hop.unwinds {
                    for child in current.children.values.sorted(by: { $0.id > $1.id }) where !child.isStructural && child.id != hop.reuse {
                        end(child, .terminated, notify: false, animated: false, group: nil)
                    }
                }
                switch hop.plan.kind {
                case .here:
                    hop.plan.perform(current)
                case .start(let child, _):
                    if let id = hop.reuse, let match = controllers[id], match.isRunning {
                        reused.append(id)
                        current = match
                        continue
                    }
                    hop.plan.perform(current)
                    guard let node = current.children.values.first(where: { $0.object === child.object }), node.isRunning else {
                        failure = LinkError(.failed, "\(current.typeName) \(current.id) planned to start \(child.identity.name) for \(link) but did not start it, or it failed to start")
                        return
                    }
                    current = node
                case .into(let child):
                    hop.plan.perform(current)
                    guard let node = current.children.values.first(where: { $0.object === child.object }), node.isRunning else {
                        failure = LinkError(.failed, "\(current.typeName) \(current.id) handed \(link) to \(child.identity.name), which is not running")
                        return
                    }
                    if hop.reuse != nil { reused.append(node.id) }
                    current = node
                }
            }
        }
        if let failure {
            // Unwind what this link started (the first new flow under a flow that was there before).
            // By membership, not by id: a runtime rebuilding a checkpoint hands out the ids it is given.
            for flow in controllers.values.sorted(by: { $0.id > $1.id })
            where !before.contains(flow.id) && (flow.parent.map { before.contains($0.id) || $0.id == .host } ?? true) {
                end(flow, .terminated, notify: false, animated: false, group: nil)
            }
            throw failure
        }
        let after = Set(controllers.keys)
        return OpenedLink(link: link, reused: reused, unwound: before.subtracting(after).sorted(),
                          started: after.subtracting(before).sorted(), visibleScreen: model.front())
    }

    /// Plans the whole link without changing anything.
    func resolve(_ link: Link) throws(LinkError) -> (FlowController, [LinkHop]) {
        guard dismissals.isEmpty else {
            throw LinkError(.busy, "\(link) not opened: \(dismissals.count) dismissal(s) are in flight; open it again once they completed")
        }
        guard let root = host.children.values.filter({ $0.isRunning && $0.handlesLinks }).max(by: { $0.id < $1.id }) else {
            throw LinkError(.unavailable, "\(link) not opened: no running root flow handles links (the app has not started, has finished, or is shutting down)")
        }
        var running: FlowController? = root
        var router: (LinkRoute) throws(LinkError) -> ErasedLinkPlan? = root.linkPlan
        var name = root.typeName
        var position = 0
        var hops: [LinkHop] = []
        while hops.count < Self.maxLinkDepth {
            let route = LinkRoute(link: link, position: position)
            guard let plan = try router(route) else {
                throw LinkError(.unknownLink, "segment \(position) '\(link.segments[min(position, link.segments.count - 1)])' of \(link) is unknown: \(name) does not handle links; make it LinkHandling", segment: position)
            }
            guard plan.consumed >= 0, plan.consumed <= link.segments.count - position else {
                throw LinkError(.failed, "\(name) planned to consume \(plan.consumed) segments of \(link) at segment \(position), but \(link.segments.count - position) are left", segment: position)
            }
            position += plan.consumed
            switch plan.kind {
            case .here:
                guard position == link.segments.count else { throw route.unknown(at: plan.consumed, "\(name) ends the link there") }
                hops.append(LinkHop(plan: plan, reuse: nil, unwinds: running != nil))
                return (root, hops)
            case .start(let child, let reuse):
                let match = running?.children.values.filter { $0.isRunning && !$0.isStructural && $0.linkIdentity == child.identity }.min { $0.id < $1.id }
                if reuse == .reuse, let match {
                    hops.append(LinkHop(plan: plan, reuse: match.id, unwinds: true))
                    running = match
                    router = match.linkPlan
                } else {
                    hops.append(LinkHop(plan: plan, reuse: nil, unwinds: running != nil && reuse != .keep))
                    running = nil
                    router = child.route
                }
                name = child.identity.name
            case .into(let child):
                if let flow = running {
                    guard let match = flow.children.values.first(where: { $0.isRunning && $0.object === child.object }) else {
                        throw LinkError(.refused, "\(link) was refused at segment \(position): \(name) hands it to \(child.identity.name), which is not running", segment: position)
                    }
                    hops.append(LinkHop(plan: plan, reuse: match.id, unwinds: false))
                    running = match
                    router = match.linkPlan
                } else {
                    hops.append(LinkHop(plan: plan, reuse: nil, unwinds: false))
                    router = child.route
                }
                name = child.identity.name
            }
        }
        throw LinkError(.failed, "\(link) went through more than \(Self.maxLinkDepth) flows; a plan starts flows without consuming segments")
    }
}

extension FlowRuntime {
    /// Where the user is, as a link (docs/flows.md, Links): the inverse of `open(_:)`. From the root
    /// flow that opens links (the newest running one) down to the flow that owns the visible screen,
    /// each flow's `LinkHandling.place(toward:)` says its part; a flow on the way that does not handle
    /// links ends the link there. A visible screen that is not under that root (left in place by an
    /// earlier root) gives the root's own place. Nil when no running root flow handles links, or
    /// when no segment names the place: the root's first screen, unless the root gives it a segment
    /// of its own (the demo launcher's `menu`).
    public var place: Link? { place(ofFront: model.front()) }

    /// Where the user is in each window a flow opened beside the main one, oldest window first: the
    /// window's display and the link from the same root down to the flow that owns the window's
    /// visible screen, built as `place` is (nil when no segment names it: the window's flow does not
    /// say its part, or the window shows what opening the app's start shows). Opening the link
    /// arrives there, changing nothing (docs/flows.md, "Windows on several displays").
    public var windowPlaces: [WindowPlace] {
        model.otherWindows.map { WindowPlace(display: $0.display, link: place(ofFront: model.front(of: $0.window))) }
    }

    /// The link from the newest root that handles links down to the flow that owns `front`.
    private func place(ofFront front: NodeID?) -> Link? {
        guard let root = host.children.values.filter({ $0.isRunning && $0.handlesLinks }).max(by: { $0.id < $1.id }) else { return nil }
        var chain: [FlowController] = []
        if let screen = front, let owner = model[screen]?.owner, var flow = controller(owner) {
            while true {
                chain.append(flow)
                if flow === root { break }
                guard let parent = flow.parent, parent !== host else {
                    chain = []
                    break
                }
                flow = parent
            }
        }
        if chain.isEmpty { chain = [root] }
        chain.reverse()
        var segments: [String] = []
        for (index, flow) in chain.enumerated() {
            guard let part = flow.placeSegments(toward: index + 1 < chain.count ? chain[index + 1] : nil) else { break }
            segments += part
        }
        // A part no link may hold (a flow's bug): the place is the longest link that is valid.
        while !segments.isEmpty {
            if let link = try? Link(segments) { return link }
            segments.removeLast()
        }
        return nil
    }
}

/// Where the user is in a window a flow opened (`FlowRuntime.windowPlaces`).
public struct WindowPlace: Hashable, Sendable, CustomStringConvertible {
    /// The display the window is on (what `window(on:)` named).
    public var display: String
    /// The link to the window's visible screen; nil when no segment names it.
    public var link: Link?

    /// A window's place: its display and the link to its visible screen (nil: none names it).
    public init(display: String, link: Link?) {
        (self.display, self.link) = (display, link)
    }

    /// `customer: till/pay`, or `customer: -` when no link names it (the form `flowctl where` prints).
    public var description: String { "\(display): \(link.map(String.init(describing:)) ?? "-")" }
}
