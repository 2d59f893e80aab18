@testable import FlowDaemon
import Testing

/// Each transition of the graceful shutdown, on the value alone.
@Suite struct ShutdownSequenceTests {
    @Test func withFlowsItUnwindsFirst() {
        var sequence = ShutdownSequence()
        #expect(sequence.begin(hasFlows: true) == .unwindFlows)
        #expect(sequence.phase == .unwinding)
        #expect(sequence.begin(hasFlows: true) == .none, "started once")
        #expect(sequence.check(connections: 0, children: 0) == .none, "draining waits for the unwinding")
        #expect(sequence.endOfIteration(hasFlows: true, pendingDismissals: 0) == .none)
        sequence.unwound()
        #expect(sequence.phase == .unwinding, "the unwinding takes effect at the end of the iteration")
        #expect(sequence.hasStepDue(pendingDismissals: 0))
        #expect(sequence.endOfIteration(hasFlows: false, pendingDismissals: 0) == .notifyAndDrain)
        #expect(sequence.phase == .draining)
        #expect(sequence.endOfIteration(hasFlows: false, pendingDismissals: 0) == .none)
    }

    @Test func drainingWaitsForDismissalsSentBeforeTheShutdown() {
        var sequence = ShutdownSequence()
        _ = sequence.begin(hasFlows: true)
        sequence.unwound()
        #expect(!sequence.hasStepDue(pendingDismissals: 2))
        #expect(sequence.endOfIteration(hasFlows: false, pendingDismissals: 2) == .none)
        #expect(sequence.endOfIteration(hasFlows: false, pendingDismissals: 0) == .notifyAndDrain)
    }

    @Test func aRequestedShutdownBeginsAtTheEndOfTheIteration() {
        var sequence = ShutdownSequence()
        sequence.request(.init(.appFinished, "app finished"))
        #expect(sequence.phase == .running, "not before the frames already read are answered")
        #expect(sequence.hasStepDue(pendingDismissals: 0))
        #expect(sequence.endOfIteration(hasFlows: true, pendingDismissals: 0) == .unwindFlows)
        #expect(sequence.cause == .init(.appFinished, "app finished"))
        #expect(sequence.endOfIteration(hasFlows: true, pendingDismissals: 0) == .none, "begun once")
    }

    @Test func withoutFlowsItDrainsAtOnce() {
        var sequence = ShutdownSequence()
        #expect(sequence.begin(hasFlows: false) == .notifyAndDrain)
        #expect(sequence.phase == .draining)
    }

    @Test func drainingEndsWhenConnectionsAndChildrenAreGone() {
        var sequence = ShutdownSequence()
        _ = sequence.begin(hasFlows: false)
        #expect(sequence.check(connections: 2, children: 1) == .none)
        #expect(sequence.check(connections: 0, children: 1) == .stopChildren, "children outlived their connections")
        #expect(sequence.phase == .draining)
        #expect(sequence.check(connections: 1, children: 0) == .none)
        #expect(sequence.check(connections: 0, children: 0) == .finish)
        #expect(sequence.phase == .stopped)
        #expect(sequence.check(connections: 0, children: 0) == .none, "finished once")
    }

    @Test func aSecondSignalExitsAtOnceInAnyPhase() {
        var sequence = ShutdownSequence()
        #expect(sequence.signal(hasFlows: true) == .unwindFlows)
        #expect(sequence.signal(hasFlows: true) == .exitNow)
        var draining = ShutdownSequence()
        _ = draining.begin(hasFlows: false)
        #expect(draining.signal(hasFlows: false) == .none, "the first signal during a shutdown the app started changes nothing")
        #expect(draining.signal(hasFlows: false) == .exitNow)
    }

    @Test func nothingHappensBeforeTheShutdownBegins() {
        var sequence = ShutdownSequence()
        sequence.unwound()
        #expect(sequence.endOfIteration(hasFlows: true, pendingDismissals: 0) == .none)
        #expect(sequence.check(connections: 0, children: 0) == .none)
        #expect(sequence.phase == .running)
    }
}
