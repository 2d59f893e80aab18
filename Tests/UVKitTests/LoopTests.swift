import Foundation
import Testing
@testable import UVKit

@Suite struct LoopTests {
    @Test func emptyLoopClosesCleanly() throws {
        let t = try TestLoop()
        #expect(t.loop.openHandleCount == 1)  // the watchdog
        try t.finish()
    }

    @Test func closeThrowsBusyWhileHandlesAreOpen() throws {
        let t = try TestLoop()
        let timer = UVTimer(loop: t.loop)
        #expect(throws: UVError.busy) { try t.loop.close() }
        try t.finish(closing: [timer])
    }

    @Test func timerFiresOnce() throws {
        let t = try TestLoop()
        let timer = UVTimer(loop: t.loop)
        var fired = 0
        timer.start(after: 1) { fired += 1 }
        t.run()
        #expect(fired == 1)
        #expect(!timer.isActive)
        try t.finish(closing: [timer])
    }

    @Test func repeatingTimerStopsAfterN() throws {
        let t = try TestLoop()
        let timer = UVTimer(loop: t.loop)
        var fired = 0
        timer.start(after: 1, repeat: 1) {
            fired += 1
            if fired == 5 { timer.stop() }
        }
        t.run()
        #expect(fired == 5)
        try t.finish(closing: [timer])
    }

    @Test func closeIsIdempotentAndRunsEveryCompletion() throws {
        let t = try TestLoop()
        let timer = UVTimer(loop: t.loop)
        var completions = 0
        timer.close { completions += 1 }
        timer.close { completions += 1 }
        #expect(timer.isClosing && !timer.isClosed)
        t.run()
        #expect(timer.isClosed)
        #expect(completions == 2)
        timer.close { completions += 1 }
        #expect(completions == 3)
        try t.finish()
    }

    @Test func handleIsReleasedAfterClose() throws {
        let t = try TestLoop()
        weak var weakTimer: UVTimer?
        do {
            let timer = UVTimer(loop: t.loop)
            weakTimer = timer
            timer.start(after: 1) { _ = timer }  // a cycle through the callback
        }
        t.run()
        #expect(weakTimer != nil)  // retained by libuv's handle->data until closed
        weakTimer?.close()
        t.run()
        #expect(weakTimer == nil)
        try t.finish()
    }

    @Test func signalCallbackRunsOnTheLoop() throws {
        let t = try TestLoop()
        let signal = try UVSignal(loop: t.loop)
        var received: [Int32] = []
        try signal.start(SIGUSR1) { signum in
            received.append(signum)
            signal.close()
        }
        kill(getpid(), SIGUSR1)  // process-directed: dispatch worker threads block signals, so raise() would stay pending
        t.run()
        #expect(received == [SIGUSR1])
        try t.finish()
    }

    @Test func checkRunsOncePerIterationAfterIO() throws {
        let t = try TestLoop()
        let check = UVCheck(loop: t.loop)
        let timer = UVTimer(loop: t.loop)
        var events: [String] = []
        check.start { events.append("check") }
        var ticks = 0
        timer.start(after: 1, repeat: 1) {
            ticks += 1
            events.append("timer")
            if ticks == 3 {
                timer.close()
                check.close()
            }
        }
        t.run()
        // Every timer callback is followed by the check of the same iteration.
        for (index, event) in events.enumerated() where event == "timer" && index + 1 < events.count {
            #expect(events[index + 1] == "check")
        }
        #expect(events.filter { $0 == "timer" }.count == 3)
        try t.finish()
    }

    @Test func idleStartedFromItsOwnCallbackRunsOncePerIteration() throws {
        // The daemon's wake-up: re-armed while a backlog remains, it must let each iteration's poll
        // and check run in between (a 0 ms timer re-armed from its callback fires again at once).
        let t = try TestLoop()
        let idle = UVIdle(loop: t.loop)
        let check = UVCheck(loop: t.loop)
        var events: [String] = []
        var runs = 0
        func wake() {
            idle.start {
                idle.stop()
                runs += 1
                events.append("idle")
                if runs < 5 {
                    wake()
                } else {
                    idle.close()
                    check.close()
                }
            }
        }
        wake()
        check.start { events.append("check") }
        t.run()
        #expect(events == Array(repeating: ["idle", "check"], count: 4).flatMap { $0 } + ["idle"])
        try t.finish()
    }

    @Test func loopQueueRunsEveryJobOnceFromFourThreads() throws {
        let t = try TestLoop()
        let queue = try LoopQueue(loop: t.loop)
        let threads = 4, perThread = 1000
        // Touched only on the loop thread (by the jobs) and read after the loop returned.
        final class Tally: @unchecked Sendable {
            var seen = [Int](repeating: 0, count: 4 * 1000)
            var offLoop = 0
            var total = 0
        }
        let tally = Tally()
        let loopThread = pthread_self()
        for thread in 0..<threads {
            Thread.detachNewThread {
                for index in 0..<perThread {
                    let id = thread * perThread + index
                    let accepted = queue.enqueue {
                        if pthread_equal(pthread_self(), loopThread) == 0 { tally.offLoop += 1 }
                        tally.seen[id] += 1
                        tally.total += 1
                        if tally.total == threads * perThread { queue.close() }
                    }
                    precondition(accepted)
                }
            }
        }
        t.run()
        #expect(tally.total == threads * perThread)
        #expect(tally.seen.allSatisfy { $0 == 1 })
        #expect(tally.offLoop == 0)
        #expect(queue.enqueue {} == false)
        try t.finish()
    }

    @Test func loopQueueKeepsPerThreadOrder() throws {
        let t = try TestLoop()
        let queue = try LoopQueue(loop: t.loop)
        final class Order: @unchecked Sendable { var values: [Int] = [] }  // loop thread only
        let order = Order()
        Thread.detachNewThread {
            for value in 0..<500 {
                queue.enqueue {
                    order.values.append(value)
                    if value == 499 { queue.close() }
                }
            }
        }
        t.run()
        #expect(order.values == Array(0..<500))
        try t.finish()
    }

    @Test func errorsDescribeTheFailingCall() {
        let error = UVError(UVError.connectionRefused.rawValue, function: "uv_pipe_connect")
        #expect(error == .connectionRefused)
        #expect(error.name == "ECONNREFUSED")
        #expect(error.description == "uv_pipe_connect failed: connection refused (ECONNREFUSED)")
    }
}
