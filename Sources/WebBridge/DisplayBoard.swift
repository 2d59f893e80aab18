import FlowKit
import Foundation

/// Where the screens of windows on other displays meet the tabs that show them (docs/web.md,
/// "Several windows"). A screen tab's host gets every screen of its kinds, the windows flows opened
/// on other displays included; it posts those here, and each display tab (`/?display=customer`)
/// sees the screens of its display, whichever tab hosts them. What a display tab's person does
/// (a press, back, close) goes back through here to the hosting tab's connection. A display tab
/// is a display: while one is open, the hosting tabs provide its display to flowd (`displays`).
/// One board per flowd-web; its methods may be called from any thread.
package final class DisplayBoard: @unchecked Sendable {  // the lock guards every stored property
    /// A screen shown on a display: the view the display tab draws, and the tab that hosts it.
    private struct Shown {
        var view: ScreenView
        var host: ObjectIdentifier
    }

    /// A hosting tab: where display tabs' requests go, and how it is told the displays changed.
    private struct Host {
        var perform: @Sendable (TabRequest) -> Void
        var displaysChanged: @Sendable () -> Void
    }

    /// A display tab: how it is told, and the size of the monitor it is on.
    private struct Viewer {
        var send: @Sendable (String) -> Void
        var width: Int
        var height: Int
        var joined: Int
    }

    private let lock = NSLock()
    /// Per display id: the screens of windows on it, by screen id.
    private var screens: [String: [UInt64: Shown]] = [:]
    /// The hosting tabs, by session: where a display tab's requests go.
    private var hosts: [ObjectIdentifier: Host] = [:]
    /// The display tabs open, by display id: where what changes on that display goes.
    private var viewers: [String: [ObjectIdentifier: Viewer]] = [:]
    private var joins = 0

    package init() {}

    // MARK: Hosting tabs

    /// A tab's host joined: display tabs' requests for its screens reach it through `perform`, and
    /// `displaysChanged` says when to provide `displays` again.
    func hostJoined(
        _ host: ObjectIdentifier, perform: @escaping @Sendable (TabRequest) -> Void, displaysChanged: @escaping @Sendable () -> Void
    ) {
        lock.withLock { hosts[host] = Host(perform: perform, displaysChanged: displaysChanged) }
    }

    /// The displays the display tabs show, by id: each tab of an id is that display, sized as the
    /// monitor of the oldest of them.
    var displays: [Display] { lock.withLock { currentDisplays() } }

    private func currentDisplays() -> [Display] {
        viewers.compactMap { id, tabs in
            tabs.values.min { $0.joined < $1.joined }.map { Display(id: id, name: "flowd-web tab", width: $0.width, height: $0.height) }
        }.sorted { $0.id < $1.id }
    }

    /// A tab's host ended: its screens leave the displays (a tab that resumes them posts them again).
    func hostLeft(_ host: ObjectIdentifier) {
        lock.withLock {
            hosts[host] = nil
            for (display, shown) in screens {
                for (id, screen) in shown where screen.host == host {
                    screens[display]?[id] = nil
                    tell(display, TabEvent.forget(screen: id, reason: "connectionLost").json)
                }
            }
        }
    }

    /// `event` happened to a screen that `host` hosts in a window on `display`: the display tabs of
    /// that display are told, and the board remembers the screen for display tabs opened later.
    func post(_ event: TabEvent, display: String, host: ObjectIdentifier) {
        lock.withLock {
            switch event {
            case .place(let view, _, _), .update(let view, _), .move(let view, _, _):
                screens[display, default: [:]][view.id] = Shown(view: view, host: host)
            case .dismiss(let id, _, _, _), .forget(let id, _):
                screens[display]?[id] = nil
            default:
                break
            }
            tell(display, event.json)
        }
    }

    // MARK: Display tabs

    /// A display tab of `display` opened, on a monitor of `width` × `height` pixels (0: unknown): it is
    /// told the screens already there (placed without animation, nothing to ack), then every change.
    func viewerJoined(_ viewer: ObjectIdentifier, display: String, width: Int = 0, height: Int = 0, send: @escaping @Sendable (String) -> Void) {
        let tell = lock.withLock {
            let before = currentDisplays()
            joins += 1
            viewers[display, default: [:]][viewer] = Viewer(send: send, width: width, height: height, joined: joins)
            for view in (screens[display] ?? [:]).values.map(\.view).sorted(by: { $0.id < $1.id }) {
                send(TabEvent.place(view, serial: 0, animated: false).json)
            }
            return currentDisplays() != before ? Array(hosts.values) : []
        }
        for host in tell { host.displaysChanged() }
    }

    /// A display tab closed.
    func viewerLeft(_ viewer: ObjectIdentifier, display: String) {
        let tell = lock.withLock {
            let before = currentDisplays()
            viewers[display]?[viewer] = nil
            if viewers[display]?.isEmpty == true { viewers[display] = nil }
            return currentDisplays() != before ? Array(hosts.values) : []
        }
        for host in tell { host.displaysChanged() }
    }

    /// What a display tab's person did to a screen on `display`: handed to the tab that hosts it.
    /// False when no tab hosts that screen on that display (it just went).
    @discardableResult
    func perform(_ request: TabRequest, display: String) -> Bool {
        let perform: (@Sendable (TabRequest) -> Void)? = lock.withLock {
            guard let screen = request.screen, let host = screens[display]?[screen]?.host else { return nil }
            return hosts[host]?.perform
        }
        perform?(request)
        return perform != nil
    }

    /// The screens on `display` now, by id (for tests).
    func screenIDs(on display: String) -> [UInt64] {
        lock.withLock { (screens[display] ?? [:]).keys.sorted() }
    }

    /// Tells the display tabs of `display`; under the lock, so each sees the changes in order
    /// (a send only queues the text for the tab's socket).
    private func tell(_ display: String, _ text: String) {
        for viewer in (viewers[display] ?? [:]).values { viewer.send(text) }
    }
}

extension TabRequest {
    /// The screen a request is about; nil for opening a link.
    var screen: UInt64? {
        switch self {
        case .press(let id, _), .text(let id, _), .draft(let id, _), .back(let id, _), .closeModal(let id, _),
            .closeWindow(let id, _), .selectTab(let id, _), .ack(let id, _):
            id
        case .open: nil
        }
    }
}
