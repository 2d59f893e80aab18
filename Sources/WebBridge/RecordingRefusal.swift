/// Why flowd-web would not keep a recording the page made (it is over what flowd-web keeps in
/// memory): what the page is told, in the action's result, and the inspector goes on.
package struct RecordingRefusal: Error, Equatable, CustomStringConvertible {
    /// The most bytes flowd-web keeps of recordings, one running or all kept together: 64 MiB.
    package static let maxBytes = 64 << 20

    /// What happened and what to do, for the page.
    package var reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}
