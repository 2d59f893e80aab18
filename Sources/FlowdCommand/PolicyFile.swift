import FlowApp
import Foundation

/// Where flowd finds the app's policy file: `--policy PATH`, else `/etc/flowd/APP.policy` when it
/// exists (docs/daemon.md, "Who may do what").
enum PolicyFile {
    /// The directory of the default files.
    static let directory = "/etc/flowd"
    /// flowd's exit code for a policy file it cannot use (sysexits' EX_CONFIG).
    static let exitCode: Int32 = 78

    /// A policy file that cannot be used.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The default file of `app`.
    static func defaultPath(app: String) -> String { "\(directory)/\(app).policy" }

    /// The policy to run `app` with and the file it came from; nil: no file, the app's own policy.
    static func load(explicit: String?, app: String) throws(Failure) -> (String, AppPolicy)? {
        let path: String
        if let explicit {
            path = explicit
        } else {
            path = defaultPath(app: app)
            guard FileManager.default.fileExists(atPath: path) else { return nil }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            // The reason from the system (no NSError bridging: a static flowd links no full Foundation).
            let reason = access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "it could not be read"
            throw Failure(description: "cannot read the policy file \(path): \(reason); flowd does not start without the policy it was given")
        }
        let text = String(decoding: data, as: UTF8.self)
        do {
            return (path, try AppPolicy(parsing: text, source: path))
        } catch {
            throw Failure(description: "bad policy file: \(error); flowd does not start (docs/daemon.md, Who may do what)")
        }
    }
}
