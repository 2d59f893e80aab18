/// Thrown inside the fast JSON coders when a value or an input needs something they do not do
/// (floating-point numbers, Foundation's special types, unusual container use, unusual input);
/// `FastJSONEncoder` and `FastJSONDecoder` catch it and retry with Foundation.
struct UnsupportedJSON: Error {
    /// What the fast path could not handle.
    let reason: StaticString

    init(_ reason: StaticString) { self.reason = reason }
}
