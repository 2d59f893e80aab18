/// One JSON value found by `JSONTokenizer`. A document is a flat array of tokens in document order;
/// a container's children follow it, an object's as key, value, key, value...
struct JSONToken {
    /// What the value is.
    enum Kind: UInt8 {
        case object, array, string, number, trueValue, falseValue, null
    }

    var kind: Kind
    /// Strings: ASCII without escapes (the bytes are the string). Numbers: an integer (no `.`, `e`).
    var plain: Bool
    /// Containers: how many elements (objects: entries).
    var count: Int32
    /// Strings and numbers: the byte range (strings without their quotes).
    var start: Int32
    var end: Int32
    /// The index of the token after this value and everything inside it.
    var next: Int32
}
