extension Flowd_V1_Envelope {
    /// An envelope carrying `body`, numbered `seq`, answering the peer's frame `replyTo` (0 = none).
    public init(_ body: OneOf_Body, seq: UInt64 = 0, replyTo: UInt64 = 0) {
        self.init()
        self.body = body
        self.seq = seq
        self.replyTo = replyTo
    }

    /// The body's message name for logs ("Hello", "Place", ...), or "none" if no body is set.
    public var bodyName: String { body?.name ?? "none" }
}

extension Flowd_V1_Envelope.OneOf_Body {
    /// The message name as in the .proto ("Hello", "PlacementChanged", ...).
    public var name: String {
        switch self {
        case .hello: "Hello"
        case .welcome: "Welcome"
        case .error: "Error"
        case .ping: "Ping"
        case .pong: "Pong"
        case .shutdown: "Shutdown"
        case .place: "Place"
        case .update: "Update"
        case .placementChanged: "PlacementChanged"
        case .dismiss: "Dismiss"
        case .ack: "Ack"
        case .output: "Output"
        case .userNavigation: "UserNavigation"
        case .saveState: "SaveState"
        case .openLink: "OpenLink"
        case .linkOpened: "LinkOpened"
        case .getTree: "GetTree"
        case .tree: "Tree"
        case .subscribe: "Subscribe"
        case .unsubscribe: "Unsubscribe"
        case .event: "Event"
        case .lagged: "Lagged"
        case .injectOutput: "InjectOutput"
        case .injectNavigation: "InjectNavigation"
        case .terminateFlow: "TerminateFlow"
        case .commandResult: "CommandResult"
        case .getStats: "GetStats"
        case .stats: "Stats"
        case .describe: "Describe"
        case .appContract: "AppContract"
        case .getHistory: "GetHistory"
        case .history: "History"
        case .getMoment: "GetMoment"
        case .moment: "Moment"
        case .displayScene: "DisplayScene"
        case .provideDisplays: "ProvideDisplays"
        }
    }
}
