import DemoScreens
import Foundation
import Testing

@Suite("Shared script progress")
struct ScriptProgressTests {
    /// The tutorial part of the walk: both Welcome screens match line 2; only the order tells them apart.
    let script = try! Script(parsing: """
        on menu press "Onboarding tutorial"
        on tutorial "Welcome" press "Next"
        on tutorial "All set" back
        on tutorial "Welcome" press "Next"
        on tutorial "All set" press "Done"
        on menu body "Tutorial completed" expect
        on menu press "Onboarding tutorial"
        on tutorial "Welcome" press "Skip"
        """)

    let menu = ScriptProgress.Screen(id: 1, kind: "menu", title: "flowd demos", body: "Choose a demo.")
    let welcome = ScriptProgress.Screen(id: 2, kind: "tutorial", title: "Welcome", body: "")
    let allSet = ScriptProgress.Screen(id: 3, kind: "tutorial", title: "All set", body: "")

    private func progress(_ records: String...) -> ScriptProgress {
        ScriptProgress(parsing: records.joined())
    }

    private func step(_ line: Int) -> Script.Step { script.steps[line - 1] }

    @Test func readsStartedAndDoneRecordsAndSkipsTheRest() {
        let read = progress(
            ScriptProgress.startedRecord(line: 1, screen: 1), ScriptProgress.doneRecord(line: 1),
            "garbage\n", "done x\n", "started 2 screen\n",
            ScriptProgress.startedRecord(line: 2, screen: 2), ScriptProgress.startedRecord(line: 2, screen: 5))
        #expect(read.done == [1])
        #expect(read.started == [1: 1, 2: 5], "the last start of a line counts")
    }

    @Test func onlyTheVisibleScreenOfTheNextStepMoves() {
        let start = progress()
        #expect(start.move(in: script, visible: menu) == .perform(step(1), startedBefore: false))
        #expect(start.move(in: script, visible: nil) == .wait(step(1)), "a hidden screen waits")
        #expect(start.move(in: script, visible: welcome) == .wait(step(1)), "line 1 is not for a Welcome screen")

        let tutorialDone = progress((1...6).map { ScriptProgress.doneRecord(line: $0) }.joined(), "done 7\n")
        let secondWelcome = ScriptProgress.Screen(id: 9, kind: "tutorial", title: "Welcome", body: "")
        #expect(tutorialDone.move(in: script, visible: secondWelcome) == .perform(step(8), startedBefore: false),
                "the second Welcome skips: line 2 (Next) is done")
        #expect(progress((1...8).map { ScriptProgress.doneRecord(line: $0) }.joined()).move(in: script, visible: menu) == .finished)
    }

    @Test func aStepStartedByAScreenThatIsNoLongerVisibleTookEffect() {
        let welcomeStarted = progress(ScriptProgress.doneRecord(line: 1), ScriptProgress.startedRecord(line: 2, screen: welcome.id))
        #expect(welcomeStarted.move(in: script, visible: allSet) == .takeAsDone(step(2), startedBy: welcome.id))
        #expect(welcomeStarted.move(in: script, visible: nil) == .wait(step(2)), "only a visible screen can tell")
    }

    @Test func aRestartedScreenRunsItsStartedStepAgainOnlyIfItStillMatches() {
        let welcomeStarted = progress(ScriptProgress.doneRecord(line: 1), ScriptProgress.startedRecord(line: 2, screen: welcome.id))
        #expect(welcomeStarted.move(in: script, visible: welcome) == .perform(step(2), startedBefore: true))

        let menuStarted = progress((1...5).map { ScriptProgress.doneRecord(line: $0) }.joined(), ScriptProgress.startedRecord(line: 6, screen: menu.id))
        let completed = ScriptProgress.Screen(id: menu.id, kind: "menu", title: "flowd demos", body: "Tutorial completed")
        #expect(menuStarted.move(in: script, visible: completed) == .perform(step(6), startedBefore: true))
        #expect(menuStarted.move(in: script, visible: menu) == .takeAsDone(step(6), startedBy: menu.id),
                "the same screen no longer matching: the step changed it")
    }

    @Test func processesShareTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("progress").path
        let first = try ScriptProgressFile(path: path)
        let second = try ScriptProgressFile(path: path)
        try first.recordStarted(line: 1, screen: 1)
        try second.recordDone(line: 1)
        try first.recordStarted(line: 2, screen: 2)
        #expect(first.read() == second.read())
        #expect(second.read().done == [1])
        #expect(second.read().started == [1: 1, 2: 2])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "started 1 screen 1\ndone 1\nstarted 2 screen 2\n")
    }
}
