import ScreenKit

extension ScriptRunner {
    /// Serves one spawned screen, following the script in order across all the
    /// processes of the walk: this host acts only when the first step not done
    /// in `progress` is for its visible screen. It wakes up when flowd sends it
    /// something or another process appends to the file (inotify).
    ///
    /// A `Ping` barrier comes before every action: flowd delivers an output of
    /// a hidden screen like any other, so a host must not act on a "visible"
    /// it has not yet seen revoked (`ScriptProgress.move`). A host that stays
    /// visible while the next step is not for it fails after the step timeout,
    /// as the attached runner does.
    public func runInSharedOrder(progress: ScriptProgressFile) throws -> ExitReason {
        progress.watch(on: host)
        let pollMilliseconds = progress.isWatched ? 1_000 : 50
        var stall: (line: Int, deadline: ContinuousClock.Instant)?
        while true {
            let move = currentMove(progress)
            var timeout = pollMilliseconds
            switch move {
            case .perform, .takeAsDone:
                guard try barrier() else { return try host.run() }
                if currentMove(progress) == move { try carryOut(move, progress) }
                continue
            case .wait(let step) where deck.visible != nil:
                // Visible, and the next step is not for this screen: nothing else can move the walk on.
                if stall?.line != step.line { stall = (step.line, .now + .milliseconds(stepTimeoutMilliseconds)) }
                let remaining = milliseconds(until: stall!.deadline)
                if remaining == 0 {
                    guard try barrier() else { return try host.run() }
                    if currentMove(progress) == move, let card = deck.visible {
                        throw Failure(description: "script line \(step.line): waited \(stepTimeoutMilliseconds) ms for \(step.target); visible is \(card.label) at \(card.breadcrumb) showing \"\(card.state.body)\" (progress: \(progress.path))")
                    }
                    stall = nil
                    continue
                }
                timeout = min(timeout, remaining)
            case .wait, .finished:
                stall = nil
            }
            if let reason = try host.pollOnce(timeoutMilliseconds: Int32(timeout)) { return reason }
        }
    }

    private func currentMove(_ progress: ScriptProgressFile) -> ScriptProgress.Move {
        let visible = deck.visible.map { ScriptProgress.Screen(id: $0.id, kind: $0.kind, title: $0.state.title, body: $0.state.body) }
        return progress.read().move(in: script, visible: visible)
    }

    private func carryOut(_ move: ScriptProgress.Move, _ progress: ScriptProgressFile) throws {
        switch move {
        case .perform(let step, let startedBefore):
            guard let card = deck.visible else { return }
            if startedBefore {
                log("[line \(step.line)] \(card.label): this screen's previous process started it and ended before recording it done; again")
            }
            // Started before the frame is written, done only after it was. A SIGKILL in between
            // leaves the step started and not done, without telling whether its frame left. flowd
            // handles what a dead process wrote before it places the screen in a new process, and
            // nothing but the steps changes the UI, so the new process (same screen id) finds:
            // - its screen visible and still matching the step: the frame was lost, or it left the
            //   screen as the step wants it. Run the step (again). In this walk a repeat changes
            //   nothing: `type` sends the same text, `expect` sends nothing, "Log in" without a
            //   name shows the same hint, "Done" on a summary left on the stack goes to a flow that
            //   has finished (flowd does not deliver it).
            // - anything else (hidden, changed, dismissed): the output took effect; whichever
            //   process is visible then records the step done (`.takeAsDone`).
            try progress.recordStarted(line: step.line, screen: card.id)
            try perform(step, on: card)
            try progress.recordDone(line: step.line)
        case .takeAsDone(let step, let screen):
            log("[line \(step.line)] \(step.target): taken as done: screen \(screen) started it, and the UI changed since")
            try progress.recordDone(line: step.line)
        case .wait, .finished:
            break
        }
    }

    /// Milliseconds left until `deadline`, rounded up; 0 once it passed.
    private func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let remaining = deadline - .now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000) + 1
    }
}
