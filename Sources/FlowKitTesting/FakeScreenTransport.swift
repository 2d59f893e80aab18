import FlowKit
import Foundation

/// Fake screens for tests: one in-process host (FlowKit's `LocalScreenHost`, over the real
/// `ScreenDelivery`) that records every command and keeps the screens currently placed. Dismissals
/// are acknowledged at once unless `acknowledgesAutomatically` is false; then call
/// `acknowledge(_:)`, `timeOut(_:)` or `acknowledgeAll()`. Every accessor first applies what the
/// runtime has to say, so what you read is always up to date.
public final class FakeScreenTransport {
    /// One command the runtime sent.
    public enum Event: Hashable, Sendable, CustomStringConvertible {
        /// `place(screen, kind, state, placement)`.
        case placed(ScreenID, kind: String, state: Data, placement: Placement)
        /// `update(screen, state)`.
        case updated(ScreenID, state: Data)
        /// `placementChanged(screen, placement, change)`.
        case placementChanged(ScreenID, placement: Placement, change: PlacementChange)
        /// `dismiss(screen, animated)`.
        case dismissed(ScreenID, animated: Bool)

        /// The screen the command was for.
        public var screen: ScreenID {
            switch self {
            case .placed(let id, _, _, _), .updated(let id, _), .placementChanged(let id, _, _), .dismissed(let id, _): id
            }
        }

        /// A one-line description.
        public var description: String {
            switch self {
            case .placed(let id, let kind, _, let placement): "place \(kind)\(id) at \(placement)"
            case .updated(let id, let state): "update \(id) \(String(decoding: state, as: UTF8.self))"
            case .placementChanged(let id, let placement, let change): "\(change) \(id) at \(placement)"
            case .dismissed(let id, let animated): "dismiss \(id)\(animated ? " animated" : "")"
            }
        }
    }

    /// What the fake knows about a placed screen.
    public struct FakeScreen: Hashable, Sendable {
        /// The screen's id.
        public let id: ScreenID
        /// Its kind name.
        public let kind: String
        /// Its latest state.
        public var state: Data
        /// Its latest placement.
        public var placement: Placement
    }

    /// The in-process host the commands go through.
    public let host: LocalScreenHost
    private var recorded: [Event] = []
    private var placedScreens: [ScreenID: FakeScreen] = [:]

    /// Fake screens for `runtime`.
    public init(runtime: FlowRuntime, acknowledgesAutomatically: Bool = true) {
        host = LocalScreenHost(runtime: runtime, acknowledgesDismissals: acknowledgesAutomatically)
    }

    /// Applies what the runtime has to say and records the commands.
    public func settle() {
        for outgoing in host.takeSent() {
            switch outgoing.command {
            case .place(let place):
                recorded.append(.placed(place.screen, kind: place.kind, state: place.state, placement: place.placement))
                placedScreens[place.screen] = FakeScreen(id: place.screen, kind: place.kind, state: place.state, placement: place.placement)
            case .update(let id, let state, _):
                recorded.append(.updated(id, state: state))
                placedScreens[id]?.state = state
            case .placementChanged(let id, let placement, let change, _):
                recorded.append(.placementChanged(id, placement: placement, change: change))
                placedScreens[id]?.placement = placement
            case .dismiss(let id, let animated, _):
                recorded.append(.dismissed(id, animated: animated))
                placedScreens[id] = nil
            }
        }
    }

    /// Every command, in order.
    public var events: [Event] {
        settle()
        return recorded
    }

    /// Screens placed and not dismissed, by id.
    public var screens: [ScreenID: FakeScreen] {
        settle()
        return placedScreens
    }

    /// Whether dismissals are acknowledged as soon as they are sent.
    public var acknowledgesAutomatically: Bool {
        get { host.acknowledgesDismissals }
        set { host.acknowledgesDismissals = newValue }
    }

    /// Screens whose dismissal is not yet answered, by id.
    public var unacknowledged: [ScreenID] {
        settle()
        return host.pendingDismissals.keys.sorted()
    }

    /// Answers a pending dismissal.
    public func acknowledge(_ screen: ScreenID, _ outcome: DismissOutcome = .acknowledged) {
        settle()
        host.acknowledgeDismissal(screen, outcome: outcome)
        settle()
    }

    /// Answers a pending dismissal as timed out.
    public func timeOut(_ screen: ScreenID) { acknowledge(screen, .timedOut) }

    /// Answers every pending dismissal.
    public func acknowledgeAll() {
        while let screen = unacknowledged.first { acknowledge(screen) }
    }

    /// The screen's host died: it is no longer placed, a pending dismissal answers `hostLost`, and the
    /// runtime hears the screen was lost.
    public func hostDied(_ screen: ScreenID) {
        settle()
        placedScreens[screen] = nil
        host.loseScreen(screen)
        settle()
    }

    /// Forgets recorded events (not the placed screens).
    public func clearEvents() {
        settle()
        recorded.removeAll()
    }

    /// Screens dismissed, in order, among `events`.
    public var dismissed: [ScreenID] {
        events.compactMap { if case .dismissed(let id, _) = $0 { id } else { nil } }
    }

    /// Screens placed, in order, among `events`.
    public var placed: [ScreenID] {
        events.compactMap { if case .placed(let id, _, _, _) = $0 { id } else { nil } }
    }
}
