import FlowKit

/// The user's place as the journal, the stop record and an upgrade keep it (docs/journal.md, record
/// kind 64): the main window's link, then on a line of its own the link of each window a flow opened
/// beside it that a link names, oldest window first. With one window it is exactly the link's text,
/// as before windows were. Opened line by line, in order: the main place, then each window's.
enum PlaceText {
    /// The place of `runtime` ("": no link names any of it).
    static func of(_ runtime: FlowRuntime) -> String {
        joined([runtime.place?.description ?? ""] + runtime.windowPlaces.compactMap { $0.link?.description })
    }

    /// The text of the main window's link and the windows' ("" where none): the main one alone when
    /// no window has one.
    static func joined(_ links: [String]) -> String {
        let windows = links.dropFirst().filter { !$0.isEmpty }
        let main = links.first ?? ""
        return windows.isEmpty ? main : ([main] + windows).joined(separator: "\n")
    }

    /// The links of a place's text, main first ("" where the main window has none); no empty lines.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset == 0 || !$0.element.isEmpty }.map { String($0.element) }
    }

    /// The place on one line, for a log line or `Stats`: `students/Bob`, or with other windows
    /// `students/Bob + customer/pay` (`the start + customer/pay` when the main window has no link).
    static func said(_ text: String) -> String {
        let lines = lines(text)
        guard lines.count > 1 else { return text }
        return ([lines[0].isEmpty ? "the start" : lines[0]] + lines.dropFirst()).joined(separator: " + ")
    }
}
