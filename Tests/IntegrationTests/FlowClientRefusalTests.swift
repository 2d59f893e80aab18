import FlowControl
import FlowdTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a client is told when the daemon closes before answering its `Hello` (issue 46: at the
/// descriptor limit flowctl said `write: Broken pipe`).
@Suite struct FlowClientRefusalTests {
    @Test func aDaemonThatClosesBeforeAnsweringIsSaidPlainly() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/closing.sock"
        let listener = try listenOnUnixSocket(path: path)
        defer { close(listener) }
        // Accepts one peer and closes it unread, as libuv does with the peers it cannot take at EMFILE.
        let closer = Thread {
            let peer = accept(listener, nil, nil)
            if peer >= 0 { close(peer) }
        }
        closer.start()
        do {
            _ = try FlowClient.connect(path: path, role: .debug, name: "refused")
            Issue.record("connect succeeded against a peer that closes")
        } catch {
            #expect("\(error)".contains("flowd closed the connection before answering"), "\(error)")
            #expect("\(error)".contains("connection limit"), "\(error)")
        }
    }
}
