import FlowWire

extension Flowd_V1_Shutdown {
    /// A `Shutdown` with a reason and a message for people.
    package init(reason: Reason, message: String) {
        self.init()
        self.reason = reason
        self.message = message
    }
}
