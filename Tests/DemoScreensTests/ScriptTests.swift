import DemoScreens
import Foundation
import Testing

@Suite("Script parsing")
struct ScriptTests {
    @Test func parsesEveryActionWithTitlesBodiesAndComments() throws {
        let script = try Script(parsing: """
            # a comment
            on menu press "Onboarding tutorial"   # trailing comment
            on tutorial "Welcome" press 2

            on student-age type "33"
            on summary back
            on directory "Contacts" tab 2
            on directory close
            on menu "flowd demos" body "Ann 33, Bob 21" expect
            on menu body "Tutorial # not a comment" expect
            """)
        #expect(script.steps == [
            .init(line: 2, kind: "menu", action: .pressLabel("Onboarding tutorial")),
            .init(line: 3, kind: "tutorial", title: "Welcome", action: .press(2)),
            .init(line: 5, kind: "student-age", action: .type("33")),
            .init(line: 6, kind: "summary", action: .back),
            .init(line: 7, kind: "directory", title: "Contacts", action: .tab(2)),
            .init(line: 8, kind: "directory", action: .close),
            .init(line: 9, kind: "menu", title: "flowd demos", body: "Ann 33, Bob 21", action: .expect),
            .init(line: 10, kind: "menu", body: "Tutorial # not a comment", action: .expect),
        ])
    }

    @Test func stepsMatchKindTitleAndBody() {
        let step = Script.Step(line: 1, kind: "menu", title: "demos", body: "Ann 33", action: .expect)
        #expect(step.matches(kind: "menu", title: "flowd demos", body: "Student editor: Ann 33, Bob 21"))
        #expect(!step.matches(kind: "menu", title: "flowd demos", body: "Choose a demo."))
        #expect(!step.matches(kind: "tutorial", title: "flowd demos", body: "Ann 33"))
        #expect(step.target == #"menu "demos" body "Ann 33""#)
    }

    @Test(arguments: [
        ("on menu press 1\nmenu press 1", 2, "expected `on KIND"),
        ("on menu press 0", 1, "press takes a button number from 1"),
        ("\n\non menu tab x", 3, "tab takes a tab number from 1, got x"),
        ("on menu \"Title", 1, "a quote is not closed"),
        ("on menu jump", 1, "unknown action `jump`"),
        ("on menu back 2", 1, "unknown action `back` with that argument"),
        ("on menu press 1 2", 1, "too many words after `press`"),
        ("on menu body expect", 1, "`body` takes the text"),
        ("on menu \"Title\"", 1, "missing action after `on menu`"),
        ("on menu body \"x\"", 1, "missing action after `on menu`"),
    ])
    func reportsErrorsWithTheirLineNumber(text: String, line: Int, reason: String) {
        #expect {
            try Script(parsing: text)
        } throws: { error in
            guard let error = error as? Script.ParseError else { return false }
            return error.line == line && error.reason.contains(reason) && error.description.hasPrefix("script line \(line): ")
        }
    }

    /// The walk-through that scripts/demo --headless and the integration test run parses, and covers every launcher entry.
    @Test func theDemoWalkthroughParsesAndVisitsEveryEntry() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/demo-walkthrough.txt")
        let script = try Script(parsing: String(contentsOf: url, encoding: .utf8))
        let pressed = Set(script.steps.compactMap { step -> String? in
            guard step.kind == "menu", case .pressLabel(let label) = step.action else { return nil }
            return label
        })
        for entry in ["Onboarding tutorial", "Personal profile (dismiss animated)", "Business profile", "Personal profile (leave on the stack)",
                      "Student editor", "Contacts and events", "Log in", "Quit"] {
            #expect(pressed.contains(entry), "the walk-through never opens \(entry)")
        }
        #expect(script.steps.contains { $0.kind == "login" }, "the Python login is walked")
        #expect(script.steps.contains { if case .tab = $0.action { true } else { false } })
        #expect(script.steps.contains { $0.action == .back })
        #expect(script.steps.contains { if case .type = $0.action { true } else { false } })
    }
}
