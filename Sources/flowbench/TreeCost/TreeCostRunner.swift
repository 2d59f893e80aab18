import CBenchRelay
import FlowKit
import Foundation

/// Drives a `FlowRuntime` with a `NoOpTransport` in this process and times each
/// operation kind at each tree size: FlowKit's own cost, without sockets.
enum TreeCostRunner {
    /// The operation kinds, in table order.
    static let operations = ["push", "pop (user back)", "update", "output routing", "dismissal"]

    /// Nanoseconds per operation, per kind, at a tree of `size` screens: `size / 1000`
    /// tabs (at least one) of stacks of equal depth; operations act on tab 0's stack.
    static func measure(size: Int, operations count: Int) throws -> [String: Double] {
        let tabs = max(1, size / 1000)
        let transport = NoOpScreens()
        let runtime = FlowRuntime()
        let tree = BenchTreeFlow(tabs: tabs, depth: size / tabs)
        _ = runtime.start(tree, windowRoot) { _ in }
        transport.drain(runtime)
        guard runtime.liveScreenCount == tabs * (size / tabs), let stack = tree.stacks.first?.flow else {
            throw BenchError("tree-cost: building a tree of \(size) screens placed \(runtime.liveScreenCount); FlowKit refused a placement")
        }
        var result: [String: Double] = [:]
        var durations = [UInt64](repeating: 0, count: count)
        // Each operation timed on its own: the median is the cost of one, the mean (kept as "NAME
        // mean") also carries the first operations after the tree was built, which at 10^6 screens
        // pay the allocator's warm-up (1-5 ms each for the first pushes; the median stays flat).
        func time(_ name: String, _ body: () throws -> Void) rethrows {
            for index in 0..<count {
                let start = cbr_now_ns()
                try body()
                durations[index] = cbr_now_ns() - start
            }
            result[name + " mean"] = Double(durations.reduce(0, +)) / Double(count)
            durations.sort()
            result[name] = Double(durations[count / 2])
        }
        time("push") {
            stack.push()
            transport.drain(runtime)
        }
        try time("pop (user back)") {
            try runtime.receiveUserNavigation(.back(.immediate), from: stack.top.id)
            transport.drain(runtime)
            stack.popped()
        }
        // Two states in turn: an update equal to the screen's state would send nothing.
        let states = [BenchNodeScreen.State(title: "updated a"), BenchNodeScreen.State(title: "updated b")]
        var turn = 0
        time("update") {
            turn ^= 1
            stack.top.update(states[turn])
            transport.drain(runtime)
        }
        let tap = Data(#"{"tap":{}}"#.utf8)
        try time("output routing") {
            guard try runtime.receiveOutput(screen: stack.top.id, payload: tap) else {
                throw BenchError("tree-cost: the output of screen \(stack.top.id) reached no observer")
            }
            transport.drain(runtime)
        }
        for _ in 0..<count { stack.push() }
        transport.drain(runtime)
        time("dismissal") {
            stack.dismissTop()
            transport.drain(runtime)
        }
        guard runtime.liveScreenCount == tabs * (size / tabs), transport.updates == count else {
            throw BenchError("tree-cost: after the operations \(runtime.liveScreenCount) screens are live (expected \(tabs * (size / tabs))) and \(transport.updates) updates were sent (expected \(count))")
        }
        return result
    }

    /// Nanoseconds per dismissed screen when a stack of `depth` screens is unwound
    /// (its flow terminated).
    static func unwind(depth: Int) throws -> Double {
        let transport = NoOpScreens()
        let runtime = FlowRuntime()
        let tree = BenchTreeFlow(tabs: 1, depth: depth)
        _ = runtime.start(tree, windowRoot) { _ in }
        transport.drain(runtime)
        guard let id = tree.stacks.first?.id, runtime.liveScreenCount == depth else {
            throw BenchError("tree-cost: a stack of \(depth) screens placed \(runtime.liveScreenCount)")
        }
        let start = cbr_now_ns()
        try runtime.terminate(flow: id)
        transport.drain(runtime)
        let elapsed = Double(cbr_now_ns() - start)
        guard runtime.liveScreenCount == 0, transport.dismissals == depth else {
            throw BenchError("tree-cost: unwinding \(depth) screens left \(runtime.liveScreenCount) and dismissed \(transport.dismissals)")
        }
        return elapsed / Double(depth)
    }
}
