import Foundation
import Testing

/// Whether the suite runs on CI (`CI=true`), where nothing is skipped: a test whose tool or
/// permission is missing runs and fails, saying what is missing (README, "The two commands").
public let onCI = ProcessInfo.processInfo.environment["CI"] == "true"

/// What a test needs besides the suite's products (a tool, a permission), and what to say when it is
/// missing. Outside CI a test whose precondition is not met is skipped with `reason`; on CI it runs,
/// and `require()` at its top fails it with the same reason.
public struct Precondition: Sendable {
    public let isMet: Bool
    public let reason: Comment

    public init(_ isMet: Bool, _ reason: Comment) {
        self.isMet = isMet
        self.reason = reason
    }

    /// An executable at `path`, said missing as `reason`.
    public static func executable(_ path: String, _ reason: Comment) -> Precondition {
        Precondition(FileManager.default.isExecutableFile(atPath: path), reason)
    }

    /// Fails the test (on CI, where it runs without the precondition) with `reason`.
    public func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(isMet, "\(reason)\(onCI ? " (CI=true: a missing precondition fails the test)" : "")", sourceLocation: sourceLocation)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when `precondition` is met, and always on CI: there the test's own
    /// `precondition.require()` fails it instead of a skip.
    public static func needs(_ precondition: Precondition) -> Self {
        .enabled(if: precondition.isMet || onCI, precondition.reason)
    }
}
