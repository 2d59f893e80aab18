/// An invariant a fuzz target checks did not hold for an input: a bug, or a wrong invariant.
package struct FuzzViolation: Error, CustomStringConvertible {
    /// What did not hold, with the values involved.
    package var description: String
    /// The name of the known bug this is (reported, not fixed yet; docs/fuzzing.md "Known issues"),
    /// or nil for a finding. A fuzzer ends the execution there instead of stopping, so that a long run
    /// explores past it; the tests replay its input as a known issue until the bug is fixed.
    package var knownIssue: String?

    /// A violation described by `description`; `knownIssue` names the known bug it is.
    package init(_ description: String, knownIssue: String? = nil) {
        self.description = description
        self.knownIssue = knownIssue
    }
}
