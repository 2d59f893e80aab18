import FlowKit
import FlowWire

/// The displays (`ROLE_DISPLAY`, flowd-shell) and what they are told: the connections that draw the
/// screens of every host on one display, the secret of each screen's current placement
/// (`Place.display_token`), and whether the scene changed since they were last sent one. A value
/// with no I/O: the app feeds it the screen commands it gives the delivery and the `Place`s that go
/// out, and at the end of an iteration it turns the model into the `DisplayScene` each display gets.
struct Displays {
    /// The visible screen a scene showed, to tell the next one's transition.
    struct Shown: Equatable {
        var screen: ScreenID
        var placement: Placement
    }

    /// The display connections, and whether each was sent a scene yet.
    private var connections: [UInt64: Bool] = [:]
    /// The secret of each screen's last `Place`, by screen. It is kept for every live screen, displays
    /// or not (one may connect later), so as two words in a `NodeTable` (42 B a screen at 100,900), not
    /// as its 32 digits: a `String` object each (96 B) in a `Dictionary` (62 B) made `flowbench
    /// live-screens` 912 B per screen where 748 B now (docs/performance.md, "Memory").
    private(set) var tokens = NodeTable<DisplayToken>()
    /// A command changed the model (or a token) since the last scene.
    private var changed = false
    /// A `Place` or `Dismiss` since the last scene asked for animation.
    private var animated = false
    /// The last scene's window and visible screen (nil: none sent yet).
    private var lastWindow: Flowd_V1_DisplayNode?
    private var lastShown: Shown?
    /// The last scene's other windows (flows opened them on other displays), by window.
    private var lastOthers: [NodeID: (window: Flowd_V1_DisplayNode, shown: Shown?)] = [:]
    /// Scenes sent in this daemon run.
    private(set) var seq: UInt64 = 0
    /// The displays the connections provide.
    var provided = ProvidedDisplays()

    /// Whether a display is connected.
    var isEmpty: Bool { connections.isEmpty }

    /// Whether a display waits for a scene: a new one, or the model changed.
    var hasScenesToHand: Bool {
        !connections.isEmpty && (changed || connections.values.contains(false))
    }

    /// A display finished its handshake on `connection`: it gets the whole scene at the iteration's end.
    mutating func joined(_ connection: UInt64) { connections[connection] = false }

    /// The connection `connection` closed (a display or not).
    mutating func left(_ connection: UInt64) { connections[connection] = nil }

    /// The screen command the runtime gave the delivery: the model changed, unless it is an `Update`
    /// (a state, which the display does not draw).
    mutating func observe(_ command: ScreenCommand) {
        switch command {
        case .update:
            return
        case .place(let place):
            animated = animated || place.animated
        case .dismiss(_, let animated, _):
            self.animated = self.animated || animated
        case .placementChanged:
            break
        }
        changed = true
    }

    /// A `Place` of `screen` goes out to a host: its new secret, which a surface of that host
    /// presents to the display to be drawn as the screen. `live` prunes the secrets of screens gone,
    /// once they pile up.
    mutating func placed(_ screen: ScreenID, live: (count: Int, contains: (ScreenID) -> Bool)) -> String {
        let token = DisplayToken.random()
        tokens[screen] = token
        if tokens.count > 2 * live.count + 64 {
            for gone in tokens.keys.filter({ !live.contains($0) }) { tokens[gone] = nil }
        }
        changed = true
        return token.text
    }

    /// The scenes to send now, by display connection, built from `tree` (nil: no app runs). A
    /// display that has the current scene gets nothing; a new one gets it with no transition.
    mutating func takeScenes(tree: DebugTree?, app: String) -> [(connection: UInt64, scene: Flowd_V1_DisplayScene)] {
        guard hasScenesToHand else { return [] }
        let window = tree.map { $0.displayWindow(tokens: tokens) } ?? Self.emptyWindow
        let shown = tree?.shown()
        let others = (tree?.otherWindows ?? []).map { info in
            (info: info, window: tree!.displayWindow(info.id, tokens: tokens), shown: tree!.shown(in: info.id))
        }
        let othersChanged = others.count != lastOthers.count || others.contains { lastOthers[$0.info.id]?.window != $0.window }
        let fresh = window != lastWindow || othersChanged
        var transition = Flowd_V1_SceneTransition()
        if window != lastWindow, lastWindow != nil {
            transition = self.transition(from: lastShown, to: shown, in: tree)
        }
        let otherWindows = others.map { other in
            var opened = Flowd_V1_DisplayWindow()
            opened.window = other.window
            opened.display = other.info.display
            opened.visibleScreen = other.shown?.screen.rawValue ?? 0
            if let last = lastOthers[other.info.id], last.window != other.window {
                opened.transition = self.transition(from: last.shown, to: other.shown, in: tree)
            }
            return opened
        }
        changed = false
        animated = false
        var scenes: [(UInt64, Flowd_V1_DisplayScene)] = []
        for (connection, hasScene) in connections.sorted(by: { $0.key < $1.key }) where fresh || !hasScene {
            seq += 1
            var scene = Flowd_V1_DisplayScene()
            scene.seq = seq
            scene.app = app
            scene.window = window
            scene.visibleScreen = shown?.screen.rawValue ?? 0
            scene.otherWindows = otherWindows
            if hasScene {
                scene.transition = transition
            } else {
                for index in scene.otherWindows.indices { scene.otherWindows[index].clearTransition() }
            }
            scenes.append((connection, scene))
            connections[connection] = true
        }
        lastWindow = window
        lastShown = shown
        lastOthers = Dictionary(uniqueKeysWithValues: others.map { ($0.info.id, ($0.window, $0.shown)) })
        return scenes
    }

    /// The transition of one window's visible screen from `old` to `new`, animated if a command asked.
    private func transition(from old: Shown?, to new: Shown?, in tree: DebugTree?) -> Flowd_V1_SceneTransition {
        var transition = Flowd_V1_SceneTransition()
        transition.kind = Self.transition(from: old, stillThere: old.map { tree?.hasScreen($0.screen) ?? false } ?? false, to: new)
        transition.animated = animated && transition.kind != .none
        transition.fromScreen = old?.screen.rawValue ?? 0
        transition.toScreen = new?.screen.rawValue ?? 0
        return transition
    }

    private static var emptyWindow: Flowd_V1_DisplayNode {
        var window = Flowd_V1_DisplayNode()
        window.id = NodeID.window.rawValue
        window.kind = .window
        return window
    }

    /// How the visible screen went from `old` (`stillThere`: it is still in the model) to `new`.
    static func transition(from old: Shown?, stillThere: Bool, to new: Shown?) -> Flowd_V1_SceneTransition.Kind {
        guard let old, let new else { return old == nil && new == nil ? .none : .replace }
        guard old.screen != new.screen else { return .none }
        let modals = { (placement: Placement) in placement.path.filter { if case .modal = $0 { true } else { false } }.count }
        let (oldModals, newModals) = (modals(old.placement), modals(new.placement))
        if newModals > oldModals { return .present }
        if newModals < oldModals { return .dismiss }
        if old.placement.path == new.placement.path, old.placement.stack != nil {
            if new.placement.index > old.placement.index { return .push }
            if new.placement.index < old.placement.index || !stillThere { return .pop }
            return .replace
        }
        for (before, after) in zip(old.placement.path, new.placement.path) where before != after {
            if case .tab(let oldBar, _, _) = before, case .tab(let newBar, _, _) = after, oldBar == newBar { return .tab }
            break
        }
        return .replace
    }
}

/// A `Place`'s secret for the display (`Place.display_token`): 128 random bits, written out as 32
/// lowercase hex digits only when a `Place` or a scene carries it.
struct DisplayToken: Equatable {
    var high: UInt64
    var low: UInt64

    /// A fresh secret from the system's generator.
    static func random() -> DisplayToken {
        var generator = SystemRandomNumberGenerator()
        return DisplayToken(high: generator.next(), low: generator.next())
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// The 32 hex digits, `high` first.
    var text: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            func write(_ value: UInt64, at start: Int) {
                var rest = value
                for index in stride(from: start + 15, through: start, by: -1) {
                    buffer[index] = Self.digits[Int(rest & 0xf)]
                    rest >>= 4
                }
            }
            write(high, at: 0)
            write(low, at: 16)
            return 32
        }
    }
}
