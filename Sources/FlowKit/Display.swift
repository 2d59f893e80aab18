/// A display a host or the shell provides (docs/flows.md, "Windows on several displays"): a window
/// a flow opens with `window(on: id)` is drawn on it. The daemon learns them from the connections
/// that provide them and feeds the runtime `FlowInput.displaysChanged`, so a replay sees the same.
public struct Display: Hashable, Codable, Sendable {
    /// What flows call it: `window(on: "customer")`. Unique among the displays provided.
    public var id: String
    /// What the device calls it, for people ("HDMI-A-1", "HEADLESS-2"); may be empty.
    public var name: String
    /// Its width in pixels (0 when the provider does not know it).
    public var width: Int
    /// Its height in pixels (0 when the provider does not know it).
    public var height: Int

    /// A display `id`, named `name`, of `width` × `height` pixels.
    public init(id: String, name: String = "", width: Int = 0, height: Int = 0) {
        self.id = id
        self.name = name
        self.width = width
        self.height = height
    }
}

extension Display: CustomStringConvertible {
    /// "customer (HEADLESS-2, 800×480)".
    public var description: String {
        var details: [String] = []
        if !name.isEmpty { details.append(name) }
        if width > 0 || height > 0 { details.append("\(width)×\(height)") }
        return details.isEmpty ? id : "\(id) (\(details.joined(separator: ", ")))"
    }
}
