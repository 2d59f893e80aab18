import Foundation

/// The code the docs show, and the code the suite compiles, kept the same: a page marks a block with
/// `<!-- snippet: NAME … -->` before its opening fence, and a Swift source holds the same code
/// between `// snippet: NAME` and `// end: NAME` (indented as it likes: the region is dedented).
public enum DocSnippet {
    /// The repository's root.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The code of the fenced block that follows `<!-- snippet: NAME ` in the page at `page` (a path
    /// from the root), or nil when the page has no such snippet.
    public static func onPage(_ name: String, page: String) throws -> String? {
        let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        guard let marker = text.range(of: "<!-- snippet: \(name) ") else { return nil }
        let after = text[marker.upperBound...]
        guard let open = after.range(of: "```swift\n"), let close = after[open.upperBound...].range(of: "\n```") else { return nil }
        return String(after[open.upperBound..<close.lowerBound])
    }

    /// The region `name` of the Swift source at `source` (a path from the root), dedented, or nil.
    public static func inSource(_ name: String, source: String) throws -> String? {
        let text = try String(contentsOf: root.appendingPathComponent(source), encoding: .utf8)
        guard let start = text.range(of: "// snippet: \(name)\n"),
              let end = text[start.upperBound...].range(of: "// end: \(name)") else { return nil }
        let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.count >= indent ? String($0.dropFirst(indent)) : "" }.joined(separator: "\n")
    }

    /// Type-checks `files` (paths) with `swiftc -typecheck` in Swift 6 mode against the modules this
    /// build made, as a package that depends on flowd sees them: public declarations only (no
    /// `-package-name`). A file named `main.swift` is top-level code. Returns the status and what
    /// the compiler printed.
    public static func typecheck(_ files: [String]) throws -> (status: Int32, output: String) {
        var arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", productsDirectory.appendingPathComponent("Modules").path]
        for library in ["CLibUV", "CSQLite"] {
            arguments += ["-Xcc", "-fmodule-map-file=" + root.appendingPathComponent("Sources/\(library)/module.modulemap").path]
        }
        let run = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments + files)
        return (run.status, run.stdout + run.stderr)
    }
}
