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
