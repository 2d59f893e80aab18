import Foundation

/// One input to the runtime as data: what the daemon feeds it, a journal stores and a replay feeds
/// again. `FlowRuntime.handle(_:)` applies it and returns what it caused.
public enum FlowInput: Hashable, Sendable {
    /// A screen sent an output (its payload, in the runtime's codec).
    case output(ScreenID, payload: Data)
    /// The user navigated on a screen.
    case userNavigation(UserNavigation, screen: ScreenID)
    /// A `Dismiss` was acknowledged, timed out or lost its host.
    case dismissalCompleted(ScreenID, DismissOutcome)
    /// A screen's host died.
    case screenLost(ScreenID)
    /// A flow is terminated from outside.
    case terminate(FlowID, animated: Bool)
    /// Every flow is terminated (shutdown).
    case terminateAll(animated: Bool)
    /// A flow's timer (`FlowContext.after(milliseconds:_:)`) fired.
    case timerFired(RequestID)
    /// A flow's asynchronous work (`FlowContext.run(_:then:)`) returned this value, encoded with the
    /// runtime's codec (`FlowRuntime.input(for:)` makes this input).
    case workSucceeded(RequestID, payload: Data)
    /// A flow's asynchronous work threw, or its value did not encode: what happened.
    case workFailed(RequestID, message: String)
    /// The driver started a timer that fires at `deadline` (milliseconds since the Unix epoch on its
    /// wall clock): kept with the request, so that after a restore the driver waits only for what is
    /// left. The flow does not hear it.
    case timerStarted(RequestID, deadline: UInt64)
    /// Open a link through the flows (`FlowRuntime.open(_:)`): from a notification, a URL handler,
    /// `flowctl open`.
    case openLink(Link)
    /// The displays the hosts and the shell provide changed: these are all of them now, by id. A
    /// window placement with `whenAbsent: .fail` refuses a display not among them.
    case displaysChanged([Display])
}
