import FlowKit
import FlowWire
import Foundation

extension FlowRuntime {
    /// What debug events (and so recordings) carry for a state payload of `screen` in `contentType`:
    /// JSON people read, a binary state turned into its JSON by the screen's module; the bytes as
    /// they are if the screen is gone and nothing can read them.
    func eventPayload(state: Data, contentType: String, of screen: ScreenID) -> Flowd_V1_Payload {
        if contentType == WireProtocol.jsonContentType { return .json(state) }
        if let json = stateJSON(screen: screen, payload: state) { return .json(json) }
        return Flowd_V1_Payload(contentType: contentType, data: state)
    }

    /// What debug events carry for an output payload of `screen`: as for states.
    func eventPayload(output payload: Flowd_V1_Payload, of screen: ScreenID) -> Flowd_V1_Payload {
        if payload.isJSON { return payload }
        if let json = outputJSON(screen: screen, payload: payload.data) { return .json(json) }
        return payload
    }
}

extension Flowd_V1_Payload {
    /// A payload of `data` in `contentType`.
    init(contentType: String, data: Data) {
        self.init()
        self.contentType = contentType
        self.data = data
    }
}
