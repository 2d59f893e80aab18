/// A benchmark that could not run: what failed and what to do, for the person at the terminal.
struct BenchError: Error, CustomStringConvertible {
    /// The whole sentence shown to the user.
    var description: String

    /// An error with `description` as its message.
    init(_ description: String) {
        self.description = description
    }

    /// An error from a C driver's message buffer.
    init(context: String, cError buffer: [CChar]) {
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.description = "\(context): \(message)"
    }
}
