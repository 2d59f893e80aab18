import FlowWire
import Foundation
import Testing
import FlowdTestSupport

/// `flowctl tree`, `dot`, `select-tab` and `close-modal` against a live daemon.
@Suite("flowctl tree")
struct FlowctlTreeTests {
    @Test func treeBeforeAndAfterAPushAndAModal() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "modal"])
        let host = try RawClient(path: daemon.socketPath)
        let hostID = try host.handshake(name: "raw-host", provides: ["item"]).connectionID
        let home = try #require(try host.settle().compactMap(\.place).first)

        var run = try flowctl(["tree"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("flowd app modal: 1 flow, 1 screen,"))
        #expect(run.stdout.contains("  flow 1 ModalFlow  screen \(home.screenID)\n"))
        #expect(run.stdout.contains("    stack \(home.placement.path[1].id)  1 screen deep\n"), "\(run.stdout)")
        #expect(run.stdout.contains("      [0] screen \(home.screenID) item  flow 1 ModalFlow  host #\(hostID) raw-host pid \(getpid())  visible\n"), "\(run.stdout)")
        #expect(run.stdout.contains("#\(hostID) screen-host raw-host pid \(getpid())  provides item  1 screen"))

        // Present the sub-flow modally; leave its Place unacknowledged for a moment.
        try host.press(0, on: home.screenID)
        let presented = try host.settle(ack: false)
        let detail = try #require(presented.compactMap(\.place).first)
        let modalStack = detail.placement.path[detail.placement.path.count - 2].id
        run = try flowctl(["tree"], daemon)
        #expect(run.stdout.contains("    flow 2 ModalDetailFlow  screen \(detail.screenID)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("[0] screen \(home.screenID) item  flow 1 ModalFlow  host #\(hostID) raw-host pid \(getpid())  hidden"), "\(run.stdout)")
        #expect(run.stdout.contains("presents stack \(modalStack)  1 screen deep"), "\(run.stdout)")
        #expect(run.stdout.contains("[0] screen \(detail.screenID) item  flow 2 ModalDetailFlow  host #\(hostID) raw-host pid \(getpid())  visible  pending ack (sent 1, acked 0)"), "\(run.stdout)")
        try host.ackAll(presented)

        // Push inside the modal.
        try host.press(0, on: detail.screenID)
        let pushed = try #require(try host.settle().compactMap(\.place).first)
        try host.ping()  // the acks are in
        run = try flowctl(["tree"], daemon)
        #expect(run.stdout.contains("    flow 2 ModalDetailFlow  screens \(detail.screenID), \(pushed.screenID)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("2 screens deep"))
        #expect(run.stdout.contains("[1] screen \(pushed.screenID) item  flow 2 ModalDetailFlow  host #\(hostID) raw-host pid \(getpid())  visible\n"), "\(run.stdout)")
        #expect(!run.stdout.contains("pending ack ("), "\(run.stdout)")

        // JSON for machines; dot for Graphviz.
        run = try flowctl(["tree", "--json"], daemon)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["app"] as? String == "modal")
        #expect((object["rootFlow"] as? [String: Any])?["type"] as? String == "ModalFlow")
        run = try flowctl(["dot"], daemon)
        #expect(run.stdout.hasPrefix("digraph flowd {"))
        #expect(run.stdout.contains("n\(home.screenID) -> n\(modalStack) [style=dashed label=\"presents\"]"), "\(run.stdout)")
        #expect(run.stdout.contains("f1 -> f2"))

        // The user closes the modal: the sub-flow ends and its screens go.
        run = try flowctl(["close-modal", "\(pushed.screenID)"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(try host.settle().compactMap(\.dismiss).map(\.screenID)) == [detail.screenID, pushed.screenID])
        run = try flowctl(["tree"], daemon)
        #expect(!run.stdout.contains("presents"))
        #expect(!run.stdout.contains("ModalDetailFlow"))
        #expect(run.stdout.contains("[0] screen \(home.screenID) item  flow 1 ModalFlow  host #\(hostID) raw-host pid \(getpid())  visible"))

        // close-modal outside a modal is refused.
        run = try flowctl(["close-modal", "\(home.screenID)"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("not inside a modal"))
    }

    @Test func selectTabByTabBarOrScreen() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "mirror"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item", "tutorial"])
        let places = try host.settle().compactMap(\.place)
        #expect(places.count == 2)
        let bar = try #require(places.first?.placement.path.first { $0.kind == .tabBar })

        var run = try flowctl(["tree"], daemon)
        // Tabs count from 1, as the demo's header does.
        #expect(run.stdout.contains("tab bar \(bar.id)  2 tabs, tab 1 selected"), "\(run.stdout)")
        #expect(run.stdout.contains("tab 1*: screen \(places[0].screenID) item"), "\(run.stdout)")
        #expect(run.stdout.contains("tab 2: screen \(places[1].screenID) tutorial"), "\(run.stdout)")

        run = try flowctl(["select-tab", "\(bar.id)", "2"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "tab 2 of tab bar \(bar.id) selected (from screen \(places[0].screenID))\n", "\(run.stdout)")
        let changes = try host.settle().compactMap(\.placementChanged)
        #expect(changes.first { $0.screenID == places[1].screenID }?.placement.visible == true)
        run = try flowctl(["tree"], daemon)
        #expect(run.stdout.contains("tab bar \(bar.id)  2 tabs, tab 2 selected"), "\(run.stdout)")
        #expect(run.stdout.contains("tab 2*: screen \(places[1].screenID) tutorial"))

        // A screen id inside the tab bar works too.
        run = try flowctl(["select-tab", "\(places[1].screenID)", "1"], daemon)
        #expect(run.status == 0, "\(run.stderr)")
        _ = try host.settle()
        #expect(try flowctl(["tree"], daemon).stdout.contains("2 tabs, tab 1 selected"))

        // Not a tab bar, no such tab, or a tab 0: refused with a reason.
        run = try flowctl(["select-tab", "1", "1"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("not a tab bar"))
        run = try flowctl(["select-tab", "\(bar.id)", "5"], daemon)
        #expect(run.status == 1)
        #expect(run.stderr.contains("has 2 tabs (1 to 2); there is no tab 5"), "\(run.stderr)")
        run = try flowctl(["select-tab", "\(bar.id)", "0"], daemon)
        #expect(run.status == 64)
        #expect(run.stderr.contains("tabs count from 1"), "\(run.stderr)")
    }
}
