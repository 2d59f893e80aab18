import FlowWire
import Foundation

/// A file written by `flowctl record`: wire frames (4-byte little-endian
/// length, then a `flowd.v1.Envelope`); the first carries the `Tree` at the
/// start of the recording (with `start_state`, what rebuilds that state),
/// every later one an `Event` (with payloads) or a `Lagged`. See
/// docs/flowctl.md, "Recording format".
public struct Recording: Sendable {
    /// The daemon's tree when the recording started.
    public var tree: Flowd_V1_Tree
    /// Events in the order the daemon emitted them.
    public var events: [Flowd_V1_Event]
    /// Lagged notices found in the file (a recording with any is incomplete).
    public var lagged: [Flowd_V1_Lagged]

    /// A recording made of its parts (for tests).
    public init(tree: Flowd_V1_Tree, events: [Flowd_V1_Event], lagged: [Flowd_V1_Lagged] = []) {
        self.tree = tree
        self.events = events
        self.lagged = lagged
    }

    /// Reads and checks a recording file.
    public static func read(path: String) throws(ReplayError) -> Recording {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReplayError("cannot read \(path): no such file or not readable; make one with `flowctl record \(path)`")
        }
        return try parse(Array(data), name: path)
    }

    /// Parses the bytes of a recording; `name` is used in messages.
    public static func parse(_ bytes: [UInt8], name: String = "the recording") throws(ReplayError) -> Recording {
        var decoder = FrameDecoder(maxFrameSize: 256 << 20)
        decoder.append(bytes)
        var tree: Flowd_V1_Tree?
        var events: [Flowd_V1_Event] = []
        var lagged: [Flowd_V1_Lagged] = []
        var index = 0
        while true {
            let envelope: Flowd_V1_Envelope?
            do {
                envelope = try decoder.nextEnvelope()
            } catch {
                // The frame codec's own advice (a larger max_frame_size, ...) is for peers, not files.
                guard index > 0 else { throw notARecording(name) }
                throw ReplayError("\(name) is damaged: frame \(index) does not decode (\(error.errorCode)); the frames before it were a recording")
            }
            guard let envelope else { break }
            switch envelope.body {
            case .tree(let first) where index == 0:
                tree = first
            case .event(let event) where index > 0:
                events.append(event)
            case .lagged(let notice) where index > 0:
                lagged.append(notice)
            default:
                throw ReplayError("\(name) is not a flowctl recording: frame \(index) is a \(envelope.bodyName); expected a Tree first, then Events")
            }
            index += 1
        }
        if decoder.isMidFrame {
            guard index > 0 else { throw notARecording(name) }
            throw ReplayError("\(name) ends in the middle of a frame (\(decoder.bufferedByteCount) bytes left): the recorder was killed while writing")
        }
        guard let tree else { throw ReplayError("\(name) is empty: a recording starts with the daemon's Tree") }
        if tree.hasStartState { try RecordedStartState.check(tree.startState, name: name) }
        return Recording(tree: tree, events: events, lagged: lagged)
    }

    private static func notARecording(_ name: String) -> ReplayError {
        ReplayError("\(name) is not a flowctl recording: it does not start with the frame of a daemon's Tree; make one with `flowctl record FILE`")
    }
}

/// Why a recording cannot be read or replayed: what happened and what to do. Thrown by `Recording`
/// (the file is not a recording, or is damaged) and by `Replay` (it cannot be replayed against the app).
public struct ReplayError: Error, CustomStringConvertible, Sendable {
    /// The message for the person at the terminal.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
