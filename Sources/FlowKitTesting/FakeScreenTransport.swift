import FlowKit
import Foundation

/// A screen transport that records every command and keeps the screens currently placed, for tests.
/// Dismissals are acknowledged at once unless `acknowledgesAutomatically` is false; then call
/// `acknowledge(_:)`, `timeOut(_:)` or `acknowledgeAll()`.
public final class FakeScreenTransport: ScreenTransport {
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
        /// Its latest JSON state.
        public var state: Data
        /// Its latest placement.
        public var placement: Placement
    }

    /// Every command, in order.
    public private(set) var events: [Event] = []
    /// Screens placed and not dismissed, by id.
    public private(set) var screens: [ScreenID: FakeScreen] = [:]
    /// Whether dismissals are acknowledged as soon as they are sent.
    public var acknowledgesAutomatically: Bool
    private var pending: [ScreenID: (DismissOutcome) -> Void] = [:]

    /// A fake transport.
    public init(acknowledgesAutomatically: Bool = true) {
        self.acknowledgesAutomatically = acknowledgesAutomatically
    }

    /// Records a placement.
    public func place(_ screen: ScreenID, kind: String, state: Data, placement: Placement) {
        events.append(.placed(screen, kind: kind, state: state, placement: placement))
        screens[screen] = FakeScreen(id: screen, kind: kind, state: state, placement: placement)
    }

    /// Records an update.
    public func update(_ screen: ScreenID, state: Data) {
        events.append(.updated(screen, state: state))
        screens[screen]?.state = state
    }

    /// Records a placement change.
    public func placementChanged(_ screen: ScreenID, placement: Placement, change: PlacementChange) {
        events.append(.placementChanged(screen, placement: placement, change: change))
        screens[screen]?.placement = placement
    }

    /// Records a dismissal and acknowledges it now or later.
    public func dismiss(_ screen: ScreenID, animated: Bool, completion: @escaping (DismissOutcome) -> Void) {
        events.append(.dismissed(screen, animated: animated))
        screens[screen] = nil
        if acknowledgesAutomatically {
            completion(.acknowledged)
        } else {
            pending[screen] = completion
        }
    }

    /// Screens whose dismissal is not yet answered, by id.
    public var unacknowledged: [ScreenID] { pending.keys.sorted() }

    /// Answers a pending dismissal.
    public func acknowledge(_ screen: ScreenID, _ outcome: DismissOutcome = .acknowledged) {
        pending.removeValue(forKey: screen)?(outcome)
    }

    /// Answers a pending dismissal as timed out.
    public func timeOut(_ screen: ScreenID) { acknowledge(screen, .timedOut) }

    /// Answers every pending dismissal.
    public func acknowledgeAll() {
        for screen in unacknowledged { acknowledge(screen) }
    }

    /// The screen's host died: it is no longer placed and a pending dismissal answers `hostLost`.
    public func hostDied(_ screen: ScreenID) {
        screens[screen] = nil
        acknowledge(screen, .hostLost)
    }

    /// Forgets recorded events (not the placed screens).
    public func clearEvents() { events.removeAll() }

    /// Screens dismissed, in order, among `events`.
    public var dismissed: [ScreenID] {
        events.compactMap { if case .dismissed(let id, _) = $0 { id } else { nil } }
    }

    /// Screens placed, in order, among `events`.
    public var placed: [ScreenID] {
        events.compactMap { if case .placed(let id, _, _, _) = $0 { id } else { nil } }
    }
}
