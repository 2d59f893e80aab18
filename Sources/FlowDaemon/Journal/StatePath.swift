import Foundation

/// Where the journal lives when `--state` is not given, and making its directory.
public enum StatePath {
    /// `$XDG_STATE_HOME/flowd/APP.journal`, `$XDG_STATE_HOME` defaulting to `~/.local/state` (the XDG
    /// base directory rules): one journal per app.
    public static func `default`(app: String, environment: [String: String]) -> String {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = home + "/.local/state"
        }
        return "\(base)/flowd/\(app).journal"
    }

    /// Creates the journal's directory (and its parents, mode 0700) if it is missing.
    public static func createDirectory(of path: String) throws(DaemonError) {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .state(.cannotOpen(path: path, reason: "\(directory) is not a directory"))
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .state(.cannotOpen(path: path, reason: "cannot create its directory \(directory): \((error as NSError).localizedDescription)"))
        }
    }
}
