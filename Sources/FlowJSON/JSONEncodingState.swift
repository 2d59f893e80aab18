import Foundation

/// The encoder behind `FastJSONEncoder`: one object for a whole encoding, writing JSON bytes as the
/// value's `encode(to:)` runs. Containers are frames on a stack; a frame is closed when its owner's
/// value returns or when an outer frame is written again, and a keyed frame whose keys did not come in
/// order is reordered in place when it closes. Anything the stack cannot express (writing to a closed
/// container) makes it throw `UnsupportedJSON`.
final class JSONEncodingState: Encoder {
    /// One open container.
    struct Frame {
        /// Increasing with every frame opened; a frame's containers carry it.
        let id: Int
        /// `{...}` (true) or `[...]` (false).
        let keyed: Bool
        /// Where its opening bracket is in `bytes`.
        let start: Int
        /// Entries written.
        var count = 0
        /// Its first entry in `entries` (keyed frames).
        let entryBase: Int
        /// Whether every key so far came after the one before it.
        var inOrder = true
    }

    /// One key of a keyed frame: where its opening quote is, and where the `:` after it is.
    struct KeyEntry {
        let start: Int
        let colon: Int
    }

    /// The mutable state, behind a pointer: stored properties of a class pay a dynamic exclusivity
    /// check on every access (a third of all instructions here); memory behind a pointer does not.
    /// Only this object touches it, on one thread.
    struct Storage {
        /// The JSON written so far.
        var bytes: [UInt8] = []
        var frames: [Frame] = []
        var entries: [KeyEntry] = []
        var scratch: [UInt8] = []
        var order: [Int] = []
        var nextFrameID = 0
        /// Set when a container is used in a way the fast path cannot follow; checked at the end.
        var failed = false
        var path: [any CodingKey] = []
        // The value being encoded now (a "level"): where its bytes start, the first frame id it may
        // own, the frame its `container(keyedBy:)`/`unkeyedContainer()` opened.
        var levelStart = 0
        var levelFirstFrame = 0
        var levelFrame = -1
    }

    private let storage: UnsafeMutablePointer<Storage>

    var bytes: [UInt8] {
        _read { yield storage.pointee.bytes }
        _modify { yield &storage.pointee.bytes }
    }
    var frames: [Frame] {
        _read { yield storage.pointee.frames }
        _modify { yield &storage.pointee.frames }
    }
    var entries: [KeyEntry] {
        _read { yield storage.pointee.entries }
        _modify { yield &storage.pointee.entries }
    }
    var scratch: [UInt8] {
        _read { yield storage.pointee.scratch }
        _modify { yield &storage.pointee.scratch }
    }
    var order: [Int] {
        _read { yield storage.pointee.order }
        _modify { yield &storage.pointee.order }
    }
    var nextFrameID: Int {
        _read { yield storage.pointee.nextFrameID }
        _modify { yield &storage.pointee.nextFrameID }
    }
    var failed: Bool {
        _read { yield storage.pointee.failed }
        _modify { yield &storage.pointee.failed }
    }
    var path: [any CodingKey] {
        _read { yield storage.pointee.path }
        _modify { yield &storage.pointee.path }
    }
    var levelStart: Int {
        _read { yield storage.pointee.levelStart }
        _modify { yield &storage.pointee.levelStart }
    }
    var levelFirstFrame: Int {
        _read { yield storage.pointee.levelFirstFrame }
        _modify { yield &storage.pointee.levelFirstFrame }
    }
    var levelFrame: Int {
        _read { yield storage.pointee.levelFrame }
        _modify { yield &storage.pointee.levelFrame }
    }

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
        storage.pointee.bytes.reserveCapacity(256)
    }

    /// Empties the buffers (keeping their capacity) for the next encoding.
    func reset() {
        storage.pointee.bytes.removeAll(keepingCapacity: true)
        storage.pointee.frames.removeAll(keepingCapacity: true)
        storage.pointee.entries.removeAll(keepingCapacity: true)
        storage.pointee.path.removeAll(keepingCapacity: true)
        storage.pointee.nextFrameID = 0
        storage.pointee.failed = false
        storage.pointee.levelStart = 0
        storage.pointee.levelFirstFrame = 0
        storage.pointee.levelFrame = -1
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        try encodeLevel(value, top: true)
        if failed { throw fail("container misuse") }
    }

    /// Encodes a value that is not a JSON primitive as a new level.
    func encodeLevel<T: Encodable>(_ value: T, top: Bool = false) throws {
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            throw fail("Foundation special type")
        }
        let saved = (levelStart, levelFirstFrame, levelFrame)
        levelStart = bytes.count
        levelFirstFrame = nextFrameID
        levelFrame = -1
        try value.encode(to: self)
        while let top = frames.last, top.id >= levelFirstFrame { try closeTop() }
        if bytes.count == levelStart {
            // Foundation writes {} for a nested value that encoded nothing, and throws at the top.
            if top { throw fail("top-level value encoded nothing") }
            bytes.append(UInt8(ascii: "{"))
            bytes.append(UInt8(ascii: "}"))
        }
        (levelStart, levelFirstFrame, levelFrame) = saved
    }

    /// Encodes any value: strings, integers and Bools directly, the rest as a new level.
    @inline(__always)
    func encodeAny<T: Encodable>(_ value: T, key: any CodingKey) throws {
        if T.self == String.self {
            writeString(withUnsafePointer(to: value) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.pointee } })
        } else if T.self == Int.self {
            writeInteger(withUnsafePointer(to: value) { $0.withMemoryRebound(to: Int.self, capacity: 1) { $0.pointee } })
        } else if T.self == Bool.self {
            writeBool(withUnsafePointer(to: value) { $0.withMemoryRebound(to: Bool.self, capacity: 1) { $0.pointee } })
        } else if T.self == [String].self {
            let array = withUnsafePointer(to: value) { $0.withMemoryRebound(to: [String].self, capacity: 1) { $0.pointee } }
            bytes.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(element)
            }
            bytes.append(UInt8(ascii: "]"))
        } else if T.self == [Int].self {
            let array = withUnsafePointer(to: value) { $0.withMemoryRebound(to: [Int].self, capacity: 1) { $0.pointee } }
            bytes.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeInteger(element)
            }
            bytes.append(UInt8(ascii: "]"))
        } else {
            path.append(key)
            defer { path.removeLast() }
            try encodeLevel(value)
        }
    }

    /// Records that the fast path gave up (so the result is discarded even if the caller swallows
    /// the error with `try?`) and returns the error to throw.
    func fail(_ reason: StaticString) -> UnsupportedJSON {
        failed = true
        return UnsupportedJSON(reason)
    }

    // MARK: Frames

    /// Opens a container frame and returns its id.
    func open(keyed: Bool) -> Int {
        let id = nextFrameID
        nextFrameID += 1
        frames.append(Frame(id: id, keyed: keyed, start: bytes.count, entryBase: entries.count))
        bytes.append(keyed ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return id
    }

    /// Makes frame `id` the innermost open one (closing the frames opened inside it) and returns its
    /// index; throws if it was closed already.
    @inline(__always)
    func activate(_ id: Int) throws -> Int {
        while let top = frames.last {
            if top.id == id { return frames.count - 1 }
            if top.id < id { break }
            try closeTop()
        }
        throw fail("write to a closed container")
    }

    /// Closes the innermost frame, reordering its entries by key if needed.
    func closeTop() throws {
        let frame = frames.removeLast()
        guard frame.keyed else {
            bytes.append(UInt8(ascii: "]"))
            return
        }
        if !frame.inOrder { try reorder(frame) }
        entries.removeLast(entries.count - frame.entryBase)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Rewrites a keyed frame's entries in key order (Foundation sorts keys by their UTF-8 bytes).
    private func reorder(_ frame: Frame) throws {
        let base = frame.entryBase
        let count = entries.count - base
        let regionStart = frame.start + 1
        let end = bytes.count
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[regionStart..<end])
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: base..<(base + count))
        var duplicate = false
        scratch.withUnsafeBufferPointer { s in
            func key(_ i: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: s[(entries[i].start + 1 - regionStart)..<(entries[i].colon - 1 - regionStart)])
            }
            order.sort { a, b in
                let ka = key(a), kb = key(b)
                return ka.lexicographicallyPrecedes(kb)
            }
            for i in 1..<count where key(order[i - 1]).elementsEqual(key(order[i])) { duplicate = true }
        }
        if duplicate { throw fail("duplicate key") }
        bytes.removeSubrange(regionStart...)
        for (n, i) in order.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: ",")) }
            let from = entries[i].start - regionStart
            let to = i + 1 < base + count ? entries[i + 1].start - 1 - regionStart : end - regionStart
            bytes.append(contentsOf: scratch[from..<to])
        }
    }

    /// Starts the next entry of keyed frame `id`: the comma, the key and the colon.
    @inline(__always)
    func beginEntry(_ id: Int, key: String) throws {
        let index = try activate(id)
        if frames[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        let start = bytes.count
        try writeKey(key)
        bytes.append(UInt8(ascii: ":"))
        let entry = KeyEntry(start: start, colon: bytes.count - 1)
        if frames[index].inOrder && frames[index].count > 0 {
            let previous = entries[entries.count - 1]
            let before = bytes[(previous.start + 1)..<(previous.colon - 1)]
            let now = bytes[(start + 1)..<(entry.colon - 1)]
            if !before.lexicographicallyPrecedes(now) { frames[index].inOrder = false }
        }
        entries.append(entry)
        frames[index].count += 1
    }

    /// Starts the next element of unkeyed frame `id` (the comma).
    @inline(__always)
    func beginElement(_ id: Int) throws -> Int {
        let index = try activate(id)
        let count = frames[index].count
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[index].count = count + 1
        return count
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(state: self, frame: levelContainer(keyed: true), parentPath: path, lastKey: nil))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(state: self, frame: levelContainer(keyed: false), parentPath: path, lastKey: nil)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(state: self, codingPath: path)
    }

    /// The frame of the current level's container: opened now, or the same keyed one again (Foundation
    /// merges a second `container(keyedBy:)`); -1 (writes throw) for anything else.
    private func levelContainer(keyed: Bool) -> Int {
        if levelFrame >= 0 {
            if keyed, let top = frames.last, top.id == levelFrame, top.keyed { return levelFrame }
            failed = true
            return -1
        }
        guard bytes.count == levelStart else {
            failed = true
            return -1
        }
        levelFrame = open(keyed: keyed)
        return levelFrame
    }

    /// Checks that a single value may be written at the current level.
    @inline(__always)
    func beginSingleValue() throws {
        guard bytes.count == levelStart, levelFrame < 0 else {
            throw fail("second value in a single-value container")
        }
    }

    // MARK: Writing

    @inline(__always)
    func writeBool(_ value: Bool) {
        if value {
            bytes.append(0x74); bytes.append(0x72); bytes.append(0x75); bytes.append(0x65)
        } else {
            bytes.append(0x66); bytes.append(0x61); bytes.append(0x6C); bytes.append(0x73); bytes.append(0x65)
        }
    }

    func writeNull() {
        bytes.append(0x6E); bytes.append(0x75); bytes.append(0x6C); bytes.append(0x6C)
    }

    func writeInteger<I: FixedWidthInteger>(_ value: I) {
        // Only the standard integer types up to 64 bits come here (the containers send Int128 to Foundation).
        var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// Writes a string value, escaped as Foundation escapes it.
    func writeString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            var run = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F else { continue }
                if run < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<i])) }
                run = i + 1
                appendEscape(byte)
            }
            if run < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...])) }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x2F: bytes.append(UInt8(ascii: "/"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    /// Writes a key; keys that need escaping or are not ASCII go to Foundation (their order would need
    /// comparing unescaped bytes).
    @inline(__always)
    private func writeKey(_ key: String) throws {
        var key = key
        try key.withUTF8 { utf8 in
            for byte in utf8 where byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C || byte == 0x2F {
                throw fail("key needs escaping or is not ASCII")
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
