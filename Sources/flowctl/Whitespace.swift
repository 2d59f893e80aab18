extension StringProtocol {
    /// Without the white space at either end as `CharacterSet.whitespaces` has it (Unicode's space
    /// separators, Zs, and the tab), trimmed scalar by scalar as `trimmingCharacters(in:)` did: the
    /// standard library's, not Foundation's (CharacterSet would link full Foundation, and ICU's data,
    /// into a static flowctl).
    var trimmingWhitespace: String {
        let isWhitespace: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }), let last = scalars.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}
