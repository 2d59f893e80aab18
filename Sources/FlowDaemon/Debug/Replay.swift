import FlowApp
import FlowKit
import FlowWire
import Foundation

/// Replays a `flowctl record` recording against an app running in-process on
/// fake screens that acknowledge everything, and compares the screen
/// commands the flows make with the recorded ones. A recording that carries
/// the state it starts from (`Tree.start_state`) is rebuilt to it first, as a
/// restore rebuilds a journal; one without starts from the app's start. Inputs
/// replayed, in recorded order: screen outputs, injected outputs, user
/// navigation and `flowctl terminate`. Screen ids are deterministic for the
/// same app and the same inputs, so recorded ids address the replayed screens.
///
/// Not replayed (a recording holding them differs from that point): screens
/// lost with their host or to an ack timeout, and screens that never got a host.
public enum Replay {
    /// What a replay found.
    public struct Result: Sendable {
        /// Screen commands compared (equal up to the difference, if any).
        public var compared: Int
        /// Inputs fed to the flows.
        public var inputs: Int
        /// The first difference, worded for a person; nil when the placements are the same.
        public var difference: String?

        /// Whether the flows made the same placements as recorded.
        public var isSame: Bool { difference == nil }
    }

    /// Replays `recording` against `app`. Throws when the recording cannot be
    /// replayed at all (it lost events, or lacks payloads).
    public static func run(_ recording: Recording, app: FlowApp.App) throws(ReplayError) -> Result {
        if let first = recording.lagged.first {
            let lost = recording.lagged.reduce(0) { $0 + $1.dropped }
            throw ReplayError("the recording lost \(lost) events (the recorder lagged before seq \(first.nextSeq)); it cannot be replayed exactly, record again")
        }
        let runtime = FlowRuntime()
        let screens = ReplayScreens(host: LocalScreenHost(runtime: runtime), runtime: runtime)
        let tree = recording.tree
        if tree.hasStartState {
            switch RecordedStartState.rebuild(tree.startState, recordedApp: tree.app, app: app, into: runtime) {
            case .success(let places):
                // The rebuilt screens go to the fake host as they are; their serials go on from the recorded ones.
                screens.adopt(places, lastSerials: RecordedStartState.lastSerials(in: tree))
            case .failure(let mismatch):
                return Result(compared: 0, inputs: 0, difference: mismatch.description)
            }
        } else {
            app.start(runtime)
            screens.settle()
        }

        // The recording starts from the state its tree shows: the trees must agree.
        let recordedShape = TreeShape.lines(tree)
        let replayedShape = TreeShape.lines(of: runtime)
        if let difference = TreeShape.firstDifference(recordedShape, replayedShape) {
            let advice = tree.hasStartState
                ? "the state it carries does not rebuild what the daemon showed; replay with the app and version it ran (\(tree.app) \(tree.startState.appVersion))"
                : "it carries no starting state (an older flowctl made it): record again, or record from a daemon that has not been driven yet, and replay with the app it ran (it ran \(tree.app))"
            return Result(compared: 0, inputs: 0, difference: """
                the recording starts from another state than app \(app.name) \(tree.hasStartState ? "rebuilds" : "starts in"): \(difference); \(advice)
                """)
        }
        screens.commands.removeAll()

        var recorded: [ReplayedCommand] = []
        var inputs = 0
        for event in recording.events {
            if let command = ReplayedCommand(event) {
                recorded.append(command)
                continue
            }
            guard let recorded = try input(of: event, for: runtime) else { continue }
            // Refused now as it was then: the daemon journaled nothing, and the flows change nothing.
            if case .input(let input) = recorded { _ = try? runtime.apply(input) }
            inputs += 1
            screens.settle()
        }
        return compare(recorded, screens.commands, inputs: inputs)
    }

    /// What a recorded event gives the flows.
    enum RecordedInput {
        /// An input, to apply.
        case input(FlowInput)
        /// An input the daemon refused when it was recorded (not the JSON of an Output, a late tap):
        /// counted, and refused again by applying nothing.
        case refused
    }

    /// Whether a recorded event is one of the inputs `input(of:for:)` feeds (without reading it: a
    /// shutdown that would find nothing left, or a navigation of an unknown kind, counts too).
    static func isInput(_ event: Flowd_V1_Event) -> Bool {
        switch event.kind {
        case .shutdown, .output, .injected, .userNavigation, .screenLost, .linkOpened: true
        default: false
        }
    }

    /// The input a recorded event holds for `runtime` as it is now; nil for events that are not inputs.
    static func input(of event: Flowd_V1_Event, for runtime: FlowRuntime) throws(ReplayError) -> RecordedInput? {
        let screen = ScreenID(rawValue: event.screenID)
        switch event.kind {
        case .shutdown:
            // The daemon's shutdown terminates every flow (a second SHUTDOWN event finds nothing left).
            guard runtime.liveFlowCount + runtime.liveScreenCount > 0 else { return nil }
            return .input(.terminateAll(animated: false))
        case .output:
            return try output(event, for: runtime)
        case .injected where event.screenID != 0:
            // An injected output names its screen; an injected terminate has none (the next case).
            return try output(event, for: runtime)
        case .injected where event.payload.contentType == EventPayloads.terminateFlowContentType:
            guard let request = try? Flowd_V1_TerminateFlow(serializedBytes: Array(event.payload.data)) else { throw missingPayload(event) }
            return .input(.terminate(FlowID(rawValue: request.flowID), animated: request.animated))
        case .userNavigation:
            guard event.payload.contentType == EventPayloads.userNavigationContentType,
                  let message = try? Flowd_V1_UserNavigation(serializedBytes: Array(event.payload.data)) else { throw missingPayload(event) }
            guard let navigation = UserNavigation(message) else { return nil }
            return .input(.userNavigation(navigation, screen: screen))
        case .screenLost:
            // Its host died while recording: the flows heard of it then, and hear of it again now.
            return .input(.screenLost(screen))
        case .linkOpened:
            guard event.hasPayload, let link = try? Link(parsing: String(decoding: event.payload.data, as: UTF8.self)) else { throw missingPayload(event) }
            return .input(.openLink(link))
        case .injected:
            throw missingPayload(event)
        default:
            return nil
        }
    }

    /// A recorded output (a screen's or an injected one) for its screen.
    private static func output(_ event: Flowd_V1_Event, for runtime: FlowRuntime) throws(ReplayError) -> RecordedInput {
        guard event.hasPayload, event.payload.isJSON else { throw missingPayload(event) }
        // Recordings hold JSON; the daemon's rule turns it into the screen's own form. An output the
        // daemon would refuse (not the JSON of an Output, a late tap) is refused again: same effect.
        let screen = ScreenID(rawValue: event.screenID)
        guard let payload = try? runtime.acceptedOutput(screen: screen, contentType: event.payload.contentType, data: event.payload.data)
        else { return .refused }
        return .input(.output(screen, payload: payload))
    }

    static func missingPayload(_ event: Flowd_V1_Event) -> ReplayError {
        ReplayError("event \(event.seq) (\(event.text)) has no usable payload; record with `flowctl record`, which asks for payloads")
    }

    private static func compare(_ recorded: [ReplayedCommand], _ replayed: [ReplayedCommand], inputs: Int) -> Result {
        for index in 0..<min(recorded.count, replayed.count) where recorded[index] != replayed[index] {
            return Result(compared: index, inputs: inputs, difference: """
                placement \(index + 1) differs
                  recorded: \(recorded[index])
                  replayed: \(replayed[index])
                """)
        }
        let common = min(recorded.count, replayed.count)
        if recorded.count > common {
            return Result(compared: common, inputs: inputs, difference: """
                the replay made \(replayed.count) placements, the recording has \(recorded.count); the first missing one is
                  recorded: \(recorded[common])
                """)
        }
        if replayed.count > common {
            return Result(compared: common, inputs: inputs, difference: """
                the replay made \(replayed.count) placements, the recording has \(recorded.count); the first extra one is
                  replayed: \(replayed[common])
                """)
        }
        return Result(compared: common, inputs: inputs, difference: nil)
    }
}

/// The fake screens of `flowd replay`: FlowKit's `LocalScreenHost` (the real delivery rules, every
/// screen hosted, everything acknowledged after each input, as if the host acked before its next
/// input), with the commands in the form a recording holds (states as the JSON people read).
final class ReplayScreens {
    let host: LocalScreenHost
    /// Every command sent, in order.
    var commands: [ReplayedCommand] = []
    private var kinds: [ScreenID: String] = [:]
    private var stateTypes: [ScreenID: String] = [:]
    /// What to add to a fake serial to give the recorded one: screens that were live when the recording
    /// started went on from the serial the daemon had sent them, the fake host from 1.
    private var serialOffsets: [ScreenID: UInt64] = [:]

    init(host: LocalScreenHost, runtime: FlowRuntime) {
        self.host = host
        self.runtime = runtime
    }

    private let runtime: FlowRuntime

    /// Hosts the screens of a rebuilt runtime (`places`, each its current `Place`, sent as serial 1),
    /// whose later commands take the serials after `lastSerials`, the recorded daemon's.
    func adopt(_ places: [PlaceCommand], lastSerials: [ScreenID: UInt64]) {
        for place in places {
            host.adopt(place)
            if let last = lastSerials[place.screen], last > 0 { serialOffsets[place.screen] = last - 1 }
        }
        settle()
    }

    /// Applies what the runtime caused and records the commands.
    func settle() {
        for var outgoing in host.takeSent() {
            let screen = outgoing.command.screen
            outgoing.serial += serialOffsets[screen] ?? 0
            switch outgoing.command {
            case .place(let place):
                kinds[screen] = place.kind
                stateTypes[screen] = place.contentType
                commands.append(ReplayedCommand(kind: .place, screen: screen.rawValue, screenKind: place.kind, serial: outgoing.serial,
                                                placement: Flowd_V1_Placement(place.placement, screen: screen),
                                                state: runtime.eventPayload(state: place.state, contentType: place.contentType, of: screen).data))
            case .update(_, let state, _):
                let type = stateTypes[screen] ?? WireProtocol.jsonContentType
                commands.append(ReplayedCommand(kind: .update, screen: screen.rawValue, screenKind: kinds[screen] ?? "", serial: outgoing.serial,
                                                state: runtime.eventPayload(state: state, contentType: type, of: screen).data))
            case .placementChanged(_, let placement, _, _):
                commands.append(ReplayedCommand(kind: .placementChanged, screen: screen.rawValue, screenKind: kinds[screen] ?? "",
                                                serial: outgoing.serial, placement: Flowd_V1_Placement(placement, screen: screen)))
            case .dismiss:
                commands.append(ReplayedCommand(kind: .dismiss, screen: screen.rawValue, screenKind: kinds[screen] ?? "", serial: outgoing.serial))
                kinds[screen] = nil
                stateTypes[screen] = nil
                serialOffsets[screen] = nil
            }
        }
    }
}
