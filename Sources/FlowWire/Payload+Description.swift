import Foundation

extension Flowd_V1_Payload {
    /// The content types of debug-event payloads besides JSON (docs/flowctl.md, "Recording format").
    public enum EventContentType {
        /// A flow's output, result or ending, or a link, as UTF-8 text.
        public static let text = "text/plain; charset=utf-8"
        /// A `flowd.v1.UserNavigation` in protobuf binary (USER_NAVIGATION events).
        public static let userNavigation = "application/x-flowd-user-navigation"
        /// A `flowd.v1.TerminateFlow` in protobuf binary (INJECTED events of `flowctl terminate`).
        public static let terminateFlow = "application/x-flowd-terminate-flow"
    }

    /// The payload for a person: JSON as compact JSON, text as text, user navigation and terminate
    /// requests in words, anything else as its size and type — never raw bytes.
    public var readableText: String {
        if isJSON { return String(decoding: data, as: UTF8.self) }
        if contentType.hasPrefix("text/") { return String(decoding: data, as: UTF8.self) }
        switch contentType {
        case EventContentType.userNavigation:
            if let navigation = try? Flowd_V1_UserNavigation(serializedBytes: Array(data)) { return navigation.actionText }
        case EventContentType.terminateFlow:
            if let request = try? Flowd_V1_TerminateFlow(serializedBytes: Array(data)) {
                return "terminate flow \(request.flowID)\(request.animated ? " animated" : "")"
            }
        default:
            break
        }
        return "<\(data.count) bytes of \(contentType.isEmpty ? "unknown type" : contentType)>"
    }
}

extension Flowd_V1_UserNavigation {
    /// `back(committed) on screen 6`, `select tab 2 on screen 3`, `closeModal on screen 4`: the words
    /// FlowKit's `UserNavigation` prints.
    public var readableText: String { "\(actionText) on screen \(screenID)" }

    /// `back(committed)`, `select tab 2` (counted from 1, as a person reads it), `closeModal`.
    public var actionText: String {
        switch action {
        case .back(let back): "back(\(back.phase.word))"
        case .selectTab(let select): "select tab \(select.index + 1)"
        case .closeModal(let close): close.phase == .immediate ? "closeModal" : "closeModal(\(close.phase.word))"
        case .closeWindow(let close): close.phase == .immediate ? "closeWindow" : "closeWindow(\(close.phase.word))"
        case nil: "no action"
        }
    }
}

extension Flowd_V1_NavigationPhase {
    /// What the phase did, as logs and `flowctl` say it: `committed` (a button press too), `began`,
    /// `cancelled`; the same words as FlowKit's `NavigationPhase` prints (FlowWire does not import FlowKit).
    public var word: String {
        switch self {
        case .immediate, .commit: "committed"
        case .begin: "began"
        case .cancel: "cancelled"
        case .UNRECOGNIZED(let raw): "phase \(raw)"
        }
    }
}
