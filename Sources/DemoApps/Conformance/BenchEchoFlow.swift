import FlowKit
import Foundation

/// The flowd side of flowbench's throughput rows: N screens of kinds `echo-0`
/// ... `echo-(N-1)` in the N tabs of a tab bar, N from the environment variable
/// `FLOWD_BENCH_SCREENS` (default 1, at most 10,000). Each kind goes to its own
/// attached host; every output of a screen updates that same screen (an echo
/// through a flow).
public final class BenchEchoFlow: Flow {
    public typealias RequiredContext = Presenter

    /// The number of screens, from `FLOWD_BENCH_SCREENS`.
    public let screens: Int

    public init(screens: Int = BenchEchoFlow.screensFromEnvironment) {
        self.screens = Self.screenCount(screens)
    }

    /// The number of screens a request for `requested` gets: from 1 to 10,000.
    static func screenCount(_ requested: Int) -> Int { max(1, min(requested, 10_000)) }

    /// `FLOWD_BENCH_SCREENS` of this process, or 1.
    public static var screensFromEnvironment: Int {
        ProcessInfo.processInfo.environment["FLOWD_BENCH_SCREENS"].flatMap { Int($0) } ?? 1
    }

    /// The kind of screen `index`: `echo-<index>`.
    public static func kind(_ index: Int) -> String { "echo-\(index)" }

    public func start(_ flow: FlowContext<BenchEchoFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: screens)
        let all = Self.digits
        for index in 0..<screens {
            let digits = [index / 1000 % 10, index / 100 % 10, index / 10 % 10, index % 10].map { all[$0] }
            Self.showEcho(digits[0], digits[1], digits[2], digits[3], tabs[index], in: flow)
        }
    }

    /// The module of screen `index` (`BenchEchoScreen` of its digits), for the app's contract.
    public static func module(_ index: Int) -> any ScreenModule.Type {
        let all = digits
        let thousands: Int = index / 1000 % 10, hundreds: Int = index / 100 % 10, tens: Int = index / 10 % 10, ones: Int = index % 10
        return echoModule(all[thousands], all[hundreds], all[tens], all[ones])
    }

    private static func echoModule<A: BenchDigit, B: BenchDigit, C: BenchDigit, D: BenchDigit>(
        _: A.Type, _: B.Type, _: C.Type, _: D.Type
    ) -> any ScreenModule.Type {
        BenchEchoScreen<A, B, C, D>.self
    }

    private static var digits: [any BenchDigit.Type] { [
        BenchDigit0.self, BenchDigit1.self, BenchDigit2.self, BenchDigit3.self, BenchDigit4.self,
        BenchDigit5.self, BenchDigit6.self, BenchDigit7.self, BenchDigit8.self, BenchDigit9.self,
    ] }

    private static func showEcho<A: BenchDigit, B: BenchDigit, C: BenchDigit, D: BenchDigit>(
        _: A.Type, _: B.Type, _: C.Type, _: D.Type, _ placer: ScreenPlacer<TabBar>, in flow: FlowContext<BenchEchoFlow>
    ) {
        showEcho(BenchEchoScreen<A, B, C, D>.self, placer, in: flow)
    }

    /// Generic over the module itself, not its digits, as an app's code is over a concrete module:
    /// the handler then holds the module's type, where one generic over the digits would look up
    /// `BenchEchoScreen<A, B, C, D>` at run time on every output (~500 instructions, callgrind).
    private static func showEcho<M: ScreenModule>(_: M.Type, _ placer: ScreenPlacer<TabBar>, in flow: FlowContext<BenchEchoFlow>)
    where M.State == CardState, M.Output == CardOutput {
        var count = 0
        let screen = flow.show(M.self, CardState(title: "0", buttons: ["Echo"]), placer)
        screen.onOutput { _ in
            count += 1
            screen.update(CardState(title: "\(count)", buttons: ["Echo"]))
        }
    }
}

/// Screen `echo-<ABCD>` of the throughput benchmark: one type per kind, since a
/// kind is a static property; the four decimal digits are type parameters.
public enum BenchEchoScreen<A: BenchDigit, B: BenchDigit, C: BenchDigit, D: BenchDigit>: ScreenModule {
    public typealias State = CardState
    public typealias Output = CardOutput
    public static var kind: String { BenchEchoFlow.kind(A.value * 1000 + B.value * 100 + C.value * 10 + D.value) }
    public static var exampleState: CardState? { CardState.example }
    public static var exampleOutputs: [CardOutput] { CardOutput.examples }
}

/// A decimal digit as a type, for `BenchEchoScreen`'s kinds.
public protocol BenchDigit { static var value: Int { get } }
/// The digit 0 as a type.
public enum BenchDigit0: BenchDigit { public static let value = 0 }
/// The digit 1 as a type.
public enum BenchDigit1: BenchDigit { public static let value = 1 }
/// The digit 2 as a type.
public enum BenchDigit2: BenchDigit { public static let value = 2 }
/// The digit 3 as a type.
public enum BenchDigit3: BenchDigit { public static let value = 3 }
/// The digit 4 as a type.
public enum BenchDigit4: BenchDigit { public static let value = 4 }
/// The digit 5 as a type.
public enum BenchDigit5: BenchDigit { public static let value = 5 }
/// The digit 6 as a type.
public enum BenchDigit6: BenchDigit { public static let value = 6 }
/// The digit 7 as a type.
public enum BenchDigit7: BenchDigit { public static let value = 7 }
/// The digit 8 as a type.
public enum BenchDigit8: BenchDigit { public static let value = 8 }
/// The digit 9 as a type.
public enum BenchDigit9: BenchDigit { public static let value = 9 }
