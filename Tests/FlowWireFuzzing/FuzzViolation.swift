/// An invariant a fuzz target checks did not hold for an input: a bug, or a wrong invariant.
package struct FuzzViolation: Error, CustomStringConvertible {
    /// What did not hold, with the values involved.
    package var description: String

    /// A violation described by `description`.
    package init(_ description: String) {
        self.description = description
    }
}
