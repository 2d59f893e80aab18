extension UntypedJSON {
    /// Whether the key `a` sorts before `b` in an object flowctl prints: as JSONSerialization's
    /// `.sortedKeys` sorted them on Linux, with `compare(_:options: [.numeric, .caseInsensitive,
    /// .forcedOrdering], locale: system)`. That is CoreFoundation's comparison
    /// (CFStringCompareWithOptionsAndLocale: equal characters, numbers by value) up to the first
    /// difference, then ICU's root collation of the rest: white space, then punctuation and symbols
    /// (`_ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $`), then numbers by value,
    /// then letters without regard to case; ties broken by case (lower first), then by code point.
    /// `x9` < `x10` < `X10`, `a_b` < `aB`. Exact for ASCII; beyond ASCII it is not ICU (see `UntypedJSON`).
    public static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        KeyOrder.compare(Array(a.utf16), Array(b.utf16)) < 0
    }
}

/// The key order of `UntypedJSON.keyPrecedes`, on UTF-16 code units as CoreFoundation compares.
enum KeyOrder {
    /// ICU root collation's primary order of the ASCII characters that are not letters, digits or
    /// ignorable controls (read from JSONSerialization's output on this toolchain; DocExamples and
    /// UntypedJSONTests pin it).
    private static let punctuationOrder: [UInt16] = Array("\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".utf16)

    /// The primary rank of a code unit that is neither a digit nor ignorable: white space and
    /// punctuation from 1, letters (either case) from 100, beyond ASCII from 1000.
    private static let ranks: [Int] = (0..<128).map { unit in
        if let position = punctuationOrder.firstIndex(of: UInt16(unit)) { return 1 + position }
        if (0x61...0x7A).contains(unit) { return 100 + unit - 0x61 }
        if (0x41...0x5A).contains(unit) { return 100 + unit - 0x41 }
        return 0  // digits (handled as numbers) and controls (ignorable)
    }

    /// The rank of digits as a group: after punctuation and symbols, before letters.
    private static let numberRank = 99

    static func isDigit(_ unit: UInt16) -> Bool { unit >= 0x30 && unit <= 0x39 }

    static func folded(_ unit: UInt16) -> UInt16 { unit >= 0x41 && unit <= 0x5A ? unit + 0x20 : unit }

    /// ASCII punctuation in Unicode's sense (general category P), which ICU's comparison extends
    /// backwards over.
    static func isPunctuation(_ unit: UInt16) -> Bool {
        unit < 0x80 && Array("!\"#%&'()*,-./:;?@[\\]_{}".utf16).contains(unit)
    }

    /// -1, 0 or 1: CoreFoundation's loop up to the first difference, then `collate`.
    static func compare(_ x: [UInt16], _ y: [UInt16]) -> Int {
        var i = 0
        var j = 0
        var forced = 0
        while i < x.count, j < y.count {
            var first = x[i]
            var second = y[j]
            // Case folds only once an order is forced (a number written with more zeros).
            if forced != 0 {
                first = folded(first)
                second = folded(second)
            }
            if isDigit(first), isDigit(second) {
                let (start1, start2) = (i, j)
                var value1: UInt64 = 0
                var value2: UInt64 = 0
                while i < x.count, isDigit(x[i]) {
                    value1 = value1 &* 10 &+ UInt64(x[i] - 0x30)
                    i += 1
                }
                while j < y.count, isDigit(y[j]) {
                    value2 = value2 &* 10 &+ UInt64(y[j] - 0x30)
                    j += 1
                }
                if value1 != value2 { return value1 < value2 ? -1 : 1 }
                if forced == 0, i - start1 != j - start2 { forced = i - start1 < j - start2 ? -1 : 1 }
                continue
            }
            if first == second {
                i += 1
                j += 1
                continue
            }
            return collate(x[extendedBack(x, i)...], y[extendedBack(y, j)...])
        }
        if i < x.count { return 1 }
        if j < y.count { return -1 }
        return forced
    }

    /// Where ICU's comparison starts: one character back, and further over punctuation.
    static func extendedBack(_ units: [UInt16], _ index: Int) -> Int {
        guard index > 0 else { return 0 }
        var location = index - 1
        while location > 0, isPunctuation(units[location]) { location -= 1 }
        return location
    }

    private enum Element {
        case number(ArraySlice<UInt16>)
        case character(rank: Int, upper: Bool)

        var isUpper: Bool {
            if case .character(_, let upper) = self { return upper }
            return false
        }
    }

    /// ICU's primary elements: digit runs as numbers (leading zeros dropped), controls ignored.
    private static func elements(_ units: ArraySlice<UInt16>) -> [Element] {
        var out: [Element] = []
        var index = units.startIndex
        while index < units.endIndex {
            let unit = units[index]
            if isDigit(unit) {
                var end = index
                while end < units.endIndex, isDigit(units[end]) { end += 1 }
                var start = index
                while start < end - 1, units[start] == 0x30 { start += 1 }
                out.append(.number(units[start..<end]))
                index = end
                continue
            }
            index += 1
            let rank = unit < 0x80 ? ranks[Int(unit)] : 1000 + Int(unit)
            if rank == 0 { continue }
            out.append(.character(rank: rank, upper: unit >= 0x41 && unit <= 0x5A))
        }
        return out
    }

    private static func primary(_ a: Element, _ b: Element) -> Int {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x.count != y.count { return x.count < y.count ? -1 : 1 }
            for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
            return 0
        case (.number, .character(let rank, _)):
            return numberRank < rank ? -1 : 1
        case (.character(let rank, _), .number):
            return rank < numberRank ? -1 : 1
        case (.character(let x, _), .character(let y, _)):
            return x == y ? 0 : x < y ? -1 : 1
        }
    }

    /// ICU's root collation as CoreFoundation asks it (primary strength and numbers by value first,
    /// then case with lower first, then code points); never 0 for different texts.
    static func collate(_ x: ArraySlice<UInt16>, _ y: ArraySlice<UInt16>) -> Int {
        let first = elements(x)
        let second = elements(y)
        for (a, b) in zip(first, second) {
            let order = primary(a, b)
            if order != 0 { return order }
        }
        if first.count != second.count { return first.count < second.count ? -1 : 1 }
        for (a, b) in zip(first, second) where a.isUpper != b.isUpper { return a.isUpper ? 1 : -1 }
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
    }
}
