import FlowdTestSupport
import FlowWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Flows driven end to end by raw-protocol screen hosts: bytes on the socket, no ScreenKit.
@Suite("screens over raw sockets")
struct RawScreenWalkTests {
    @Test func onboardingTutorialEndToEnd() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(name: "raw-host", provides: ["tutorial"])

        // The welcome screen is the root of a new stack at the window.
        let first = try host.settle()
        let welcome = try #require(first.compactMap(\.place).first)
        #expect(first.count == 1)
        #expect(welcome.kind == "tutorial")
        #expect(welcome.serial == 1)
        #expect(welcome.flowType == "OnboardingFlow")
        #expect(welcome.state.object["title"] as? String == "Welcome")
        #expect(welcome.state.object["buttons"] as? [String] == ["Skip", "Next"])
        #expect(welcome.placement.path.map(\.kind) == [.window, .stack, .screen])
        #expect(welcome.placement.path.last?.id == welcome.screenID)
        #expect(welcome.placement.path.last?.index == 0)
        #expect(welcome.placement.visible && welcome.placement.topMost)
        let stackID = welcome.placement.path[1].id

        // Skip is an output of the flow: nothing is placed.
        try host.press(0, on: welcome.screenID)
        #expect(try host.settle().isEmpty)

        // Next pushes the finish screen and covers the welcome screen.
        try host.press(1, on: welcome.screenID)
        let second = try host.settle()
        let done = try #require(second.compactMap(\.place).first)
        #expect(done.serial == 1)
        #expect(done.state.object["title"] as? String == "All set")
        #expect(done.placement.path.map(\.id).prefix(2) == [1, stackID])
        #expect(done.placement.path.last?.index == 1)
        let covered = try #require(second.compactMap(\.placementChanged).first)
        #expect(covered.screenID == welcome.screenID)
        #expect(covered.change == .covered)
        #expect(covered.serial == 2)
        #expect(!covered.placement.visible)

        // Done finishes the root flow: everything is dismissed top-most first, then the daemon exits.
        try host.press(0, on: done.screenID)
        var dismissed: [Flowd_V1_Dismiss] = []
        var shutdown: Flowd_V1_Shutdown?
        var unwinding: [String] = []
        while let frame = try host.receive() {
            unwinding.append("\(frame.bodyName) \(frame.command.map { "\($0.screen)/\($0.serial)" } ?? "")")
            if let dismiss = frame.dismiss {
                dismissed.append(dismiss)
                try host.ackAll([frame])
            }
            if let last = frame.shutdown { shutdown = last }
        }
        #expect(dismissed.map(\.screenID) == [done.screenID, welcome.screenID])
        #expect(dismissed.map(\.serial) == [2, 3], "\(unwinding)")
        #expect(dismissed.allSatisfy { $0.reason == .flowFinished && !$0.animated })
        #expect(shutdown?.reason == .appFinished)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.logText.contains("app tutorial finished"))
    }
}

extension RawScreenWalkTests {
    @Test func subFlowScreensLeftInPlaceThenDismissedWithoutAnimation() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "leave-in-place"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item", "tutorial"])
        let home = try #require(try host.settle().compactMap(\.place).first)
        try host.press(0, on: home.screenID)  // start the tutorial sub-flow
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: welcome.screenID)
        let done = try #require(try host.settle().compactMap(\.place).first)
        // The tutorial finishes; the parent leaves its screens in place: nothing is dismissed.
        try host.press(0, on: done.screenID)
        let afterLeave = try host.settle()
        #expect(afterLeave.compactMap(\.dismiss).isEmpty, "\(afterLeave.map(\.bodyName))")
        // The user can still navigate the adopted screens: back from "All set" works.
        var back = Flowd_V1_UserNavigation()
        back.screenID = done.screenID
        back.back = Flowd_V1_Back()
        try host.send(.userNavigation(back))
        let popped = try host.settle()
        #expect(popped.compactMap(\.dismiss).map(\.screenID) == [done.screenID])
        #expect(popped.compactMap(\.dismiss).first?.reason == .userNavigation)
        // Home's "Finish" ends the parent: everything left unwinds without animation, top-most first.
        try host.press(1, on: home.screenID)
        var dismissed: [Flowd_V1_Dismiss] = []
        while let frame = try host.receive() {
            if let dismiss = frame.dismiss {
                dismissed.append(dismiss)
                try host.ackAll([frame])
            }
        }
        #expect(dismissed.map(\.screenID) == [welcome.screenID, home.screenID])
        #expect(dismissed.allSatisfy { !$0.animated })
        #expect(daemon.waitForExit() == 0)
    }

    @Test func stackOfAThousandScreensUnwoundTopMostFirst() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "deep-stack"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["item"])
        let root = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: root.screenID)  // push 999 more
        let pushed = try host.settle().compactMap(\.place)
        #expect(pushed.count == 999)
        #expect(pushed.last?.placement.path.last?.index == 999)
        let top = try #require(pushed.last)
        try host.press(2, on: top.screenID)  // finish: one dismisser unwinds 1,000 screens
        var order: [UInt64] = []
        while let frame = try host.receive() {
            if let dismiss = frame.dismiss {
                order.append(dismiss.screenID)
                try host.ackAll([frame])
            }
        }
        let expected = ([root] + pushed).map(\.screenID).reversed()
        #expect(order == Array(expected))
        #expect(daemon.waitForExit() == 0)
    }

    @Test func hostsActOnlyOnTheirOwnScreensAndBadInputIsRefused() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "leave-in-place"])
        let owner = try RawClient(path: daemon.socketPath)
        try owner.handshake(provides: ["item", "tutorial"])
        let other = try RawClient(path: daemon.socketPath)
        try other.handshake(provides: ["nothing-useful"])
        let home = try #require(try owner.settle().compactMap(\.place).first)

        // Another host pressing the owner's screen is refused, and nothing happens.
        try other.press(0, on: home.screenID)
        let errors = try other.settle(ack: false).compactMap(\.error)
        // First the unknown kind it offered, then the refusal.
        #expect(errors.map(\.code) == [.unknownKind, .notYourScreen])
        #expect(errors.allSatisfy { !$0.fatal })
        #expect(try owner.settle().isEmpty)

        // A payload that does not decode as the screen's Output.
        var bad = Flowd_V1_Output()
        bad.screenID = home.screenID
        bad.payload = .json(Data(#"{"pressedEverything":true}"#.utf8))
        try owner.send(.output(bad))
        let badPayload = try #require(try owner.settle(ack: false).compactMap(\.error).first)
        #expect(badPayload.code == .badPayload)

        // An ack for a serial never sent.
        var ack = Flowd_V1_Ack()
        ack.screenID = home.screenID
        ack.serial = 99
        try owner.send(.ack(ack))
        let unknownSerial = try #require(try owner.settle(ack: false).compactMap(\.error).first)
        #expect(unknownSerial.code == .unknownSerial)
        #expect(unknownSerial.serial == 99)

        // An output for a screen that does not exist.
        try owner.press(0, on: 123_456)
        #expect(try owner.settle(ack: false).compactMap(\.error).first?.code == .unknownScreen)

        // The flow carries on: the press still starts the tutorial.
        try owner.press(0, on: home.screenID)
        #expect(try owner.settle().compactMap(\.place).first?.kind == "tutorial")
        #expect(daemon.process.isRunning)
    }

    @Test func hostThatDiesEndsTheFlowWithScreenLostAndLeaksNothing() throws {
        // No resume grace, and the screens lost with their host (by default they would wait for the
        // next host): lost at once (SurvivalIntegrationTests covers the grace and the waiting).
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--stay-up", "--resume-grace", "0", "--lose-with-host", "all"])
        let debug = try RawClient(path: daemon.socketPath)
        try debug.handshake(role: .debug, name: "counts")
        let before = try debug.stats()

        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: welcome.screenID)
        _ = try host.settle()
        host.socket.close()  // the host dies with two screens shown

        #expect(daemon.waitForLog("app tutorial ended: screen"), "\(daemon.logText)")
        var after = try debug.stats()
        for _ in 0..<50 where after.connections != before.connections { after = try debug.stats() }
        #expect(after.flows == 0)
        #expect(after.screens == 0)
        #expect(after.connections == before.connections)
        #expect(after.openDescriptors == before.openDescriptors)
        #expect(after.libuvHandles == before.libuvHandles)
        #expect(after.pendingAcks == 0)
        try debug.ping()
    }

    @Test func hostThatStopsReadingIsCutOffWithoutDelayingTheOther() throws {
        let daemon = try DaemonProcess(arguments: [
            "--app", "mirror", "--max-frame-size", "8192", "--write-queue-limit", "65536", "--hang-timeout", "0",
        ])
        let reader = try RawClient(path: daemon.socketPath)
        try reader.handshake(provides: ["item"])
        let stalled = try RawClient(path: daemon.socketPath)
        try stalled.handshake(provides: ["tutorial"])
        let item = try #require(try reader.settle().compactMap(\.place).first)
        // `stalled` never reads again, as if stopped with SIGSTOP.
        var updates = 0
        for _ in 0..<400 {
            try reader.press(0, on: item.screenID)
            updates += try reader.settle().compactMap(\.update).count
            if daemon.logText.contains("stopped reading") { break }
        }
        #expect(daemon.waitForLog("disconnecting a client that stopped reading"))
        // The reader got every update it caused, one per press, and keeps getting them.
        try reader.press(0, on: item.screenID)
        #expect(try reader.settle().compactMap(\.update).count == 1)
        #expect(updates > 0)
    }
}

extension RawScreenWalkTests {
    @Test func placeNotAcknowledgedInTimeLosesTheScreen() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--ack-timeout", "0.2", "--hang-timeout", "0"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        // Read everything but never ack.
        var errors: [Flowd_V1_Error] = []
        var dismissed: [Flowd_V1_Dismiss] = []
        while let frame = try host.receive() {
            if let error = frame.error { errors.append(error) }
            if let dismiss = frame.dismiss { dismissed.append(dismiss) }
        }
        #expect(errors.map(\.code) == [.ackTimeout])
        #expect(errors.first?.serial == 1)
        #expect(dismissed.map(\.reason) == [.removed])
        #expect(daemon.waitForLog("app tutorial ended: screen"))
        #expect(daemon.waitForExit() == 0)
    }

    @Test func dismissNotAcknowledgedInTimeIsForced() throws {
        let daemon = try DaemonProcess(arguments: ["--app", "tutorial", "--ack-timeout", "0.3", "--hang-timeout", "0"])
        let host = try RawClient(path: daemon.socketPath)
        try host.handshake(provides: ["tutorial"])
        let welcome = try #require(try host.settle().compactMap(\.place).first)
        try host.press(1, on: welcome.screenID)
        let done = try #require(try host.settle().compactMap(\.place).first)
        try host.press(0, on: done.screenID)
        // Ack nothing more: both dismissals time out, the daemon says so and still exits cleanly.
        var timedOut: [UInt64] = []
        while let frame = try host.receive() {
            if let error = frame.error, error.code == .ackTimeout { timedOut.append(error.screenID) }
        }
        #expect(Set(timedOut) == [welcome.screenID, done.screenID])
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aTokenOnTheNamedSocketIsRefused() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socketPath)
        var hello = Flowd_V1_Hello()
        hello.minVersion = 1
        hello.maxVersion = 1
        hello.role = .screenHost
        hello.token = "guessed"
        try client.send(.hello(hello))
        let frames = try client.receiveUntilClosed()
        #expect(frames.first?.error?.code == .unauthorized)
    }
}
