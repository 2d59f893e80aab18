import FlowKit
import FlowKitWire
import FlowWire
import Testing

/// FlowKitWire's conversions: what the daemon encodes, a screen host reads back (docs/protocol.md §7).
@Suite("Placements on the wire and back")
struct PlacementWireTests {
    private static let screen = ScreenID(rawValue: 12)
    private static func id(_ raw: UInt64) -> NodeID { NodeID(rawValue: raw) }

    @Test(
        "a placement survives the wire unchanged, modals with their presenters",
        arguments: [
            Placement(path: [.window], index: 0, isTopMost: true, isVisible: true),
            Placement(path: [.window, .stack(id(3))], index: 2, isTopMost: false, isVisible: false),
            Placement.sample,
            Placement(path: [.window, .tab(bar: id(4), index: 2, count: 3)], index: 0, isTopMost: true, isVisible: false),
            Placement(
                path: [.window, .stack(id(3)), .tab(bar: id(4), index: 0, count: 2), .stack(id(7))],
                index: 0, isTopMost: true, isVisible: true),
            // Modals: on the window's root stack, on a screen in a stack, on a screen in a tab, on the window's root screen.
            Placement(path: [.window, .modal(presenter: id(6)), .stack(id(9))], index: 1, isTopMost: true, isVisible: true),
            Placement(path: [.window, .stack(id(3)), .modal(presenter: id(4)), .stack(id(7))], index: 0, isTopMost: true, isVisible: true),
            Placement(path: [.window, .tab(bar: id(4), index: 1, count: 3), .modal(presenter: id(5)), .stack(id(8))],
                      index: 2, isTopMost: true, isVisible: false),
            Placement(path: [.window, .modal(presenter: id(2))], index: 0, isTopMost: true, isVisible: true),
            // Windows a flow opened: its content, a stack in it, a modal on the window itself.
            Placement(path: [.otherWindow(id(20), display: "customer")], index: 0, isTopMost: true, isVisible: true),
            Placement(path: [.otherWindow(id(20), display: "customer"), .stack(id(21))], index: 1, isTopMost: true, isVisible: false),
            Placement(path: [.otherWindow(id(20), display: "customer"), .modal(presenter: id(20))], index: 0, isTopMost: true, isVisible: true),
        ])
    func roundTrip(_ placement: Placement) {
        #expect(Placement(Flowd_V1_Placement(placement, screen: Self.screen)) == placement)
    }

    @Test("a window a flow opened is its path's first element, with its id and display")
    func openedWindowOnTheWire() {
        let wire = Flowd_V1_Placement(Placement(path: [.otherWindow(Self.id(20), display: "customer"), .stack(Self.id(21))], index: 0,
                                                isTopMost: true, isVisible: true), screen: Self.screen)
        #expect(wire.path.map(\.kind) == [.window, .stack, .screen])
        #expect(wire.path.map(\.id) == [20, 21, 12])
        #expect(wire.path.map(\.display) == ["customer", "", ""])
        // The main window's element has no display, as before windows.
        #expect(Flowd_V1_Placement(.sample, screen: Self.screen).path.allSatisfy { $0.display.isEmpty })
    }

    @Test("the wire form of the sample is the table of docs/protocol.md §7")
    func sampleOnTheWire() {
        let wire = Flowd_V1_Placement(.sample, screen: Self.screen)
        #expect(wire.path.map(\.kind) == [.window, .tabBar, .stack, .screen])
        #expect(wire.path.map(\.id) == [1, 4, 6, 12])
        #expect(wire.path.map(\.index) == [0, 0, 1, 1])
        #expect(wire.path.map(\.tabCount) == [0, 3, 0, 0])
        #expect(wire.visible && wire.topMost)
    }

    @Test("a presented element reads as a modal presented on the element before it")
    func presented() {
        var wire = Flowd_V1_Placement()
        var window = Flowd_V1_PathElement()
        window.kind = .window
        window.id = 1
        var stack = Flowd_V1_PathElement()
        stack.kind = .stack
        stack.id = 6
        var modal = Flowd_V1_PathElement()
        modal.kind = .stack
        modal.id = 9
        modal.presented = true
        var screen = Flowd_V1_PathElement()
        screen.kind = .screen
        screen.id = 15
        screen.index = 1
        wire.path = [window, stack, modal, screen]
        let placement = Placement(wire)
        // Steps are relations: stack 6 is the window's content, stack 9 is presented on stack 6.
        #expect(placement.path == [.window, .modal(presenter: Self.id(6)), .stack(Self.id(9))])
        #expect(placement.index == 1)
        #expect(placement.stack == Self.id(9))
    }

    @Test("wire changes map to FlowKit's one to one, an unknown reason is read off the placements")
    func changes() {
        var hidden = Placement.sample
        hidden.isVisible = false
        let visible = Placement.sample
        #expect(PlacementChange(.covered, from: visible, to: hidden) == .covered)
        #expect(PlacementChange(.uncovered, from: hidden, to: visible) == .uncovered)
        #expect(PlacementChange(.moved, from: visible, to: visible) == .moved)
        #expect(PlacementChange(.tabDeselected, from: visible, to: hidden) == .tabDeselected)
        #expect(PlacementChange(.tabSelected, from: hidden, to: visible) == .tabSelected)
        #expect(PlacementChange(.unspecified, from: visible, to: hidden) == .covered)
        #expect(PlacementChange(.unspecified, from: hidden, to: visible) == .uncovered)
        #expect(PlacementChange(.unspecified, from: visible, to: visible) == .moved)
        for change in [PlacementChange.covered, .uncovered, .moved, .tabSelected, .tabDeselected] {
            #expect(PlacementChange(Flowd_V1_PlacementChanged.Change(change), from: visible, to: visible) == change)
        }
    }
}
