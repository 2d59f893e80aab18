import FlowKit
import FlowKitWire
import FlowWire

extension ScreenDelivery.Outgoing {
    /// The frame body that carries this command to a screen host; an `Update`'s state goes with the
    /// content type of the screen's states (read only for updates).
    func wireBody(stateContentType: @autoclosure () -> String) -> Flowd_V1_Envelope.OneOf_Body {
        switch command {
        case .place(let place):
            var message = Flowd_V1_Place()
            message.screenID = place.screen.rawValue
            message.kind = place.kind
            message.state = Flowd_V1_Payload(contentType: place.contentType, data: place.state)
            message.placement = Flowd_V1_Placement(place.placement, screen: place.screen)
            message.serial = serial
            message.flowID = place.owner.rawValue
            message.flowType = place.flowType
            message.animated = place.animated
            return .place(message)
        case .update(let screen, let state, _):
            var message = Flowd_V1_Update()
            message.screenID = screen.rawValue
            message.serial = serial
            message.state = Flowd_V1_Payload(contentType: stateContentType(), data: state)
            return .update(message)
        case .placementChanged(let screen, let placement, let change, _):
            var message = Flowd_V1_PlacementChanged()
            message.screenID = screen.rawValue
            message.serial = serial
            message.change = Flowd_V1_PlacementChanged.Change(change)
            message.placement = Flowd_V1_Placement(placement, screen: screen)
            return .placementChanged(message)
        case .dismiss(let screen, let animated, let reason):
            var message = Flowd_V1_Dismiss()
            message.screenID = screen.rawValue
            message.serial = serial
            message.animated = animated
            message.reason = Flowd_V1_Dismiss.Reason(reason)
            return .dismiss(message)
        }
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
