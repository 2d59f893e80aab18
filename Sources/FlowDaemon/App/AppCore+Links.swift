import FlowKit
import FlowWire

extension AppCore {
    /// `OpenLink` from a screen host or a debug client (docs/protocol.md §21): the link is opened
    /// through the app's flows and answered with `LinkOpened`, or refused with a typed `Error`
    /// and nothing changed. While a dismissal is in flight (a screen's host has not acknowledged its
    /// `Dismiss` yet) the link waits for it — at most the ack timeout — instead of being refused.
    mutating func receiveOpenLink(_ request: Flowd_V1_OpenLink, seq: UInt64, from client: UInt64) {
        let arrival = waitingLinks.arrived(.init(connection: client, seq: seq, message: request),
                                           dismissalsInFlight: pendingDismissals, running: isRunning && runtime != nil)
        switch arrival {
        case .openNow: openNow(request, seq: seq, from: client)
        case .waits: break
        case .refused(let message): refuse(Flowd_V1_Error(code: .linkRefused, message: message), seq: seq, to: client)
        }
    }

    /// Opens the links that waited, in order, once no dismissal is in flight (end of each loop
    /// iteration), for the clients still connected (`isOpen`); answers them with `SHUTTING_DOWN`
    /// once the shutdown began.
    mutating func openWaitingLinks(isOpen: (UInt64) -> Bool) {
        while let waiting = waitingLinks.next(mayOpen: !isRunning || pendingDismissals == 0) {
            guard isOpen(waiting.connection) else { continue }
            openNow(waiting.message, seq: waiting.seq, from: waiting.connection)
        }
    }

    private mutating func openNow(_ request: Flowd_V1_OpenLink, seq: UInt64, from client: UInt64) {
        guard isRunning else {
            refuse(Flowd_V1_Error(code: .shuttingDown, message: "flowd is shutting down; the link \(request.link) was not opened"), seq: seq, to: client)
            return
        }
        guard runtime != nil else {
            refuse(Flowd_V1_Error(code: .linkRefused, message: "this daemon runs no app, so it opens no links"), seq: seq, to: client)
            return
        }
        let opened: OpenedLink
        switch openLink(request.link) {
        case .success(let link): opened = link
        case .failure(let error):
            refuse(Flowd_V1_Error(code: error.wireCode, message: error.message), seq: seq, to: client)
            return
        }
        logger.info("opened a link", metadata: ["link": "\(opened.link)", "connection": "#\(client)"])
        debug.events.emit(.linkOpened, screen: opened.visibleScreen, connection: client, name: "\(opened.link)",
                  payload: EventPayloads.link("\(opened.link)"), text: "opened \(opened)")
        drive()
        act(.send(.linkOpened(Flowd_V1_LinkOpened(opened, place: runtime?.place)), to: client, replyTo: seq))
    }

    /// Parses `text` and opens it through `feed` (so it is journaled like every input).
    private mutating func openLink(_ text: String) -> Result<OpenedLink, LinkError> {
        let link: Link
        do throws(LinkError) {
            link = try Link(parsing: text)
        } catch {
            return .failure(error)
        }
        do {
            guard let opened = try feed(.openLink(link)) else {
                return .failure(LinkError(.refused, "this daemon runs no app, so it opens no links"))
            }
            return .success(opened)
        } catch {
            return .failure(error.link ?? LinkError(.refused, error.message))
        }
    }
}

extension AppCore {
    /// `flowd --open LINK`: a cold start straight into a deep place, through the flows (after a
    /// restore, as a notification tapped in the running app). A link the flows do not open leaves
    /// the app where it started, with an error in the log: a daemon (a service) does not stop over a
    /// stale link. Its syntax was checked when the arguments were parsed.
    mutating func openAtStart(_ text: String) {
        guard runtime != nil else { return }
        switch openLink(text) {
        case .success(let opened):
            logger.notice("opened the link given with --open", metadata: ["link": "\(opened.link)", "visible": "\(opened.visibleScreen.map { "\($0)" } ?? "none")"])
            debug.events.emit(.linkOpened, screen: opened.visibleScreen, name: "\(opened.link)", payload: EventPayloads.link("\(opened.link)"), text: "opened \(opened)")
        case .failure(let error):
            logger.error("the link given with --open was not opened; the app starts where it starts", metadata: [
                "link": "\(text)", "code": "\(error.code)", "reason": "\(error.message)",
            ])
        }
        drive()
    }
}
