import DemoApps
import FlowControl
import FlowWire
import Foundation
import SwiftProtobuf

#if canImport(Glibc)
import Glibc
#endif

/// One inspector page: a flowd debug client (the one `flowctl` uses) on a thread of its own.
/// It streams every event with its payload to the page, sends the tree again after each batch
/// of events, and runs the page's actions (inject, back, close, select tab, terminate, record).
/// Works against any daemon; only the offered output shapes come from the demo (docs/web.md).
package final class InspectorSession: PageSession<InspectorRequest>, @unchecked Sendable {  // only `requests` is shared across threads
    private let socketPath: String
    private let send: @Sendable (String) -> Void
    private let keepRecording: @Sendable ([UInt8]) throws(RecordingRefusal) -> String
    /// The most bytes a running recording grows to: one that reaches it is stopped there.
    private let recordingLimit: Int

    /// An inspector of the daemon at `socketPath` that tells the page through `send`; a stopped
    /// recording is handed to `keepRecording`, which answers the address to download it from, or
    /// refuses it (the page is told why). A recording that would grow past `recordingLimit` bytes
    /// is stopped there and kept, and the page is told why.
    package init(
        socketPath: String, send: @escaping @Sendable (String) -> Void, recordingLimit: Int = RecordingRefusal.maxBytes,
        keepRecording: @escaping @Sendable ([UInt8]) throws(RecordingRefusal) -> String
    ) {
        self.socketPath = socketPath
        self.send = send
        self.recordingLimit = recordingLimit
        self.keepRecording = keepRecording
        super.init(threadName: "flowd-web inspector", parse: InspectorRequest.parse)
    }

    // MARK: The session's thread

    override func serve() {
        let client: FlowClient
        do {
            client = try FlowClient.connect(path: socketPath, role: .debug, name: "flowd-web inspector")
            try client.subscribe(payloads: true)
        } catch {
            send(Self.message("closed", ["text": "cannot attach to flowd: \(error)"]))
            return
        }
        defer { client.close() }
        send(Self.message("hello", ["app": client.welcome.app, "server": client.welcome.server, "socket": socketPath]))
        send(Self.message("shapes", ["shapes": Self.outputShapes]))
        var recording: [UInt8]?
        do {
            try sendTree(client, recording: &recording, start: false)
            while true {
                var sawEvents = false
                while let frame = try client.receiveIfAvailable(timeoutMilliseconds: 0) {
                    switch frame.body {
                    case .event(let event):
                        send(#"{"type":"event","event":"# + EventFormatter.json(event) + "}")
                        record(.event(event), to: &recording)
                        sawEvents = true
                    case .lagged(let lagged):
                        send(#"{"type":"event","event":"# + EventFormatter.json(lagged) + "}")
                        record(.lagged(lagged), to: &recording)
                        sawEvents = true
                    case .shutdown(let shutdown):
                        send(Self.message("closed", ["text": "flowd is shutting down: \(shutdown.message)"]))
                        return
                    default:
                        break
                    }
                }
                if sawEvents { try sendTree(client, recording: &recording, start: false) }
                guard wait(for: client) else { continue }
                for request in requests.drain() {
                    guard case .page(let request) = request else { return }
                    try perform(request, client, recording: &recording)
                }
            }
        } catch {
            send(Self.message("closed", ["text": "lost flowd: \(error)"]))
        }
    }

    /// Waits for the daemon or the page; true if the page asked something.
    private func wait(for client: FlowClient) -> Bool {
        var descriptors = [
            pollfd(fd: client.socket.descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: requests.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 2, -1)
        return descriptors[1].revents != 0
    }

    private func perform(_ request: InspectorRequest, _ client: FlowClient, recording: inout [UInt8]?) throws(ClientError) {
        let action: String
        let body: Flowd_V1_Envelope.OneOf_Body
        switch request {
        case .refresh:
            try sendTree(client, recording: &recording, start: false)
            return
        case .recordStart:
            do {
                try sendTree(client, recording: &recording, start: true)
            } catch {
                // The daemon cannot give the state the recording would start from: said, and nothing starts.
                guard case .daemon(let refusal) = error, !refusal.fatal else { throw error }
                send(Self.message("result", ["action": "recordStart", "ok": false, "message": refusal.message]))
                return
            }
            // Its starting state may be over what a recording may hold: then the page was told.
            if recording != nil { send(Self.message("recording", ["state": "started"])) }
            return
        case .recordStop:
            guard recording != nil else {
                send(Self.message("result", ["action": "recordStop", "ok": false, "message": "no recording is running"]))
                return
            }
            stopRecording(&recording)
            return
        case .history(let from):
            try sendHistory(client, from: from)
            return
        case .moment(let index):
            do {
                let moment = try client.moment(UInt64(index), timeoutMilliseconds: Self.historyTimeout)
                send(#"{"type":"moment","moment":"# + ((try? moment.jsonString()) ?? "{}") + "}")
            } catch {
                try tell(error, action: "moment")
            }
            return
        case .export(let from, let to):
            do {
                let bytes = try HistoryExport.recording(from: UInt64(from - 1), to: UInt64(to), client: client, timeoutMilliseconds: Self.historyTimeout)
                send(Self.message("exported", ["url": try keepRecording(bytes), "bytes": bytes.count, "from": from, "to": to]))
            } catch let error as RecordingRefusal {
                send(Self.message("result", ["action": "export", "ok": false, "message": error.reason]))
            } catch let error as ClientError {
                try tell(error, action: "export")
            } catch {
                send(Self.message("result", ["action": "export", "ok": false, "message": "\(error)"]))
            }
            return
        case .inject(let screen, let output):
            action = "inject"
            var inject = Flowd_V1_InjectOutput()
            inject.screenID = screen
            inject.payload = .json(Data(output.utf8))
            body = .injectOutput(inject)
        case .back(let screen):
            action = "back"
            var back = Flowd_V1_Back()
            back.phase = .immediate
            body = .injectNavigation(Self.navigation(screen, .back(back)))
        case .closeModal(let screen):
            action = "closeModal"
            var close = Flowd_V1_CloseModal()
            close.phase = .immediate
            body = .injectNavigation(Self.navigation(screen, .closeModal(close)))
        case .closeWindow(let screen):
            action = "closeWindow"
            var close = Flowd_V1_CloseWindow()
            close.phase = .immediate
            body = .injectNavigation(Self.navigation(screen, .closeWindow(close)))
        case .selectTab(let node, let index):
            action = "selectTab"
            var select = Flowd_V1_SelectTab()
            select.index = UInt32(clamping: index)
            // Like `flowctl select-tab`: a tab bar's id stands for any screen inside it.
            let tree = try client.tree()
            var screen = node
            if let bar = tree.node(node), bar.kind == .tabBar, let inside = tree.screen(inTabBar: bar) { screen = inside }
            body = .injectNavigation(Self.navigation(screen, .selectTab(select)))
        case .terminate(let flow, let animated):
            action = "terminate"
            var terminate = Flowd_V1_TerminateFlow()
            terminate.flowID = flow
            terminate.animated = animated
            body = .terminateFlow(terminate)
        }
        do {
            let message = try client.command(body)
            send(Self.message("result", ["action": action, "ok": true, "message": message]))
        } catch .daemon(let error) {
            send(Self.message("result", ["action": action, "ok": false, "message": error.message]))
        }
    }

    /// Sends the tree to the page; with `start`, it also begins a recording (the tree with the state it
    /// starts from is its first frame; the page gets the tree alone).
    private func sendTree(_ client: FlowClient, recording: inout [UInt8]?, start: Bool) throws(ClientError) {
        var tree = try client.tree(startState: start)
        if start {
            recording = []
            if !Self.append(.tree(tree), to: &recording, limit: recordingLimit) {
                recording = nil
                send(Self.message("result", ["action": "recordStart", "ok": false, "message": """
                    the state the recording would start from is over the \(recordingLimit) bytes flowd-web keeps \
                    of a recording; use flowctl record
                    """]))
            }
            tree.clearStartState()
        }
        send(#"{"type":"tree","tree":"# + ((try? tree.jsonString()) ?? "{}") + "}")
    }

    /// How long a history question may take: the first one on a long history replays the journal.
    static let historyTimeout: Int32 = 120_000

    /// Sends the page the history's inputs from `from` on (without their events), page by page; a
    /// daemon that cannot give it says why.
    private func sendHistory(_ client: FlowClient, from: Int) throws(ClientError) {
        do {
            let history = try client.history(from: UInt64(from), timeoutMilliseconds: Self.historyTimeout)
            send(#"{"type":"history","history":"# + ((try? history.jsonString()) ?? "{}") + "}")
        } catch {
            try tell(error, action: "history")
        }
    }

    /// Tells the page why a history question failed: a refusal or a time-out is its `result`; a lost
    /// daemon ends the session (thrown on).
    private func tell(_ error: ClientError, action: String) throws(ClientError) {
        switch error {
        case .daemon(let refusal) where !refusal.fatal:
            send(Self.message("result", ["action": action, "ok": false, "message": refusal.message]))
        case .timeout:
            send(Self.message("result", ["action": action, "ok": false, "message": "flowd did not answer in \(Self.historyTimeout / 1000) s"]))
        default:
            throw error
        }
    }

    private static func navigation(_ screen: UInt64, _ action: Flowd_V1_UserNavigation.OneOf_Action) -> Flowd_V1_InjectNavigation {
        var navigation = Flowd_V1_UserNavigation()
        navigation.screenID = screen
        navigation.action = action
        var inject = Flowd_V1_InjectNavigation()
        inject.navigation = navigation
        return inject
    }

    /// Appends one frame in `flowctl record`'s format (4-byte little-endian length, an envelope)
    /// to a running recording (nothing when none runs); false, appending nothing, when it would take
    /// the recording past `limit` bytes.
    private static func append(_ body: Flowd_V1_Envelope.OneOf_Body, to recording: inout [UInt8]?, limit: Int) -> Bool {
        guard let count = recording?.count, let frame = try? FrameEncoder.encode(Flowd_V1_Envelope(body), maxFrameSize: Int(UInt32.max))
        else { return true }
        guard count + frame.count <= limit else { return false }
        recording?.append(contentsOf: frame)
        return true
    }

    /// Appends `body` to a running recording; one it would take past `recordingLimit` is stopped
    /// and kept as it is, and the page is told why.
    private func record(_ body: Flowd_V1_Envelope.OneOf_Body, to recording: inout [UInt8]?) {
        guard !Self.append(body, to: &recording, limit: recordingLimit) else { return }
        stopRecording(&recording, full: """
            the recording reached the \(recordingLimit) bytes flowd-web keeps of one and was stopped there; \
            for longer ones use flowctl record
            """)
    }

    /// Stops the running recording and offers it for download (or says why it cannot be kept);
    /// `full` says it stopped because it reached its bound.
    private func stopRecording(_ recording: inout [UInt8]?, full: String? = nil) {
        guard let bytes = recording else { return }
        recording = nil
        do {
            send(Self.message("recording", ["state": "stopped", "url": try keepRecording(bytes), "bytes": bytes.count]))
            if let full { send(Self.message("result", ["action": "recordStop", "ok": false, "message": full])) }
        } catch {
            send(Self.message("recording", ["state": "stopped"]))
            send(Self.message("result", ["action": "recordStop", "ok": false, "message": error.reason]))
        }
    }

    /// The outputs the inspector offers to inject, per screen kind: every demo card sends
    /// `CardOutput` (as `flowctl inject` takes it). Kinds it does not know get no offer.
    static var outputShapes: [String: [String]] {
        let card = [#"{"didPressButton":{"index":0}}"#, #"{"didEnterText":{"text":"text"}}"#]
        return Dictionary(uniqueKeysWithValues: allCardScreens.map { ($0.kind, card) })
    }

    private static func message(_ type: String, _ fields: [String: Any]) -> String {
        var object = fields
        object["type"] = type
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
