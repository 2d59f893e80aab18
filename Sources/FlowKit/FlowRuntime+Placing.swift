import Foundation

extension FlowRuntime {
    /// Creates a screen, places it with `placer` and reports it; on failure the owner ends `.failed`.
    /// Returns the screen's id, the placer's context and the screen's `KeptState` (a refusing module's).
    func placeScreen<M: ScreenModule, C>(_ module: M.Type, state: M.State, placer: ScreenPlacer<C>, owner: FlowController) -> (NodeID, C, KeptState<M.State>?)? {
        guard owner.isRunning else { return nil }
        let data: Data
        do {
            data = try M.encodeState(state, with: codec)
        } catch {
            fail(owner, FlowKitError(.stateEncodingFailed, "state for a new \(M.kind) screen of \(owner.typeName) did not encode (\(error)); make State encodable"))
            return nil
        }
        let id = model.createScreen(owner: owner.id)
        let kept = M.refusesOutputs ? KeptState(state) : nil
        screens[id] = ScreenRecord(
            outlet: TypedOutlet<M>(handler: nil, kept: kept), state: data, contentTypes: contentTypes(for: M.self), animated: placer.animated,
            owner: owner.id)
        let tracker = PlacementTracker(owner: owner.id)
        do throws(FlowKitError) {
            let context = try placer.place(PlacementRequest(runtime: self, content: id, tracker: tracker))
            guard owner.isRunning else {
                throw FlowKitError(.notRunning, "flow \(owner.id) (\(owner.typeName)) ended while placing a \(M.kind) screen")
            }
            guard model.isAttached(id) else {
                throw FlowKitError(.invalidPlacement, "the placer for a \(M.kind) screen of \(owner.typeName) returned without attaching it; a custom placer must call request.attach")
            }
            owner.addItem(id)
            if owner.initialScreen == nil { owner.initialScreen = id }
            flush()
            return (id, context, kept)
        } catch {
            discard([id] + tracker.created.reversed(), owner: owner)
            fail(owner, error)
            return nil
        }
    }

    func fail(_ owner: FlowController, _ error: FlowKitError) {
        guard owner.isRunning, owner.id != .host else { return }
        end(owner, .failed(error), notify: true, animated: false, group: nil)
    }

    /// Removes what a failed placement created.
    private func discard(_ nodes: [NodeID], owner: FlowController) {
        for node in nodes where model.contains(node) {
            if model.isAttached(node) {
                remove(node, cause: .unwind(by: owner.id), animated: false, group: nil)
            } else {
                screens[node] = nil
                model.deleteDetached(node)
            }
        }
        for node in nodes where !model.contains(node) { screens[node] = nil }
    }

    /// Attaches placed content; what it replaces is removed first.
    func attach(_ content: NodeID, _ attachment: Attachment, tracker: PlacementTracker) throws(FlowKitError) {
        guard let node = model[content], node.parent == .none else {
            throw FlowKitError(.invalidPlacement, "node \(content) is already placed or gone; a placer attaches its content exactly once")
        }
        let displacer = RemovalCause.displaced(by: tracker.owner)
        switch attachment {
        case .windowContent:
            if let old = model[.window]?.children.first {
                remove(old, cause: displacer, animated: false, group: nil)
            }
            guard model[.window]!.children.isEmpty else {
                throw FlowKitError(.invalidPlacement, "the window content could not be replaced; retry the placement")
            }
            model.setWindowContent(content)
        case .content(let window):
            guard window != .window, model[window]?.kind == .window, model.display(of: window) != nil else {
                throw FlowKitError(.invalidPlacement, "node \(window) is not a window a flow opened; use the Window a window(on:) placement returned")
            }
            model.pin(window)
            if let old = model[window]!.children.first { remove(old, cause: displacer, animated: false, group: nil) }
            model.setWindowContent(content, of: window)
            _ = model.unpin(window)
        case .push(let stack):
            try requireAttached(stack, .stack, for: "push onto")
            model.push(content, onto: stack)
        case .stackRoot(let stack):
            try requireAttached(stack, .stack, for: "replace the root of")
            model.pin(stack)
            for old in model[stack]!.children.reversed() where model.contains(old) {
                remove(old, cause: displacer, animated: false, group: nil)
            }
            guard model.contains(stack) else {
                throw FlowKitError(.invalidPlacement, "stack \(stack) went away while its contents were replaced")
            }
            model.push(content, onto: stack)
            _ = model.unpin(stack)
        case .tab(let bar, let index):
            try requireAttached(bar, .tabBar, for: "fill a tab of")
            guard index >= 0, index < model[bar]!.children.count else {
                throw FlowKitError(.invalidPlacement, "tab bar \(bar) has \(model[bar]!.children.count) tabs, not a tab \(index); use an index below the count")
            }
            model.pin(bar)
            let old = model[bar]!.children[index]
            if old != .none { remove(old, cause: displacer, animated: false, group: nil) }
            guard model.contains(bar) else {
                throw FlowKitError(.invalidPlacement, "tab bar \(bar) went away while tab \(index) was replaced")
            }
            model.setTab(content, of: bar, at: index)
            _ = model.unpin(bar)
        case .modal(let presenter):
            guard model.contains(presenter), model.isAttached(presenter) else {
                throw FlowKitError(.invalidPlacement, "cannot present on node \(presenter): it is not placed; present on a live screen or container")
            }
            let current = model[presenter]!.modal
            guard current == .none else {
                throw FlowKitError(.invalidPlacement, "node \(presenter) already presents \(current); present on that modal instead, or dismiss it first")
            }
            model.present(content, on: presenter)
        }
    }

    private func requireAttached(_ node: NodeID, _ kind: NodeKind, for action: String) throws(FlowKitError) {
        guard let found = model[node], model.isAttached(node) else {
            throw FlowKitError(.invalidPlacement, "cannot \(action) \(kind) \(node): it is not placed (it may have been dismissed); use a live context")
        }
        guard found.kind == kind else {
            throw FlowKitError(.invalidPlacement, "cannot \(action) node \(node): it is a \(found.kind), not a \(kind)")
        }
    }

    /// Selects a tab of a live tab bar and reports the change.
    func selectTab(_ index: Int, of bar: NodeID) throws(FlowKitError) {
        guard let node = model[bar], node.kind == .tabBar else {
            throw FlowKitError(.invalidNavigation, "node \(bar) is not a live tab bar; select tabs of a placed tab bar")
        }
        guard index >= 0, index < node.children.count else {
            throw FlowKitError(.invalidNavigation, "tab bar \(bar) has \(node.children.count) tabs, not a tab \(index)")
        }
        model.selectTab(index, of: bar)
        flush()
    }
}
