import FlowWire

extension FlowClient {
    /// The daemon's tree (flows, navigation, connections, counters); with `startState`, also what
    /// rebuilds the state it shows (`Tree.start_state`, for a recording), or the daemon's refusal.
    public func tree(startState: Bool = false, timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_Tree {
        var getTree = Flowd_V1_GetTree()
        getTree.startState = startState
        let reply = try request(.getTree(getTree), timeoutMilliseconds: timeoutMilliseconds)
        guard case .tree(let tree) = reply.body else { throw .unexpected("expected Tree, got \(reply.bodyName)") }
        return tree
    }

    /// The running app's screen contract (`Describe`): its name and the JSON `flowd describe APP --json` prints.
    /// The audit log (`GetTree {audit: true}`): the last injections and terminations debug clients
    /// asked for, oldest first, with who asked.
    public func audit(timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> [Flowd_V1_AuditEntry] {
        var getTree = Flowd_V1_GetTree()
        getTree.audit = true
        let reply = try request(.getTree(getTree), timeoutMilliseconds: timeoutMilliseconds)
        guard case .tree(let tree) = reply.body else { throw .unexpected("expected Tree, got \(reply.bodyName)") }
        return tree.audit
    }

    public func describe(timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_AppContract {
        let reply = try request(.describe(Flowd_V1_Describe()), timeoutMilliseconds: timeoutMilliseconds)
        guard case .appContract(let contract) = reply.body else { throw .unexpected("expected AppContract, got \(reply.bodyName)") }
        return contract
    }

    /// Sends a debug command (InjectOutput, InjectNavigation, TerminateFlow)
    /// and returns the message of its `CommandResult`; a refusal throws `.daemon`.
    public func command(_ body: Flowd_V1_Envelope.OneOf_Body, timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> String {
        let reply = try request(body, timeoutMilliseconds: timeoutMilliseconds)
        guard case .commandResult(let result) = reply.body else { throw .unexpected("expected CommandResult, got \(reply.bodyName)") }
        return result.message
    }

    /// Opens a deep link (`OpenLink`); returns what it opened, or throws the daemon's error.
    public func openLink(_ link: String, timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) -> Flowd_V1_LinkOpened {
        var open = Flowd_V1_OpenLink()
        open.link = link
        let reply = try request(.openLink(open), timeoutMilliseconds: timeoutMilliseconds)
        guard case .linkOpened(let opened) = reply.body else { throw .unexpected("expected LinkOpened, got \(reply.bodyName)") }
        return opened
    }

    /// Waits until the daemon has handled every frame sent before (a Ping
    /// barrier); frames that arrive meanwhile stay queued for `receive`.
    public func barrier(timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) {
        var ping = Flowd_V1_Ping()
        ping.nonce = 1
        _ = try request(.ping(ping), timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Starts the event stream: events of `kinds` (all if empty) about `flow`
    /// and `screen` (0: any), with payloads if asked. Returns once the daemon
    /// has taken the subscription.
    public func subscribe(kinds: [Flowd_V1_EventKind] = [], flow: UInt64 = 0, screen: UInt64 = 0, payloads: Bool = false,
                          timeoutMilliseconds: Int32 = FlowClient.defaultTimeoutMilliseconds) throws(ClientError) {
        var subscribe = Flowd_V1_Subscribe()
        subscribe.kinds = kinds
        subscribe.flowID = flow
        subscribe.screenID = screen
        subscribe.payloads = payloads
        try send(.subscribe(subscribe))
        try barrier(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The next frame if one arrives within `timeoutMilliseconds`, else nil.
    public func receiveIfAvailable(timeoutMilliseconds: Int32 = 0) throws(ClientError) -> Flowd_V1_Envelope? {
        do {
            return try receive(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            if case .timeout = error { return nil }
            throw error
        }
    }
}
