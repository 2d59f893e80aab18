import FlowDaemon
import FlowdTestSupport
import Testing

/// The flows' timers as the daemon keeps them: deadlines of any length, by key.
@Suite struct TimerQueueTests {
    @Test func deadlinesPassInOrderTiesInTheOrderAdded() {
        var queue = TimerQueue<Int>()
        queue.add(1, at: 500)
        queue.add(2, at: 100)
        queue.add(3, at: 500)
        queue.add(4, at: 300)
        #expect(queue.next == 100 && queue.count == 4)
        let early = queue.expired(now: 99)
        let first = queue.expired(now: 300)
        let rest = queue.expired(now: 1_000)
        #expect(early.isEmpty && first == [2, 4] && rest == [1, 3])
        #expect(queue.next == nil && queue.count == 0)
    }

    @Test func aRemovedOrReplacedDeadlineDoesNotPass() {
        var queue = TimerQueue<Int>()
        queue.add(1, at: 100)
        queue.add(2, at: 200)
        let removed = queue.remove(1)
        let removedAgain = queue.remove(1)
        #expect(removed && !removedAgain)
        queue.add(2, at: 50)
        #expect(queue.count == 1 && queue.contains(2) && !queue.contains(1))
        let expired = queue.expired(now: 60)
        #expect(expired == [2])
    }

    @Test func matchesASortedModelOnRandomOperations() {
        var generator = SeededGenerator(seed: 7)
        var queue = TimerQueue<Int>()
        var model: [(key: Int, at: UInt64, order: Int)] = []
        var order = 0
        var now: UInt64 = 0
        for _ in 0..<5_000 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                let key = Int.random(in: 0..<40, using: &generator)
                let at = now + UInt64.random(in: 0..<100, using: &generator)
                queue.add(key, at: at)
                model.removeAll { $0.key == key }
                order += 1
                model.append((key, at, order))
            case 1:
                let key = Int.random(in: 0..<40, using: &generator)
                let removed = queue.remove(key)
                #expect(removed == model.contains { $0.key == key })
                model.removeAll { $0.key == key }
            default:
                now += UInt64.random(in: 0..<30, using: &generator)
                let due = model.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }.map(\.key)
                model.removeAll { $0.at <= now }
                let expired = queue.expired(now: now)
                #expect(expired == due)
            }
            #expect(queue.next == model.map(\.at).min())
        }
    }
}
