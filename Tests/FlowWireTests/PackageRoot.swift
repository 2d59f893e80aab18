import Foundation

/// Locations in the package checkout, found from this file's path.
enum PackageRoot {
    /// The package root (the directory holding Package.swift).
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The protoc-gen-swift that scripts/generate-proto builds, relative to the root.
    static var protocGenSwift: String { path + "/.build/debug/protoc-gen-swift" }

    /// The first `name` on PATH that is executable, if any.
    static func executableOnPath(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
