import FlowKit
import FlowKitWire
import FlowWire

// The wire messages of the screen commands that go out as protobuf messages. An `Update`, the most
// frequent command, is written from its fields instead (`FrameEncoder.appendUpdate`, through
// `Connection.queue(_:stateContentType:)`), so it has no message here.

extension Flowd_V1_Place {
    /// The `Place` that carries `place` to a screen host as command `serial` of its screen, with the
    /// secret of this placement for the display (`Displays.placed`).
    init(_ place: PlaceCommand, serial: UInt64, displayToken: String) {
        self.init()
        screenID = place.screen.rawValue
        kind = place.kind
        state = Flowd_V1_Payload(contentType: place.contentType, data: place.state)
        placement = Flowd_V1_Placement(place.placement, screen: place.screen)
        self.serial = serial
        flowID = place.owner.rawValue
        flowType = place.flowType
        animated = place.animated
        savedState = place.savedState
        self.displayToken = displayToken
    }
}

extension Flowd_V1_PlacementChanged {
    /// The `PlacementChanged` that tells `screen`'s host its new `placement`, as command `serial`.
    init(_ screen: ScreenID, placement: Placement, change: PlacementChange, serial: UInt64) {
        self.init()
        screenID = screen.rawValue
        self.serial = serial
        self.change = Flowd_V1_PlacementChanged.Change(change)
        self.placement = Flowd_V1_Placement(placement, screen: screen)
    }
}

extension Flowd_V1_Dismiss {
    /// The `Dismiss` of `screen`, as command `serial`.
    init(_ screen: ScreenID, animated: Bool, reason: DismissalReason, serial: UInt64) {
        self.init()
        screenID = screen.rawValue
        self.serial = serial
        self.animated = animated
        self.reason = Flowd_V1_Dismiss.Reason(reason)
    }
}

extension Flowd_V1_Dismiss.Reason {
    /// The wire form of a dismissal reason.
    init(_ reason: DismissalReason) {
        switch reason {
        case .flowFinished: self = .flowFinished
        case .flowTerminated: self = .flowTerminated
        case .userNavigation: self = .userNavigation
        case .shutdown: self = .shutdown
        case .removed: self = .removed
        }
    }
}

extension Connection {
    /// Queues a screen command to this host as the frame that carries it (an `Update` written from its
    /// fields, no protobuf message built); `stateContentType` is its screen's, read only for an
    /// `Update`; `displayToken` is a `Place`'s secret for the display. Returns whether the connection has
    /// new bytes to write.
    func queue(_ outgoing: ScreenDelivery.Outgoing, stateContentType: @autoclosure () -> String, displayToken: String) -> Bool {
        let serial = outgoing.serial
        switch outgoing.command {
        case .place(let place):
            // Its outputs then arrive holding the very content type the daemon checks them against.
            expectOutputs(in: place.outputContentType)
            return queue(.place(Flowd_V1_Place(place, serial: serial, displayToken: displayToken)))
        case .update(let screen, let state, _):
            return queueUpdate(screenID: screen.rawValue, serial: serial, contentType: stateContentType(), state: state)
        case .placementChanged(let screen, let placement, let change, _):
            return queue(.placementChanged(Flowd_V1_PlacementChanged(screen, placement: placement, change: change, serial: serial)))
        case .dismiss(let screen, let animated, let reason):
            return queue(.dismiss(Flowd_V1_Dismiss(screen, animated: animated, reason: reason, serial: serial)))
        }
    }
}
