import Foundation

/// What every page's session shares: the page's messages, parsed, handed to a thread of the
/// session's own through a `WakeQueue`, and the page leaving. Subclasses serve in `serve()`.
package class PageSession<Request: Sendable>: @unchecked Sendable {  // only `requests` is shared across threads
    /// A page's request, or the page leaving (the last message).
    enum Message: Sendable {
        case page(Request)
        case leave
        /// Something the session shares with others changed (the displays the display tabs show).
        case changed
    }

    /// What the page asked, for the session's thread to `drain`.
    let requests = WakeQueue<Message>()
    private let threadName: String
    private let parse: (String) throws(MessageError) -> Request

    init(threadName: String, parse: @escaping (String) throws(MessageError) -> Request) {
        self.threadName = threadName
        self.parse = parse
    }

    /// Connects to flowd and serves on a new thread until flowd ends the session or the page leaves.
    package func start() {
        let thread = Thread { [self] in serve() }
        thread.name = threadName
        thread.start()
    }

    /// Takes one message from the page; a malformed one throws and changes nothing.
    package func receive(_ text: String) throws(MessageError) {
        requests.push(.page(try parse(text)))
    }

    /// The page has gone (closed, reloaded, or cut off for a bad message).
    package func pageLeft() {
        requests.push(.leave)
        requests.close()
    }

    /// The session's thread; overridden.
    func serve() {
        preconditionFailure("\(Self.self) must override serve()")
    }
}
