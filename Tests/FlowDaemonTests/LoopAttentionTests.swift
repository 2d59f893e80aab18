import Foundation
@testable import FlowDaemon
import Testing
import UVKit

/// The time flowd's loop could not look at its sockets, as the loop reports the points of each
/// iteration (`LoopAttention`): what a stopped, frozen or starved process looks like from inside.
@Suite struct LoopAttentionTests {
    @Test func aLoopThatLooksWhenItMeantToHasNoPause() {
        var attention = LoopAttention()
        #expect(attention.willPoll(at: 1_000, wait: 500) == 0)
        #expect(attention.polled(returned: 1_500) == 0)
        // The next iteration's timers and poll follow soon: its callbacks and flush took 2 ms.
        #expect(attention.resumed(at: 1_502) == 0)
        // I/O woke it early; what ran after took no longer than the threshold.
        #expect(attention.willPoll(at: 1_503, wait: 500) == 0)
        #expect(attention.polled(returned: 1_510) == 0)
        #expect(attention.willPoll(at: 1_510 + LoopAttention.threshold, wait: nil) == 0)
        // Waiting for I/O alone, for an hour: nothing was due, so nothing was missed.
        #expect(attention.polled(returned: 3_601_700) == 0)
        #expect(attention.unattended == 0 && attention.pauses == 0)
    }

    @Test func aPollThatCameBackLateLeavesItsWholeWaitOut() {
        // Stopped somewhere in a 1.9 s wait, for 3 s: epoll_wait returned EINTR at 3.1 s.
        var attention = LoopAttention()
        _ = attention.willPoll(at: 100, wait: 1_900)
        #expect(attention.polled(returned: 3_100) == 3_000)
        #expect(attention.unattended == 3_000 && attention.pauses == 1)
        // Late by no more than the threshold: noise, and the clock moves.
        _ = attention.willPoll(at: 3_101, wait: 100)
        #expect(attention.polled(returned: 3_201 + LoopAttention.threshold) == 0)
        #expect(attention.unattended == 3_000)
    }

    @Test func whatRanLongAfterAPollIsLeftOutAtTheNextPoint() {
        var attention = LoopAttention()
        // Stopped inside a read callback (or right after the flush) for 2 s: the next timers see it.
        _ = attention.willPoll(at: 0, wait: 2_000)
        #expect(attention.polled(returned: 10) == 0)
        #expect(attention.resumed(at: 2_010) == 2_000)
        // Or the next poll, when no timer ran.
        #expect(attention.willPoll(at: 2_011, wait: 0) == 0)
        #expect(attention.polled(returned: 2_011) == 0)
        #expect(attention.willPoll(at: 2_512, wait: 0) == 501)
        #expect(attention.unattended == 2_501 && attention.pauses == 2)
        // The first point counts nothing: there is no earlier one.
        var fresh = LoopAttention()
        #expect(fresh.resumed(at: 9_000) == 0 && fresh.polled(returned: 9_500) == 0)
    }

    /// libuv reads its clock as an iteration begins: a start that took long (a restore) would come
    /// off the first deadlines unless the daemon reads the clock again (`AppCore.startRuntime`).
    @Test func theLoopsClockMovesBeforeItRunsOnlyWhenRefreshed() throws {
        let loop = UVDaemonLoop(try UVLoop())
        let made = loop.now
        usleep(60_000)
        #expect(loop.now == made, "libuv's cached clock does not move on its own before the loop runs")
        loop.refreshClock()
        #expect(loop.now >= made + 60, "refreshed: \(loop.now - made) ms since the loop was made")
        try loop.uv.close()
    }
}
