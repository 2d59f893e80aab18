import FlowdTestSupport
import Foundation
import Testing

/// Screen hosts link neither libuv nor the daemon (the module graph's rules are checked by
/// `scripts/module-graph --check`; this checks what was actually linked).
@Suite("What the built binaries link")
struct LinkageTests {
    /// `ldd` on the PATH.
    private static func ldd() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("ldd") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "ldd not found on PATH (\(path)); install libc-bin")
    }

    /// What `ldd` says about a product, and its bytes.
    private static func inspect(_ product: String) throws -> (libraries: String, binary: Data) {
        let url = productsDirectory.appendingPathComponent(product)
        let binary = try Data(contentsOf: url)
        let run = try ProductRun.run(executable: try ldd(), [url.path])
        #expect(run.status == 0, "ldd \(url.path) failed: \(run.stderr)")
        return (run.stdout, binary)
    }

    /// Whether the binary holds symbols of a Swift module (mangled names carry `<length><name>`).
    private static func holdsSymbols(of module: String, _ binary: Data) -> Bool {
        binary.range(of: Data("\(module.utf8.count)\(module)".utf8)) != nil
    }

    @Test("demo-screens links neither libuv nor FlowDaemon/UVKit; flowd, for contrast, does")
    func demoScreensWithoutLibuv() throws {
        let screens = try Self.inspect("demo-screens")
        #expect(!screens.libraries.contains("libuv"), "demo-screens links libuv:\n\(screens.libraries)")
        #expect(!Self.holdsSymbols(of: "FlowDaemon", screens.binary), "demo-screens holds FlowDaemon code")
        #expect(!Self.holdsSymbols(of: "UVKit", screens.binary), "demo-screens holds UVKit code")

        let daemon = try Self.inspect("flowd")
        #expect(daemon.libraries.contains("libuv"), "the check cannot see libuv in flowd:\n\(daemon.libraries)")
        #expect(Self.holdsSymbols(of: "FlowDaemon", daemon.binary))
        #expect(Self.holdsSymbols(of: "UVKit", daemon.binary))
    }
}
