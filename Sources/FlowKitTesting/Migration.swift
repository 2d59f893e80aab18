import FlowKit

// Removed API, kept for one minor version as unavailable declarations, so the compiler says what to
// write instead (docs/CHANGELOG.md, "Removed").

extension FakeScreenTransport {
    /// The fake transport of 0.1.0, made before its runtime.
    @available(*, unavailable, message: """
        the fake screens are made over their runtime: FakeScreenTransport(runtime:acknowledgesAutomatically:), \
        or let FlowTester() build both
        """)
    public convenience init(acknowledgesAutomatically: Bool = true) {
        fatalError("unavailable")
    }
}
