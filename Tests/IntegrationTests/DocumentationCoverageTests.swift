import FlowdTestSupport
import Foundation
import Testing

/// The reference of every library an app author imports (docs/reference.md): each has a DocC
/// catalog with its landing page and "Getting started", and every public symbol declared in its
/// sources has a doc comment. The symbols are read from the module just built, with
/// `swift-symbolgraph-extract` (what DocC reads), so what the reference shows is what is checked;
/// members the compiler synthesizes (`==`, `init(from:)`) and those inherited from other packages
/// have no place in the sources and are not counted.
@Suite struct DocumentationCoverageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modules = ["FlowKit", "FlowKitTesting", "FlowDaemonTesting", "FlowApp", "ScreenKit", "FlowdCommand"]
    /// FlowProtobuf (payloads as protobuf messages) and ProtobufWire (which it re-exports, for fast
    /// codecs) are small enough for docs/flows.md, "Payloads", and their doc comments: no catalog,
    /// the same rule for their symbols (checked on their own; a catalog's module is checked on the
    /// graphs its catalog is built from, extracted once).
    static let withoutCatalog = ["FlowProtobuf", "ProtobufWire"]

    /// A public symbol declared in the module's sources.
    struct Symbol {
        var path: String
        var file: String
        var line: Int
        var documented: Bool
    }

    /// Writes `module`'s symbol graphs (its own and its extensions of other modules') into `directory`;
    /// `extensionBlocks` adds a symbol for each extension of another module's type, as the Swift-DocC
    /// plugin asks (scripts/docs): DocC then counts the "Extended Modules" pages as the site shows them.
    func extractSymbolGraphs(of module: String, into directory: String, extensionBlocks: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var arguments = ["swift-symbolgraph-extract", "-module-name", module, "-I", productsDirectory.appendingPathComponent("Modules").path,
                         "-minimum-access-level", "public", "-output-dir", directory, "-module-cache-path", directory + "/cache"]
        if extensionBlocks { arguments.append("-emit-extension-block-symbols") }
        #if arch(arm64)
        arguments += ["-target", "aarch64-unknown-linux-gnu"]
        #else
        arguments += ["-target", "x86_64-unknown-linux-gnu"]
        #endif
        for library in ["CLibUV", "CSQLite"] {
            arguments += ["-Xcc", "-fmodule-map-file=" + Self.root.appendingPathComponent("Sources/\(library)/module.modulemap").path]
        }
        let run = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), arguments)
        try #require(run.status == 0, "swift-symbolgraph-extract failed for \(module): \(run.stderr)")
        try? FileManager.default.removeItem(atPath: directory + "/cache")
    }

    /// The public symbols `module` declares in its sources, from its symbol graphs in `directory`
    /// (not the extension blocks, which only group an extension's members for DocC).
    func symbols(of module: String, in directory: String) throws -> [Symbol] {
        let sources = Self.root.appendingPathComponent("Sources/\(module)").path + "/"
        var found: [Symbol] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".symbols.json") {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for case let symbol as [String: Any] in graph["symbols"] as? [Any] ?? [] {
                guard (symbol["kind"] as? [String: Any])?["identifier"] as? String != "swift.extension",
                      let location = symbol["location"] as? [String: Any], let uri = location["uri"] as? String,
                      let path = URL(string: uri)?.path, path.hasPrefix(sources) else { continue }
                let position = location["position"] as? [String: Any]
                let lines = (symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
                let text = lines.compactMap { $0["text"] as? String }.joined().trimmingCharacters(in: .whitespaces)
                found.append(Symbol(path: (symbol["pathComponents"] as? [String] ?? []).joined(separator: "."),
                                    file: String(path.dropFirst(sources.count)), line: (position?["line"] as? Int ?? 0) + 1,
                                    documented: !text.isEmpty))
            }
        }
        return found
    }

    @Test(arguments: withoutCatalog) func everyPublicSymbolHasADocComment(_ module: String) throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try extractSymbolGraphs(of: module, into: directory)
        try expectDocComments(of: module, graphs: directory)
    }

    /// Every public symbol `module` declares, read from its graphs in `directory`, has a doc comment,
    /// and docs/reference.md's table of declared symbols says how many.
    func expectDocComments(of module: String, graphs directory: String) throws {
        let symbols = try symbols(of: module, in: directory)
        // The extraction read the module: a module with no public symbols would pass for nothing.
        #expect(symbols.count > 5, "only \(symbols.count) public symbols found in \(module)")
        let undocumented = symbols.filter { !$0.documented }.map { "\($0.path) (Sources/\(module)/\($0.file):\($0.line))" }
        #expect(undocumented.isEmpty, "public symbols of \(module) without a doc comment:\n\(undocumented.sorted().joined(separator: "\n"))")
        // docs/reference.md's table of declared symbols says the same.
        let row = "| \(module) | \(symbols.count) | \(symbols.count - undocumented.count) |"
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        #expect(page.split(separator: "\n").contains { $0 == row }, "docs/reference.md's row of declared symbols of \(module) must be:\n\(row)")
    }

    /// And every public symbol it declares has a doc comment (as `everyPublicSymbolHasADocComment`).
    @Test(arguments: modules) func everyLibraryHasItsCatalog(_ module: String) throws {
        let catalog = Self.root.appendingPathComponent("Sources/\(module)/\(module).docc")
        let landing = try String(contentsOf: catalog.appendingPathComponent("\(module).md"), encoding: .utf8)
        #expect(landing.hasPrefix("# ``\(module)``"), "the landing page of \(module) must be titled with the module's symbol")
        #expect(landing.contains("## Topics"))
        let gettingStarted = try String(contentsOf: catalog.appendingPathComponent("GettingStarted.md"), encoding: .utf8)
        #expect(gettingStarted.hasPrefix("# Getting started"))
        // The landing page leads to it.
        #expect(landing.contains("<doc:GettingStarted>"))
        // DocC builds the catalog over the module's symbols with no warning: every ``link`` and
        // <doc:…> resolves, every curated symbol exists (scripts/docs builds the site the same way).
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try extractSymbolGraphs(of: module, into: directory + "/graphs", extensionBlocks: true)
        try expectDocComments(of: module, graphs: directory + "/graphs")
        let docc = try ProductRun.run(executable: URL(fileURLWithPath: "/usr/bin/env"), [
            "docc", "convert", catalog.path, "--additional-symbol-graph-dir", directory + "/graphs", "--output-dir", directory + "/archive",
            "--fallback-display-name", module, "--fallback-bundle-identifier", module, "--warnings-as-errors",
            "--experimental-documentation-coverage", "--coverage-summary-level", "brief",
        ])
        #expect(docc.status == 0, "docc convert of \(module).docc:\n\(docc.stdout)\n\(docc.stderr)")
        // docs/reference.md's coverage figures are DocC's table of this build, "Abstract" column.
        let measured = try #require(Self.coverageRow(module, fromDocC: docc.stdout + docc.stderr), "no coverage table in docc's output:\n\(docc.stdout)")
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let onPage = page.split(separator: "\n").first { $0.hasPrefix("| \(module) | ") && $0.contains("%") }.map(String.init)
        #expect(onPage == measured, "docs/reference.md's coverage row of \(module) must be DocC's:\n\(measured)")
    }

    /// The row of docs/reference.md's coverage table that DocC's coverage output gives for `module`:
    /// `| FlowKit | 98% (109/111) | 81% (600/740) | 11% (11/103) |` (types, members, globals; the
    /// "Abstract" column: symbols whose page has an abstract).
    static func coverageRow(_ module: String, fromDocC output: String) -> String? {
        var cells: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let columns = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard columns.count >= 2, ["Types", "Members", "Globals"].contains(columns[0]) else { continue }
            cells[columns[0]] = columns[1]
        }
        guard let types = cells["Types"], let members = cells["Members"], let globals = cells["Globals"] else { return nil }
        return "| \(module) | \(types) | \(members) | \(globals) |"
    }
}
