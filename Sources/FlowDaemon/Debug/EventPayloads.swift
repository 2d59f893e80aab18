import FlowWire
import Foundation

/// The content types of `Event.payload` besides JSON screen state and
/// outputs, as written by `flowctl record` and read by `flowd replay`
/// (docs/flowctl.md, "Recording format").
package enum EventPayloads {
    /// A flow's output, result or ending described as UTF-8 text.
    package static let textContentType = Flowd_V1_Payload.EventContentType.text
    /// A `flowd.v1.UserNavigation` in protobuf binary (USER_NAVIGATION events).
    package static let userNavigationContentType = Flowd_V1_Payload.EventContentType.userNavigation
    /// A `flowd.v1.TerminateFlow` in protobuf binary (INJECTED events of `flowctl terminate`).
    package static let terminateFlowContentType = Flowd_V1_Payload.EventContentType.terminateFlow

    /// A link as text (LINK_OPENED events).
    package static func link(_ text: String) -> Flowd_V1_Payload {
        var payload = Flowd_V1_Payload()
        payload.contentType = textContentType
        payload.data = Data(text.utf8)
        return payload
    }

    /// A payload carrying user navigation, for USER_NAVIGATION events.
    package static func navigation(_ message: Flowd_V1_UserNavigation) -> Flowd_V1_Payload {
        var payload = Flowd_V1_Payload()
        payload.contentType = userNavigationContentType
        payload.data = (try? message.serializedData()) ?? Data()
        return payload
    }

    /// A payload carrying a termination request, for the INJECTED event of `flowctl terminate`.
    package static func terminate(_ message: Flowd_V1_TerminateFlow) -> Flowd_V1_Payload {
        var payload = Flowd_V1_Payload()
        payload.contentType = terminateFlowContentType
        payload.data = (try? message.serializedData()) ?? Data()
        return payload
    }
}
