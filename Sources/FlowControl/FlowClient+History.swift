import FlowWire

extension FlowClient {
    /// One page of the daemon's history of inputs (`GetHistory`): from input `from` (1: the first),
    /// at most `limit` (0: as many as a frame carries), with the events each caused when asked.
    /// With `expectEpoch` (not 0) the daemon refuses when the history was numbered again since.
    public func historyPage(from: UInt64 = 1, limit: UInt64 = 0, events: Bool = false, expectEpoch: UInt64 = 0,
                            timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_History {
        var ask = Flowd_V1_GetHistory()
        ask.from = from
        ask.limit = limit
        ask.events = events
        ask.expectEpoch = expectEpoch
        let reply = try request(.getHistory(ask), timeoutMilliseconds: timeoutMilliseconds)
        guard case .history(let history) = reply.body else { throw .unexpected("expected History, got \(reply.bodyName)") }
        return history
    }

    /// The history's inputs `from` to `to` (0: to the last), asked page by page, every page of the
    /// same numbering (`expectEpoch`, else the first page's: a compaction in between is refused, not
    /// mixed in); the first page's fields with every input of the range.
    public func history(from: UInt64 = 1, to: UInt64 = 0, events: Bool = false, expectEpoch: UInt64 = 0,
                        timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_History {
        let from = max(from, 1)
        guard to == 0 || to >= from else { throw .unexpected("the range \(from)..\(to) ends before it starts") }
        var whole = try historyPage(from: from, limit: to == 0 ? 0 : to - from + 1, events: events, expectEpoch: expectEpoch,
                                    timeoutMilliseconds: timeoutMilliseconds)
        let last = to == 0 ? whole.count : min(to, whole.count)
        while let next = whole.inputs.last.map({ $0.index + 1 }), next <= last {
            let page = try historyPage(from: next, limit: last - next + 1, events: events, expectEpoch: whole.epoch,
                                       timeoutMilliseconds: timeoutMilliseconds)
            guard !page.inputs.isEmpty else { break }
            whole.inputs += page.inputs
            whole.count = page.count
        }
        return whole
    }

    /// The app right after input `index` (0: the start), computed by the daemon in a scratch runtime;
    /// with `startState`, also the records that rebuild it.
    public func moment(_ index: UInt64, startState: Bool = false, expectEpoch: UInt64 = 0,
                       timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_Moment {
        var ask = Flowd_V1_GetMoment()
        ask.index = index
        ask.startState = startState
        ask.expectEpoch = expectEpoch
        let reply = try request(.getMoment(ask), timeoutMilliseconds: timeoutMilliseconds)
        guard case .moment(let moment) = reply.body else { throw .unexpected("expected Moment, got \(reply.bodyName)") }
        return moment
    }
}

/// A range of the daemon's history as a `flowctl record` recording (docs/flowctl.md, "History"):
/// the tree at the range's first moment with the records that rebuild it, then the events of every
/// input after it up to the last, so that `flowd replay` checks the range ("same placements").
public enum HistoryExport {
    /// Why a range cannot be exported.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Inputs a recording cannot carry: `flowd replay` feeds only what screens, people and links did.
    static let uncarried: Set<String> = ["timer fired", "work succeeded", "work failed"]

    /// The frames of a recording of moments `from` to `to` (`from` < `to`; 0: the last), read from
    /// `client`.
    public static func recording(from: UInt64, to: UInt64, client: FlowClient,
                                 timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws -> [UInt8] {
        let start = try client.moment(from, startState: true, timeoutMilliseconds: timeoutMilliseconds)
        let last = to == 0 ? start.count : to
        guard last <= start.count else {
            throw Refusal(description: "there is no moment \(last): the history holds inputs 1 to \(start.count)")
        }
        guard from < last else {
            throw Refusal(description: "the range \(from)..\(last) holds no input: it must end after it starts (moments 0 to \(start.count))")
        }
        // The inputs of the start's numbering: a compaction in between is refused, not mixed in.
        let history = try client.history(from: from + 1, to: last, events: true, expectEpoch: start.epoch, timeoutMilliseconds: timeoutMilliseconds)
        guard history.inputs.count == Int(last - from) else {
            throw Refusal(description: "the daemon gave \(history.inputs.count) of the \(last - from) inputs \(from + 1) to \(last); export again")
        }
        for input in history.inputs {
            if uncarried.contains(input.kind) {
                throw Refusal(description: """
                    input \(input.index) (\(input.text)) answers a flow's timer or work, which a recording does not carry \
                    (flowd replay feeds what screens, people and links did); export a range that ends before it or starts after it
                    """)
            }
            if input.kind == "dismissal completed", !input.text.hasPrefix("dismissal acknowledged") {
                throw Refusal(description: """
                    input \(input.index) (\(input.text)) is a dismissal that was not acknowledged, and flowd replay's screens \
                    acknowledge every one; export a range that ends before it or starts after it
                    """)
            }
            if input.cut {
                throw Refusal(description: """
                    input \(input.index) does not fit in a frame with its events; connect with a larger frame size
                    """)
            }
        }
        var tree = start.tree
        tree.lastEventSeq = 0
        var frames = try FrameEncoder.encode(Flowd_V1_Envelope(.tree(tree)), maxFrameSize: Int(UInt32.max))
        var seq: UInt64 = 0
        for input in history.inputs {
            for var event in input.events {
                seq += 1
                event.seq = seq
                frames += try FrameEncoder.encode(Flowd_V1_Envelope(.event(event)), maxFrameSize: Int(UInt32.max))
            }
        }
        return frames
    }
}
