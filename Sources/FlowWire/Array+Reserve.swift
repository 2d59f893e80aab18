extension Array where Element == UInt8 {
    /// Makes room for `additional` more bytes, growing geometrically.
    /// (`reserveCapacity` grows to about what is asked: reserving before
    /// every frame would copy the whole buffer again each time.)
    @inline(__always)
    mutating func reserveForAppending(_ additional: Int) {
        let needed = count + additional
        if needed > capacity { reserveCapacity(Swift.max(needed, capacity * 2)) }
    }
}
