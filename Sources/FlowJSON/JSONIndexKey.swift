/// The coding key of an element of an unkeyed container (its index), as Foundation reports it in
/// `codingPath`.
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// The key `superEncoder()`/`superDecoder()` use: "super".
struct JSONSuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }

    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
