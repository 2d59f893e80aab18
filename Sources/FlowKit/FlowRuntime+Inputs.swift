import Foundation

extension FlowRuntime {
    /// Delivers a screen's output (JSON of its module's `Output`) to the owning flow's observer.
    /// Returns whether an observer received it. Throws if the screen is unknown or the payload does not
    /// decode; nothing is delivered then.
    @discardableResult
    public func receiveOutput(screen: ScreenID, payload: Data) throws(FlowKitError) -> Bool {
        // The outlet and the owner alone are taken out (the flow it calls may change the records),
        // with the owner's controller, in one access to the tables.
        let found = withTables { tables -> (any ScreenOutlet, FlowID, FlowController?)? in
            guard let (outlet, owner) = tables.screens.modifyValue(forKey: screen, { ($0.outlet, $0.owner) }) else { return nil }
            return (outlet, owner, owner == .host ? nil : tables.controllers[owner])
        }
        guard let (outlet, owner, flow) = found else {
            throw FlowKitError(.unknownScreen, "output for screen \(screen) dropped: no such screen is placed (it may have been dismissed); ignore late outputs")
        }
        let deliver = (owner == .host ? host : flow)?.isRunning ?? false
        do {
            return try outlet.receive(payload, with: codec, deliver: deliver)
        } catch let refusal as OutputRefusal {
            throw FlowKitError(.outputDecodingFailed, "output for screen \(screen) (\(outlet.kind)) refused: \(refusal.reason)")
        } catch {
            let expected = readRecord(screen) { $0.contentTypes.output } ?? "content type of its module"
            throw FlowKitError(.outputDecodingFailed, "output for screen \(screen) (\(outlet.kind)) did not decode as its module's Output: \(error); send the \(expected) of an Output value")
        }
    }

    /// Applies navigation the user started on `screen` (which must be the visible screen) and tells the
    /// owning flows. Throws, changing nothing, if it is not possible now.
    public func receiveUserNavigation(_ navigation: UserNavigation, from screen: ScreenID) throws(FlowKitError) {
        inputReason = .userNavigation
        defer { inputReason = .flowFinished }
        guard model[screen]?.kind == .screen else {
            throw FlowKitError(.unknownScreen, "navigation \(navigation) from screen \(screen) ignored: no such screen is placed")
        }
        // Visible in its own window: each window shows its front.
        let window = model.windowOf(screen) ?? .window
        let visible = model.front(of: window) == screen
        switch navigation {
        case .back(.begin):
            try requireVisible(visible, screen, navigation)
            try requirePoppable(screen)
            backGesture = screen
        case .back(.cancel):
            guard backGesture == screen else {
                throw FlowKitError(.invalidNavigation, "back cancelled on screen \(screen) without a back gesture in progress; send begin first")
            }
            backGesture = nil
        case .back(.immediate), .back(.commit):
            if backGesture == screen { backGesture = nil }
            try requireVisible(visible, screen, navigation)
            try requirePoppable(screen)
            remove(screen, cause: .userBack, animated: false, group: nil)
        case .selectTab(let index):
            guard let bar = model.enclosingTabBar(of: screen), let node = model[bar] else {
                throw FlowKitError(.invalidNavigation, "screen \(screen) is not inside a tab bar; tab selection needs one")
            }
            guard model.isUncovered(bar) else {
                throw FlowKitError(.invalidNavigation, "tab selection from screen \(screen) refused: its tab bar \(bar) is covered")
            }
            guard index >= 0, index < node.children.count, node.children[index] != .none else {
                throw FlowKitError(.invalidNavigation, "tab \(index) of tab bar \(bar) does not exist or is empty")
            }
            guard node.selectedTab != index else { return }
            try selectTab(index, of: bar)
            var told: Set<FlowID> = []
            for id in [screen, model.front(of: window) ?? .none] {
                guard let owner = model[id]?.owner, told.insert(owner).inserted, let flow = controller(owner), flow.isRunning else { continue }
                flow.onNavigation?(.tabSelected(bar: bar, index: index))
            }
        case .closeModal:
            try requireVisible(visible, screen, navigation)
            guard let modal = model.enclosingModalRoot(of: screen) else {
                throw FlowKitError(.invalidNavigation, "screen \(screen) is not inside a modal; there is nothing to close")
            }
            remove(modal, cause: .userClosedModal, animated: false, group: nil)
        case .closeWindow:
            // Any screen of the window names it, visible or not: the window goes as a whole.
            guard window != .window else {
                throw FlowKitError(.invalidNavigation, "screen \(screen) is in the app's main window, which the user cannot close; close a window a flow opened")
            }
            remove(window, cause: .userClosedWindow, animated: false, group: nil)
        }
    }

    private func requireVisible(_ visible: Bool, _ screen: ScreenID, _ navigation: UserNavigation) throws(FlowKitError) {
        guard visible else {
            throw FlowKitError(.invalidNavigation, "navigation \(navigation) from screen \(screen) refused: the screen is not visible (covered or in another tab)")
        }
    }

    private func requirePoppable(_ screen: ScreenID) throws(FlowKitError) {
        guard case .stackChild(let index)? = model[screen]?.relation, index > 0 else {
            throw FlowKitError(.invalidNavigation, "back from screen \(screen) refused: it is not above the root of a stack")
        }
    }

    /// The host of a screen died: the screen is removed (what was presented on it too) and its flow is
    /// told; a flow whose initial screen it was ends with `.screenLost`. Returns false if unknown.
    @discardableResult
    public func screenLost(_ screen: ScreenID) -> Bool {
        guard model[screen]?.kind == .screen else { return false }
        remove(screen, cause: .lost(screen), animated: false, group: nil)
        return true
    }

    /// Terminates a running flow from outside (debug client, shutdown): its sub-flows first, then its
    /// screens; its parent hears `.ended(.terminated)`. Once the UI is gone the runtime records
    /// `RuntimeEffect.unwound(.flow(flow), report)`.
    public func terminate(flow: FlowID, animated: Bool = false) throws(FlowKitError) {
        guard let controller = controllers[flow], controller.isRunning else {
            throw FlowKitError(.unknownFlow, "cannot terminate \(flow): no such flow is running")
        }
        inputReason = .flowTerminated
        defer { inputReason = .flowFinished }
        terminate(controller, notify: true, animated: animated) { [unowned self] report in
            record(.unwound(.flow(flow), report))
        }
    }

    /// Terminates every root flow (last started first) and dismisses what the host holds: the shutdown
    /// path. Once the UI is gone the runtime records `RuntimeEffect.unwound(.all, report)`.
    public func terminateAll(animated: Bool = false) {
        inputReason = .shutdown
        defer { inputReason = .flowFinished }
        let group = DismissalGroup { [unowned self] report in record(.unwound(.all, report)) }
        batched {
            for child in host.children.values.sorted(by: { $0.id > $1.id }) {
                end(child, .terminated, notify: true, animated: animated, group: group)
            }
            for item in host.liveItems.reversed() {
                remove(item, cause: .unwind(by: .host), animated: animated, group: group)
            }
        }
        group.seal()
    }

    /// A screen's host answered its `Dismiss` (or timed out, or died): the unwinding it belongs to
    /// completes once all its screens are done. Unknown screens are ignored.
    public func dismissalCompleted(_ screen: ScreenID, _ outcome: DismissOutcome) {
        guard let group = dismissals.removeValue(forKey: screen) else { return }
        group?.resolve(screen, outcome)
    }

    /// Handles one input given as data (what a journal or a replay holds) and returns what it caused.
    /// Throws, changing nothing, when the input is refused.
    public func handle(_ input: FlowInput) throws(FlowKitError) -> [RuntimeEffect] {
        _ = try apply(input)
        return takeEffects()
    }

    /// Applies one input given as data and leaves what it caused queued (`takeEffects`): how a driver
    /// that drains effects itself (the daemon's `drive()`) feeds journaled inputs. Returns what an
    /// `.openLink` opened (nil for the other inputs). Throws, changing nothing, when the input is
    /// refused; a refused link's error carries its `LinkError`.
    @discardableResult
    public func apply(_ input: FlowInput) throws(FlowKitError) -> OpenedLink? {
        switch input {
        case .output(let screen, let payload): try receiveOutput(screen: screen, payload: payload)
        case .userNavigation(let navigation, let screen): try receiveUserNavigation(navigation, from: screen)
        case .dismissalCompleted(let screen, let outcome): dismissalCompleted(screen, outcome)
        case .screenLost(let screen): screenLost(screen)
        case .terminate(let flow, let animated): try terminate(flow: flow, animated: animated)
        case .terminateAll(let animated): terminateAll(animated: animated)
        case .timerFired(let request): try answer(request, .fired)
        case .workSucceeded(let request, let payload): try answer(request, .succeeded(payload))
        case .workFailed(let request, let message): try answer(request, .failed(message))
        case .timerStarted(let request, let deadline): try timerStarted(request, deadline: deadline)
        case .openLink(let link):
            do throws(LinkError) {
                return try open(link)
            } catch {
                throw FlowKitError(error.code == .unknownLink ? .unknownLink : .linkRefused, error.description, link: error)
            }
        case .displaysChanged(let displays): self.displays = displays
        }
        return nil
    }
}
