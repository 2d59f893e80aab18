extension StringProtocol {
    /// Without the spaces and tabs at either end. The standard library's, not Foundation's
    /// `trimmingCharacters(in:)`: that one's `CharacterSet` would link full Foundation and ICU's data
    /// into a static flowd (docs/performance.md, "On a device").
    package var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
