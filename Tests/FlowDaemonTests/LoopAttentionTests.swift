import FlowDaemon
import Testing

/// The time flowd's loop could not look at its sockets, as the loop reports the points of each
/// iteration (`LoopAttention`): what a stopped, frozen or starved process looks like from inside.
@Suite struct LoopAttentionTests {
    @Test func aPollThatCameBackWhenItMeantToIsNoPause() {
        var attention = LoopAttention()
        #expect(attention.willPoll(at: 1_000, wait: 500) == 0)
        #expect(attention.polled(returned: 1_500, done: 1_502) == 0)
        // The next iteration's timers and poll follow at once.
        #expect(attention.resumed(at: 1_503) == 0)
        // I/O woke it early; callbacks took a while but no longer than the threshold.
        #expect(attention.willPoll(at: 1_504, wait: 500) == 0)
        #expect(attention.polled(returned: 1_510, done: 1_510 + LoopAttention.threshold) == 0)
        // Waiting for I/O alone, for an hour: nothing was due, so nothing was missed.
        #expect(attention.willPoll(at: 1_700, wait: nil) == 0)
        #expect(attention.polled(returned: 3_601_700, done: 3_601_701) == 0)
        #expect(attention.unattended == 0 && attention.pauses == 0)
    }

    @Test func aPollThatCameBackLateLeavesItsWholeWaitOut() {
        // Stopped somewhere in a 1.9 s wait, for 3 s: epoll_wait returned EINTR at 3.1 s.
        var attention = LoopAttention()
        _ = attention.willPoll(at: 100, wait: 1_900)
        #expect(attention.polled(returned: 3_100, done: 3_100) == 3_000)
        #expect(attention.unattended == 3_000 && attention.pauses == 1)
        // Late by no more than the threshold: noise, and the clock moves.
        _ = attention.willPoll(at: 3_101, wait: 100)
        #expect(attention.polled(returned: 3_201 + LoopAttention.threshold, done: 3_202 + LoopAttention.threshold) == 0)
        #expect(attention.unattended == 3_000)
    }

    @Test func callbacksThatRanLongAreLeftOutAndAddToALateWait() {
        var attention = LoopAttention()
        // Stopped inside a read callback for 2 s after an early wake-up.
        _ = attention.willPoll(at: 0, wait: 2_000)
        #expect(attention.polled(returned: 10, done: 2_010) == 2_000)
        // Both: a late wait and long callbacks.
        _ = attention.willPoll(at: 2_010, wait: 0)
        #expect(attention.polled(returned: 2_510, done: 3_010) == 1_000)
        #expect(attention.unattended == 3_000 && attention.pauses == 2)
    }

    @Test func aStopBetweenAnIterationsEndAndTheNextTimersIsLeftOut() {
        // Stopped right after the flush that wrote a Pong, before the next iteration's timers.
        var attention = LoopAttention()
        _ = attention.willPoll(at: 0, wait: 100)
        #expect(attention.polled(returned: 50, done: 51) == 0)
        #expect(attention.resumed(at: 2_551) == 2_500)
        // The timers' own work before the poll counts too, when long.
        #expect(attention.willPoll(at: 2_552, wait: 0) == 0)
        #expect(attention.polled(returned: 2_552, done: 2_553) == 0)
        #expect(attention.resumed(at: 2_560) == 0)
        #expect(attention.willPoll(at: 2_560 + LoopAttention.threshold + 1, wait: 0) == LoopAttention.threshold + 1)
        #expect(attention.unattended == 2_601 && attention.pauses == 2)
        // The first point counts nothing: there is no earlier one.
        var fresh = LoopAttention()
        #expect(fresh.resumed(at: 9_000) == 0 && fresh.polled(returned: 9_500, done: 9_999) == 0)
    }
}
