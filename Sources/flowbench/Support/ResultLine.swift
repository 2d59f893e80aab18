/// One line a child process prints for its parent: a tag, then `key=value` pairs.
/// `result count=200000 p50=14000` — values never contain spaces.
struct ResultLine: CustomStringConvertible {
    /// The first word: `ready` or `result`.
    var tag: String
    /// The pairs, in order.
    var fields: [(key: String, value: String)]

    /// A line with `tag` and `fields`.
    init(_ tag: String, _ fields: [(String, String)] = []) {
        self.tag = tag
        self.fields = fields.map { (key: $0.0, value: $0.1) }
    }

    /// Parses a printed line; nil if it is empty.
    init?(parsing line: String) {
        let words = line.split(separator: " ")
        guard let first = words.first else { return nil }
        tag = String(first)
        fields = words.dropFirst().compactMap { word in
            guard let equals = word.firstIndex(of: "=") else { return nil }
            return (key: String(word[..<equals]), value: String(word[word.index(after: equals)...]))
        }
    }

    var description: String {
        ([tag] + fields.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }

    /// The value of `key`, as a number.
    func double(_ key: String) throws -> Double {
        guard let text = fields.first(where: { $0.key == key })?.value, let value = Double(text) else {
            throw BenchError("a child's result line lacks a number for \(key): \(description)")
        }
        return value
    }

    /// Prints the line to standard output at once.
    func emit() {
        print(description)
        fflushStandardOutput()
    }
}
