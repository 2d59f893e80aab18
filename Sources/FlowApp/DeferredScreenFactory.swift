import Dispatch
import Synchronization

/// A factory whose decision is computed on a background thread as soon as it
/// is created, so that a slow probe does not delay the daemon's start-up.
public final class DeferredScreenFactory: @unchecked Sendable, Equatable {
    // @unchecked: `decision` is written once before `ready` is signalled and read only after waiting on it.
    private var decision: ScreenFactory = .attached
    private let ready = DispatchSemaphore(value: 0)
    private let waited = Mutex(false)

    /// Starts `decide` in the background now (Dispatch, not Foundation's `Thread`: a static flowd
    /// links no full Foundation, docs/performance.md "On a device").
    public init(_ decide: @escaping @Sendable () -> ScreenFactory) {
        DispatchQueue.global(qos: .utility).async { [self] in
            decision = decide()
            ready.signal()
        }
    }

    /// The decision; blocks until it is made (normally long done by the first placement).
    public var factory: ScreenFactory {
        waited.withLock { waited in
            if !waited {
                ready.wait()
                waited = true
            }
        }
        return decision
    }

    /// Two deferred factories are equal only if they are the same object.
    public static func == (lhs: DeferredScreenFactory, rhs: DeferredScreenFactory) -> Bool { lhs === rhs }
}
