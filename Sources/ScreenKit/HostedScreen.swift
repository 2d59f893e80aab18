import Foundation
import FlowKit
import FlowKitWire
import FlowWire

/// One screen the daemon placed on this host, typed by its module: its
/// decoded state and placement, callbacks for what the daemon does to it
/// next, and the ways to answer (outputs, user navigation).
///
/// Created by `ScreenHost` for a `Place` and handed to the handler registered
/// for the module. Use it on the thread that runs the host. Callbacks run
/// before the command is acked (with `autoAck`), so by the time the daemon
/// sees the ack, the host has applied the command.
public final class HostedScreen<Module: ScreenModule> {
    /// The daemon's id for the screen (unique for the daemon's lifetime).
    public let id: UInt64
    /// The current state: the one placed, then each `Update`'s (already set when `onUpdate` runs).
    public private(set) var state: Module.State
    /// The current placement (already the new one when `onPlacementChanged` runs).
    public private(set) var placement: FlowKit.Placement
    /// The placement before the last `PlacementChanged`; nil until the first one.
    public private(set) var previousPlacement: FlowKit.Placement?
    /// Whether the host should animate the screen's appearance.
    public let animated: Bool
    /// The flow that owns the screen, and its Swift type name, for display.
    public let flowID: UInt64
    /// The owning flow's type name, for display.
    public let flowType: String
    /// The serial of the last command received for the screen (what `ack()` acks).
    public private(set) var lastSerial: UInt64
    /// Set once the screen is dismissed (or removed by force); outputs and navigation are then dropped.
    public private(set) var dismissal: Dismissal?
    /// What this host, or one before it, saved for the screen with `saveState(_:)`, handed back by
    /// the daemon when it placed the screen again (a restarted process, the next host, a daemon
    /// restore); empty for a new screen.
    public let savedState: Data

    weak var host: ScreenHost?
    private var updateHandler: ((Module.State) -> Void)?
    private var placementHandler: ((FlowKit.PlacementChange) -> Void)?
    private var dismissHandler: ((Dismissal) -> Void)?

    init(place: Flowd_V1_Place, state: Module.State, host: ScreenHost) {
        self.id = place.screenID
        self.state = state
        self.placement = FlowKit.Placement(place.placement)
        self.animated = place.animated
        self.flowID = place.flowID
        self.flowType = place.flowType
        self.lastSerial = place.serial
        // What this host saved last is newer than the `Place` of a resume, built when the host dropped.
        self.savedState = host.savedStates[place.screenID] ?? place.savedState
        self.host = host
    }

    /// The module's kind.
    public var kind: String { Module.kind }

    /// True once the screen was dismissed.
    public var isDismissed: Bool { dismissal != nil }

    // MARK: Callbacks

    /// Calls `handler` with the new state on each `Update` (replaces an earlier handler).
    public func onUpdate(_ handler: @escaping (Module.State) -> Void) { updateHandler = handler }

    /// Calls `handler` with why on each `PlacementChanged`: `.covered`, `.uncovered`, `.tabSelected`,
    /// `.tabDeselected` or `.moved`; `placement` and `previousPlacement` are already set.
    public func onPlacementChanged(_ handler: @escaping (FlowKit.PlacementChange) -> Void) { placementHandler = handler }

    /// Calls `handler` once when the screen goes: a `Dismiss`, or removal by force after an ack timeout.
    public func onDismiss(_ handler: @escaping (Dismissal) -> Void) { dismissHandler = handler }

    // MARK: Answers

    /// Sends a user event in `Module.outputCoder`'s form (JSON, or the output's protobuf message).
    /// Dropped without error once the screen is dismissed.
    public func send(_ output: Module.Output) throws(ScreenKitError) {
        guard dismissal == nil else { return }
        let host = try liveHost()
        var payload = Flowd_V1_Payload()
        payload.contentType = Module.outputCoder.contentType
        do {
            payload.data = try Module.outputCoder.encode(output, with: host.jsonCodec)
        } catch {
            throw ScreenKitError(
                .encoding, "cannot encode an output of screen \(id) (kind \"\(Module.kind)\") as \(payload.contentType): \(error)",
                screenID: id)
        }
        var message = Flowd_V1_Output()
        message.screenID = id
        message.payload = payload
        try host.writeInput(.output(message))
    }

    /// Saves `data`, bytes of the host's own, with the daemon: what the user has not sent (a
    /// half-typed line, a scroll position). The daemon keeps the last one with the screen and hands it
    /// back as `savedState` whenever it places the screen again (docs/protocol.md §19); empty clears
    /// it. At most `WireProtocol.maxSavedStateBytes` (16 KiB). Dropped once the screen is dismissed;
    /// while the host reconnects, the last one is sent once it resumed.
    public func saveState(_ data: Data) throws(ScreenKitError) {
        guard data.count <= WireProtocol.maxSavedStateBytes else {
            throw ScreenKitError(.usage, "saveState takes at most \(WireProtocol.maxSavedStateBytes) bytes, got \(data.count): keep what the user has not sent, not the screen's contents", screenID: id)
        }
        guard dismissal == nil else { return }
        try liveHost().saveState(data, for: id)
    }

    /// Reports that the user popped this screen off its stack (back button: `.immediate`; a swipe:
    /// `.begin`, then `.cancel` or `.commit`). The daemon answers with `Dismiss`/`PlacementChanged`.
    public func back(phase: NavigationPhase = .immediate) throws(ScreenKitError) {
        var back = Flowd_V1_Back()
        back.phase = phase.wire
        try navigate(.back(back))
    }

    /// Reports that the user selected tab `index` of the tab bar containing this screen.
    public func selectTab(_ index: Int) throws(ScreenKitError) {
        guard let index = UInt32(exactly: index) else {
            throw ScreenKitError(.usage, "tab index \(index) is out of range; pass 0 or more", screenID: id)
        }
        var select = Flowd_V1_SelectTab()
        select.index = index
        try navigate(.selectTab(select))
    }

    /// Reports that the user closed the modal presentation containing this screen.
    public func closeModal(phase: NavigationPhase = .immediate) throws(ScreenKitError) {
        var close = Flowd_V1_CloseModal()
        close.phase = phase.wire
        try navigate(.closeModal(close))
    }

    /// Reports that the user closed the window holding this screen, a window a flow opened on a
    /// display (the main window cannot be closed: the daemon refuses it, not fatally).
    public func closeWindow(phase: NavigationPhase = .immediate) throws(ScreenKitError) {
        var close = Flowd_V1_CloseWindow()
        close.phase = phase.wire
        try navigate(.closeWindow(close))
    }

    /// Acks `serial` (default: the last one received). Needed only with `ScreenHost.autoAck = false`.
    public func ack(_ serial: UInt64? = nil) throws(ScreenKitError) {
        try liveHost().ack(screenID: id, serial: serial ?? lastSerial)
    }

    private func navigate(_ action: Flowd_V1_UserNavigation.OneOf_Action) throws(ScreenKitError) {
        guard dismissal == nil else { return }
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = id
        navigation.action = action
        try liveHost().writeInput(.userNavigation(navigation))
    }

    private func liveHost() throws(ScreenKitError) -> ScreenHost {
        guard let host else { throw .closed("act on screen \(id): its ScreenHost is gone") }
        return host
    }
}

/// What `ScreenHost` needs from a screen without knowing its module.
protocol AnyHostedScreen: AnyObject {
    /// Decodes and applies a new state, then calls `onUpdate`.
    func apply(_ update: Flowd_V1_Update) throws(ScreenKitError)
    /// Applies a new placement, then calls `onPlacementChanged`.
    func apply(_ change: Flowd_V1_PlacementChanged)
    /// Marks the screen gone, then calls `onDismiss`.
    func dismissed(_ dismissal: Dismissal, serial: UInt64?)
}

extension HostedScreen: AnyHostedScreen {
    func apply(_ update: Flowd_V1_Update) throws(ScreenKitError) {
        lastSerial = update.serial
        state = try liveHost().decodeState(Module.self, update.state, screenID: id, serial: update.serial)
        updateHandler?(state)
    }

    func apply(_ wire: Flowd_V1_PlacementChanged) {
        lastSerial = wire.serial
        let new = FlowKit.Placement(wire.placement)
        let change = FlowKit.PlacementChange(wire.change, from: placement, to: new)
        previousPlacement = placement
        placement = new
        placementHandler?(change)
    }

    func dismissed(_ dismissal: Dismissal, serial: UInt64?) {
        guard self.dismissal == nil else { return }
        if let serial { lastSerial = serial }
        self.dismissal = dismissal
        let handler = dismissHandler
        // The screen is over: its handlers go, and with them whatever they captured (the screen itself too).
        updateHandler = nil
        placementHandler = nil
        dismissHandler = nil
        handler?(dismissal)
    }
}
