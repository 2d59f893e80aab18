import DemoApps

/// The demo screen host's constants.
public enum DemoScreens {
    /// Every kind the host provides.
    public static var kinds: [String] { allCardScreens.map { $0.kind } }
}
