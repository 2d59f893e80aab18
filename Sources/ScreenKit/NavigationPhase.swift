import FlowKit

/// FlowKit's `NavigationPhase` under ScreenKit's name, so a host that imports only ScreenKit can
/// name the phase of `HostedScreen.back(phase:)` and `closeModal(phase:)`.
public typealias NavigationPhase = FlowKit.NavigationPhase
