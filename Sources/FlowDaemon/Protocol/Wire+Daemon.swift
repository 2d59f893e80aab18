import FlowKit
import FlowWire

extension Flowd_V1_Shutdown {
    /// A `Shutdown` with a reason and a message for people.
    package init(reason: Reason, message: String) {
        self.init()
        self.reason = reason
        self.message = message
    }
}

extension Flowd_V1_Envelope {
    /// The serial of a placement command body, if it is one.
    static func serial(of body: OneOf_Body) -> UInt64? {
        switch body {
        case .place(let m): m.serial
        case .update(let m): m.serial
        case .placementChanged(let m): m.serial
        case .dismiss(let m): m.serial
        default: nil
        }
    }
}

extension Flowd_V1_LinkOpened {
    /// The answer to an `OpenLink` that opened `opened`; `place` is where the user is now.
    init(_ opened: OpenedLink, place: Link?) {
        self.init()
        link = "\(opened.link)"
        started = opened.started.map(\.rawValue)
        reused = opened.reused.map(\.rawValue)
        unwound = opened.unwound.map(\.rawValue)
        visibleScreen = opened.visibleScreen?.rawValue ?? 0
        message = "\(opened)"
        self.place = place.map { "\($0)" } ?? ""
    }
}

extension LinkError {
    /// The wire code of a link's refusal.
    var wireCode: Flowd_V1_ErrorCode {
        switch code {
        case .unknownLink: .unknownLink
        case .refused, .unavailable, .busy, .failed: .linkRefused
        default: .badLink
        }
    }
}
