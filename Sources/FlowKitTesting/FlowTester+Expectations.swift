import FlowKit
import Foundation

extension FlowTester {
    /// Expects that when `screen` sends `output`, a `Pushed` screen is pushed on top of `stack`
    /// (default: the sender's own stack). Returns the pushed screen.
    @discardableResult
    public func expectPush<Sender: ScreenModule, Pushed: ScreenModule>(
        when screen: ScreenID, of sender: Sender.Type, sends output: Sender.Output, pushes pushed: Pushed.Type, on stack: NodeID? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ScreenID? {
        settle()
        let expectedStack = stack ?? placement(of: screen)?.stack
        let placedNow = placements(afterSending: output, from: screen, as: sender, fileID: fileID, filePath: filePath, line: line, column: column)
        let match = placedNow.first { $0.kind == Pushed.kind && $0.placement.stack != nil && $0.placement.stack == expectedStack && $0.placement.isTopMost }
        guard let match else {
            reportFailure("expected \(Sender.kind)\(screen) sending \(output) to push a \(Pushed.kind) screen on stack \(expectedStack.map(String.init(describing:)) ?? "?"), but it placed \(placedNow.map(\.summary))",
                          fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        return match.id
    }

    /// Expects that when `screen` sends `output`, a `Presented` screen is placed in a new modal
    /// (presented on `presenter` when given). Returns the presented screen.
    @discardableResult
    public func expectPresent<Sender: ScreenModule, Presented: ScreenModule>(
        when screen: ScreenID, of sender: Sender.Type, sends output: Sender.Output, presents presented: Presented.Type, on presenter: NodeID? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ScreenID? {
        settle()
        let placedNow = placements(afterSending: output, from: screen, as: sender, fileID: fileID, filePath: filePath, line: line, column: column)
        let match = placedNow.first { placed in
            guard placed.kind == Presented.kind else { return false }
            return placed.placement.path.contains { step in
                if case .modal(let on) = step { return presenter == nil || on == presenter }
                return false
            }
        }
        guard let match else {
            reportFailure("expected \(Sender.kind)\(screen) sending \(output) to present a \(Presented.kind) screen, but it placed \(placedNow.map(\.summary))",
                          fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        return match.id
    }

    private func placements<M: ScreenModule>(afterSending output: M.Output, from screen: ScreenID, as module: M.Type,
                                             fileID: String, filePath: StaticString, line: UInt, column: UInt) -> [PlacedScreen] {
        let before = transport.events.count
        do { try send(output, from: screen, as: module) } catch {
            reportFailure("sending \(output) from \(M.kind)\(screen) failed: \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
            return []
        }
        return transport.events[before...].compactMap { event in
            if case .placed(let id, let kind, _, let placement) = event { PlacedScreen(id: id, kind: kind, placement: placement) } else { nil }
        }
    }

    /// Expects the visible screen to be a screen of this module (and returns it).
    @discardableResult
    public func expectVisible<M: ScreenModule>(_ module: M.Type, fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) -> ScreenID? {
        settle()
        guard let visible = runtime.visibleScreen, runtime.kind(of: visible) == M.kind else {
            reportFailure("expected a \(M.kind) screen to be visible, but \(runtime.visibleScreen.map { "\(runtime.kind(of: $0) ?? "?")\($0)" } ?? "nothing") is",
                          fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        return visible
    }

    /// Expects exactly these screen kinds on a stack, bottom to top.
    public func expectStack(_ stack: NodeID, holds kinds: [String], fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        settle()
        let node = runtime.debugTree().nodes.first { $0.id == stack }
        let actual = node?.children.map { runtime.kind(of: $0) ?? "?" } ?? []
        if actual != kinds {
            reportFailure("expected stack \(stack) to hold \(kinds), but it holds \(actual)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Expects the runtime to be sound (see `FlowRuntime.invariantViolations()`).
    public func expectSound(fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        settle()
        let problems = runtime.invariantViolations()
        if !problems.isEmpty {
            reportFailure("runtime invariants broken:\n" + problems.joined(separator: "\n"), fileID: fileID, filePath: filePath, line: line, column: column)
        }
        let placedByRuntime = Set(runtime.debugTree().nodes.filter { $0.kind == .screen }.map(\.id))
        let placedByFake = Set(transport.screens.keys)
        if placedByRuntime != placedByFake {
            reportFailure("the fake screens \(placedByFake.sorted()) differ from the model's \(placedByRuntime.sorted())", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Expects nothing left: no flows, no screens, no pending dismissals.
    public func expectEmpty(fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        settle()
        if runtime.liveFlowCount != 0 || runtime.liveScreenCount != 0 || runtime.pendingDismissals != 0 || !transport.screens.isEmpty {
            reportFailure("expected an empty runtime, found \(runtime.liveFlowCount) flows \(runtime.runningFlows), \(runtime.liveScreenCount) screens, \(runtime.pendingDismissals) pending dismissals",
                          fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Expects the recorder's flow to have finished with `result`, then dismisses with its dismisser
    /// and expects exactly `screens` (any order) to be removed, top-most first, with the unwinding
    /// complete. Returns the report.
    @discardableResult
    public func expectFinished<F: Flow>(_ recorder: FlowRecorder<F>, with result: F.Result, dismissing screens: [ScreenID], animated: Bool = true,
                                        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) -> DismissalReport? where F.Result: Equatable {
        settle()
        guard let actual = recorder.result, let dismisser = recorder.dismisser else {
            reportFailure("expected \(F.self) to finish with \(result), but it \(recorder.ending.map { "ended: \($0)" } ?? "is still running")",
                          fileID: fileID, filePath: filePath, line: line, column: column)
            return nil
        }
        if actual != result {
            reportFailure("expected \(F.self) to finish with \(result), got \(actual)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        if Set(dismisser.screens) != Set(screens) {
            reportFailure("expected the dismisser of \(F.self) to cover \(screens.sorted()), it covers \(dismisser.screens.sorted())", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        let placementsBefore = transport.screens.mapValues(\.placement)
        let before = transport.events.count
        var report: DismissalReport?
        dismisser.dismiss(animated: animated) { report = $0 }
        transport.acknowledgeAll()
        let removed = transport.events[before...].compactMap { if case .dismissed(let id, _) = $0 { id } else { nil } }
        if Set(removed) != Set(screens) || removed.count != screens.count {
            reportFailure("expected dismissing \(F.self) to remove exactly \(screens.sorted()), it removed \(removed)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        for (position, later) in removed.enumerated() {
            for earlier in removed[..<position] where isAbove(later, earlier, placements: placementsBefore) {
                reportFailure("dismissing \(F.self) removed \(earlier) before \(later), which is above it; unwinding must go top-most first",
                              fileID: fileID, filePath: filePath, line: line, column: column)
            }
        }
        if report == nil {
            reportFailure("dismissing \(F.self) did not complete after every screen acknowledged", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return report
    }

    /// Expects the recorder's flow to have emitted exactly these outputs.
    public func expectOutputs<F: Flow>(_ recorder: FlowRecorder<F>, _ outputs: [F.Output],
                                       fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) where F.Output: Equatable {
        settle()
        if recorder.outputs != outputs {
            reportFailure("expected \(F.self) to emit \(outputs), it emitted \(recorder.outputs)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Expects the recorder's flow to have ended without a result, this way.
    public func expectEnded<F: Flow>(_ recorder: FlowRecorder<F>, _ ending: FlowEnding,
                                     fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) {
        settle()
        if recorder.ending != ending {
            reportFailure("expected \(F.self) to end \(ending), but it \(recorder.ending.map { "ended \($0)" } ?? (recorder.result != nil ? "finished" : "is running"))",
                          fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}

/// Whether screen `upper` sits above `lower`: higher in the same stack, or in a modal presented on it.
func isAbove(_ upper: ScreenID, _ lower: ScreenID, placements: [ScreenID: Placement]) -> Bool {
    guard let up = placements[upper], let low = placements[lower] else { return false }
    if up.stack != nil, up.stack == low.stack, up.index > low.index { return true }
    return up.path.contains(.modal(presenter: lower))
}

/// A screen placed during one expectation.
struct PlacedScreen {
    let id: ScreenID
    let kind: String
    let placement: Placement
    var summary: String { "\(kind)\(id) at \(placement)" }
}
