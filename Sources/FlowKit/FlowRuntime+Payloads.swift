import Foundation

/// The content types of a placed screen's payloads, and the JSON people read and write for them: a
/// driver checks a host's `Output` against the first, turns an injected JSON output into the
/// module's payload, and shows JSON in debug events.
extension FlowRuntime {
    /// The content types of screen `screen`'s states and outputs, or nil if no such screen is placed.
    public func contentTypes(of screen: ScreenID) -> (state: String, output: String)? {
        readRecord(screen) { ($0.contentTypes.state, $0.contentTypes.output) }
    }

    /// Whether `contentType` names JSON: `application/json`, with parameters or not, or empty (what
    /// a payload without a content type is taken as).
    public static func isJSON(_ contentType: String) -> Bool {
        contentType.isEmpty || contentType == "application/json" || contentType.hasPrefix("application/json;")
    }

    /// The payload the flows take for an output of screen `screen` that arrived as `data` of
    /// `contentType`: the bytes as they are when they are in the content type of the screen module's
    /// outputs; JSON (what people and simple clients write) turned into it; anything else refused
    /// with `outputDecodingFailed`, saying what the kind takes. The one rule the daemon applies to a
    /// host's or a debug client's output and `flowd replay` to a recorded one.
    public func acceptedOutput(screen: ScreenID, contentType: String, data: Data) throws(FlowKitError) -> Data {
        let expected = contentTypes(of: screen)?.output ?? "application/json"
        // The usual case first: the module's own type, compared without parsing either.
        if contentType == expected { return data }
        let json = Self.isJSON(contentType)
        if json && Self.isJSON(expected) { return data }
        guard json else {
            let kind = readRecord(screen) { $0.outlet.kind } ?? ""
            throw FlowKitError(.outputDecodingFailed, """
                output content type '\(contentType)' is not one screen \(screen.rawValue) takes: kind '\(kind)' \
                takes '\(expected)' (or its JSON as application/json)
                """)
        }
        return try outputPayload(screen: screen, fromJSON: data)
    }

    /// The output payload, in the screen module's content type, of JSON a person wrote (`flowctl
    /// inject`, a recording). Throws `outputDecodingFailed` if it is not the JSON of an `Output`.
    public func outputPayload(screen: ScreenID, fromJSON json: Data) throws(FlowKitError) -> Data {
        guard let outlet = screens[screen]?.outlet else {
            throw FlowKitError(.unknownScreen, "output for screen \(screen) dropped: no such screen is placed")
        }
        do {
            return try outlet.outputPayload(fromJSON: json, with: codec)
        } catch {
            throw FlowKitError(.outputDecodingFailed, "output for screen \(screen) (\(outlet.kind)) is not the JSON of its module's Output: \(error)")
        }
    }

    /// The JSON people read for an output payload of screen `screen` (nil if the screen is gone or the
    /// bytes do not decode).
    public func outputJSON(screen: ScreenID, payload: Data) -> Data? {
        guard let outlet = screens[screen]?.outlet else { return nil }
        return try? outlet.outputJSON(payload, with: codec)
    }

    /// The JSON people read for a state payload of screen `screen` (nil if the screen is gone or the
    /// bytes do not decode).
    public func stateJSON(screen: ScreenID, payload: Data) -> Data? {
        guard let outlet = screens[screen]?.outlet else { return nil }
        return try? outlet.stateJSON(payload, with: codec)
    }
}
