import FlowKit
import FlowWire

extension ScreenHost {
    /// Says which displays this host draws on (`ProvideDisplays`, docs/protocol.md §24): all of them,
    /// replacing what it said before; `[]` withdraws them. A flow's `window(on:)` names a display by
    /// its `id`. The list is sent again after a reconnection (a new connection starts with none);
    /// while reconnecting it is only kept for then. The daemon ends the connection on a list that
    /// breaks its rules (ids 1 to 64 bytes and unique, at most 16 displays).
    public func provideDisplays(_ displays: [Display]) throws(ScreenKitError) {
        providedDisplays = displays
        do {
            try write(.provideDisplays(Self.wire(displays)))
        } catch where error.code == .reconnecting {
            // Sent once connected again (`resendUnconfirmed`).
        }
    }

    /// `ProvideDisplays` of `displays`.
    static func wire(_ displays: [Display]) -> Flowd_V1_ProvideDisplays {
        var message = Flowd_V1_ProvideDisplays()
        message.displays = displays.map { display in
            var provided = Flowd_V1_ProvidedDisplay()
            provided.id = display.id
            provided.name = display.name
            provided.width = UInt32(clamping: display.width)
            provided.height = UInt32(clamping: display.height)
            return provided
        }
        return message
    }
}
