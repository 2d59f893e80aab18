/// The version of flowd, reported in `Welcome` and by `flowd --version` and `flowctl --version`.
public enum FlowdVersion {
    /// Semantic version of this build.
    public static let string = "0.1.0"
}
