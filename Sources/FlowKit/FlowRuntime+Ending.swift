import Foundation

extension FlowRuntime {
    /// Removes a node and everything on it, tells the transport, and tells the flows concerned: a flow
    /// losing its initial screen to someone else ends; others hear a `NavigationEvent`.
    func remove(_ root: NodeID, cause: RemovalCause, animated: Bool, group: DismissalGroup?) {
        guard model.contains(root) else { return }
        let removed = model.remove(root)
        var endings: [(FlowController, FlowEnding)] = []
        var notices: [(FlowController, NavigationEvent)] = []
        for node in removed where node.kind == .screen {
            screens[node.id] = nil
            if backGesture == node.id { backGesture = nil }
            if let owner = controller(node.owner) {
                owner.forget(node.id)
                if owner.isRunning, owner.id != .host {
                    if owner.initialScreen == node.id, !isDone(by: cause, for: owner) {
                        endings.append((owner, cause.ending))
                    } else {
                        if owner.initialScreen == node.id { owner.initialScreen = nil }
                        if let event = cause.event(for: node.id, owner: owner.id) { notices.append((owner, event)) }
                    }
                }
            }
            if case .lost(let lost) = cause, lost == node.id { continue }
            group?.expect(node.id)
            dismissals[node.id] = .some(group)
            send(.dismiss(node.id, animated: animated, reason: inputReason))
        }
        flush()
        for (owner, event) in notices where owner.isRunning {
            owner.onNavigation?(event)
        }
        for (owner, ending) in endings.sorted(by: { $0.0.id < $1.0.id }) {
            end(owner, ending, notify: true, animated: false, group: group)
        }
    }

    /// Whether the removal was asked for by the owner itself or one of its descendants (a placer it
    /// handed down): then the owner does not end. O(depth).
    private func isDone(by cause: RemovalCause, for owner: FlowController) -> Bool {
        guard let actor = cause.actor else { return false }
        var current = controller(actor)
        while let flow = current {
            if flow === owner { return true }
            current = flow.parent
        }
        return actor == owner.id
    }

    /// Ends a running flow without a result: sub-flows first (last started first), then its screens
    /// top-most first; then it is released and, if `notify`, its parent's handler hears `ending`.
    func end(_ flow: FlowController, _ ending: FlowEnding, notify: Bool, animated: Bool, group: DismissalGroup?) {
        guard flow.isRunning, flow.id != .host else { return }
        flow.phase = .ending
        batched {
            for child in flow.children.values.sorted(by: { $0.id > $1.id }) {
                end(child, .terminated, notify: false, animated: animated, group: group)
            }
            for item in flow.liveItems.reversed() {
                remove(item, cause: .unwind(by: flow.id), animated: animated, group: group)
            }
        }
        let report = flow.endedReporter()
        flow.notify(.ended, ending.description)
        detach(flow)
        if notify { report?(ending) }
    }

    /// Terminates a flow and observes the unwinding.
    func terminate(_ flow: FlowController, notify: Bool, animated: Bool, completion: ((DismissalReport) -> Void)?) {
        let group = DismissalGroup(completion: completion)
        end(flow, .terminated, notify: notify, animated: animated, group: group)
        group.seal()
    }

    /// Finishes a flow with a result: running sub-flows stop (their UI is kept), everything left is
    /// adopted by the parent, and the parent receives the result with a dismisser for it.
    func finish<F: Flow>(_ flow: FlowNode<F>, result: F.Result) {
        guard flow.isRunning, flow.id != .host else { return }
        flow.phase = .ending
        for child in flow.children.values.sorted(by: { $0.id > $1.id }) {
            stop(child, into: flow)
        }
        var adopter = flow.parent ?? host
        if !adopter.isRunning { adopter = host }
        let left = flow.liveItems
        give(left, to: adopter)
        let handler = flow.parentHandler
        flow.notify(.finished, String(describing: result))
        detach(flow)
        handler?(.finished(result, Dismisser(runtime: self, adopter: adopter.id, screens: left)))
    }

    /// Stops a sub-flow of a finishing flow silently, handing its screens to `target`.
    private func stop(_ flow: FlowController, into target: FlowController) {
        flow.phase = .ending
        for child in flow.children.values.sorted(by: { $0.id > $1.id }) {
            stop(child, into: flow)
        }
        give(flow.liveItems, to: target)
        flow.notify(.ended, "stopped because its parent \(target.id) finished")
        detach(flow)
    }

    private func give(_ items: [NodeID], to adopter: FlowController) {
        for item in items {
            model.setOwner(item, adopter.id)
            _ = withRecord(item) { record in
                record.outlet = record.outlet.withoutHandler()
                record.owner = adopter.id
            }
            adopter.addItem(item)
        }
    }

    /// Unlinks a flow from its parent and the index, cancels its requests and drops its references.
    func detach(_ flow: FlowController) {
        cancelRequests(of: flow)
        flow.parent?.children[flow.id] = nil
        controllers[flow.id] = nil
        flow.release()
    }

    /// Removes `screens` still owned by `adopter`, top-most first; completes when all are done.
    func unwind(_ screens: [ScreenID], ownedBy adopter: FlowID, animated: Bool, completion: ((DismissalReport) -> Void)?) {
        let group = DismissalGroup(completion: completion)
        if controller(adopter)?.isRunning == true {
            batched {
                for screen in screens.reversed() where model[screen]?.owner == adopter {
                    remove(screen, cause: .unwind(by: adopter), animated: animated, group: group)
                }
            }
        }
        group.seal()
    }
}

extension FlowRuntime.RemovalCause {
    /// The flow that asked for the removal, if a flow did.
    var actor: FlowID? {
        switch self {
        case .unwind(let by), .displaced(let by): by
        case .userBack, .userClosedModal, .userClosedWindow, .lost: nil
        }
    }

    /// How a flow losing its initial screen to this cause ends.
    var ending: FlowEnding {
        switch self {
        case .unwind, .displaced: .terminated
        case .userBack, .userClosedModal, .userClosedWindow: .dismissedByUser
        case .lost(let screen): .screenLost(screen)
        }
    }

    /// What a flow losing a non-initial screen hears.
    func event(for screen: ScreenID, owner: FlowID) -> NavigationEvent? {
        switch self {
        case .unwind(let by), .displaced(let by): by == owner ? nil : .removed(screen)
        case .userBack: .popped(screen)
        case .userClosedModal: .modalClosed(screen)
        case .userClosedWindow: .windowClosed(screen)
        case .lost(let lost): lost == screen ? .screenLost(screen) : .removed(screen)
        }
    }
}
