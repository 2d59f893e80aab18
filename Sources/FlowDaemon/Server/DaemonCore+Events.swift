import FlowKit
import FlowWire

extension DaemonCore {
    /// A screen was lost and removed: says whether its flow carries on without it (it was told
    /// `.screenLost`) or ended with it (it was the flow's first screen). `owner` is read before the loss.
    func emitScreenLost(_ screen: ScreenID, kind: String, owner: FlowID?, host: UInt64?) {
        guard debug.events.hasSubscribers else { return debug.events.countUnheard() }
        let flow = owner.map { owner in
            let name = "\(owner) \(runtime?.typeName(of: owner) ?? "")".trimmingCharacters(in: .whitespaces)
            return runtime?.runningFlows.contains(owner) == true ? "flow \(name) carries on without it" : "flow \(name) ended with it"
        } ?? "no flow owned it"
        debug.events.emit(.screenLost, screen: screen, flow: owner, connection: host ?? 0, name: kind,
                  text: "screen \(screen) (\(kind)) lost; \(flow)")
    }
}
