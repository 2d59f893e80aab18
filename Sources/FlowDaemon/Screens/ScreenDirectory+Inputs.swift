import FlowKit
import FlowWire

extension ScreenDirectory {
    /// A live screen found for a request, or the error to answer it with.
    enum Lookup {
        case success(ScreenID)
        case failure(Flowd_V1_Error)
    }

    /// The screen named by `id` if it is live and `connectionID` hosts it (nil
    /// `connectionID`: a debug injection, any host); otherwise the error to answer.
    func screen(_ id: UInt64, hostedBy connectionID: UInt64?) -> Lookup {
        let screen = ScreenID(rawValue: id)
        guard let entry = entries[screen] else {
            return .failure(Flowd_V1_Error(
                code: .unknownScreen, message: "screen \(id) is not live (never placed, or already dismissed)", screenID: id))
        }
        if let connectionID, entry.hostID != connectionID {
            return .failure(Flowd_V1_Error(
                code: .notYourScreen, message: "screen \(id) is hosted by another connection; a host may act only on its own screens",
                screenID: id))
        }
        return .success(screen)
    }

    /// Whether the screen's `Dismiss` was sent (its outputs are then dropped).
    func isDismissing(_ screen: ScreenID) -> Bool {
        entries[screen]?.dismissal != nil
    }

    /// The kind of a live screen.
    func kind(of screen: ScreenID) -> String? {
        entries[screen]?.kind
    }

    /// The serials of a live screen, for the debug tree.
    func serials(of screen: ScreenID) -> ScreenSerials? {
        entries[screen]?.serials
    }

    /// The connection hosting a live screen.
    func hostID(of screen: ScreenID) -> UInt64? {
        entries[screen]?.hostID
    }

    /// Records an ack from `connectionID`; returns the error to answer, if any.
    func acknowledge(_ ack: Flowd_V1_Ack, from connectionID: UInt64) -> Flowd_V1_Error? {
        let screen: ScreenID
        switch self.screen(ack.screenID, hostedBy: connectionID) {
        case .failure(let error): return error
        case .success(let found): screen = found
        }
        guard var entry = entries[screen] else { return nil }
        let result = entry.serials.ack(ack.serial)
        entries[screen] = entry
        switch result {
        case .unknown:
            return Flowd_V1_Error(
                code: .unknownSerial,
                message: "ack for serial \(ack.serial) of screen \(ack.screenID), but the last serial sent is \(entry.serials.lastSent)",
                screenID: ack.screenID, serial: ack.serial)
        case .stale:
            return nil
        case .accepted(let completesDismissal):
            daemon.events.emit(.ack, screen: screen, flow: runtime.owner(of: screen), connection: connectionID, name: entry.kind,
                               serial: ack.serial, text: "ack \(entry.kind) \(screen) serial \(ack.serial)")
            if completesDismissal { finishDismissal(screen, .acknowledged) }
            return nil
        }
    }
}
