import DemoApps
import FlowKit
import FlowKitTesting
import Testing

/// The demo apps opened by links: the tree equals the tree after walking there by hand, and back,
/// close and results work from the deep-linked screen.
@Suite struct DemoLinkTests {
    func launch() -> (FlowTester, FlowRecorder<LauncherFlow>) {
        let tester = FlowTester()
        let recorder = tester.start(LauncherFlow(), windowRoot.withNavigationEmbedding())
        return (tester, recorder)
    }

    func press(_ index: Int, on module: (some CardScreen).Type, in tester: FlowTester) {
        tester.send(.didPressButton(index: index), from: module)
    }

    func menuStatus(_ tester: FlowTester) -> String? { tester.state(MenuScreen.self)?.body }

    @Test func studentsBobAgeIsTheWalkWithARealStack() throws {
        let (walked, _) = launch()
        press(4, on: MenuScreen.self, in: walked)
        press(1, on: StudentListScreen.self, in: walked)
        press(0, on: NameEditorScreen.self, in: walked)

        let (tester, _) = launch()
        tester.expectOpen("students/Bob/age", starts: ["StudentsFlow", "EditStudentFlow", "EditAgeFlow"], visible: AgeEditorScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())

        // Results travel up as after the walk: the age, then the student, then the list.
        tester.send(.didEnterText("30"), from: AgeEditorScreen.self)
        press(0, on: AgeEditorScreen.self, in: tester)
        #expect(tester.expectVisible(NameEditorScreen.self) != nil)
        #expect(tester.state(NameEditorScreen.self)?.body == "Age: 30")
        try tester.back()
        #expect(tester.expectVisible(StudentListScreen.self) != nil)
        #expect(tester.state(StudentListScreen.self)?.buttons.first == "Ann (20)")
        press(2, on: StudentListScreen.self, in: tester)
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Student editor: Ann 20, Bob 21 (dismiss animated)", "back from Bob's editor dropped the edit")
        tester.expectSound()
    }

    @Test func backFromTheDeepLinkedAgeEditorWalksToTheMenu() throws {
        let (tester, _) = launch()
        try tester.open("students/Bob/age")
        try tester.back()
        #expect(tester.state(of: try #require(tester.visibleScreen), as: NameEditorScreen.self)?.title == "Edit Bob")
        try tester.back()
        #expect(tester.expectVisible(StudentListScreen.self) != nil)
        try tester.back()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Student editor: dismissed by user")
        #expect(tester.runtime.liveFlowCount == 1)
    }

    @Test func directoryEventsPartyIsTheWalkInTheModal() throws {
        let (walked, _) = launch()
        press(5, on: MenuScreen.self, in: walked)
        try walked.selectTab(1)
        press(1, on: DirectoryListScreen.self, in: walked)

        let (tester, _) = launch()
        let party = tester.expectOpen("directory/events/Party", starts: ["ContactsAndEventsFlow", "DirectoryFlow", "DirectoryFlow"], visible: DirectoryDetailScreen.self)
        #expect(tester.state(of: try #require(party), as: DirectoryDetailScreen.self)?.title == "Party")
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())

        try tester.closeModal()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Contacts and events: modal closed by the user (dismiss animated)")
        tester.expectSound()
    }

    @Test func tutorialDoneIsTheWalk() throws {
        let (walked, _) = launch()
        press(0, on: MenuScreen.self, in: walked)
        press(1, on: TutorialScreen.self, in: walked)
        let (tester, _) = launch()
        tester.expectOpen("tutorial/done", starts: ["OnboardingFlow"], visible: TutorialScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())
        let again = try tester.open("tutorial/done")
        #expect(again.started.isEmpty && again.unwound.isEmpty, "the page shown already is not pushed twice")
        press(0, on: TutorialScreen.self, in: tester)
        #expect(menuStatus(tester) == "Tutorial completed")
    }

    @Test func aLinkFromAnotherPlaceUnwindsToTheCommonPoint() throws {
        let (tester, _) = launch()
        press(4, on: MenuScreen.self, in: tester)
        press(0, on: StudentListScreen.self, in: tester)   // Ann's editor, by hand
        let bob = try tester.open("students/Bob/age")
        #expect(bob.reused.count == 2, "the launcher and the student list are reused")
        #expect(bob.unwound.count == 1, "Ann's editor is unwound")
        let visible = try #require(tester.visibleScreen)
        let stack = try #require(tester.placement(of: visible)?.stack)
        tester.expectStack(stack, holds: ["menu", "students", "student-name", "student-age"])
        let directory = try tester.open("directory/contacts/Bob")
        #expect(directory.unwound.count == 3, "the students app and its editors are unwound")
        #expect(tester.state(DirectoryDetailScreen.self)?.title == "Bob")
        try tester.open("directory/events")
        #expect(tester.expectVisible(DirectoryListScreen.self) != nil, "the events tab is selected")
        tester.expectSound()
    }

    @Test func badLinksChangeNothing() throws {
        let (tester, _) = launch()
        try tester.open("students/Bob")
        tester.expectLinkRefused("students/Zed/age", .unknownLink)
        tester.expectLinkRefused("students/Bob/height", .unknownLink)
        tester.expectLinkRefused("mail", .unknownLink)
        tester.expectLinkRefused("directory/events/Nothing", .unknownLink)
        tester.expectLinkRefused("tutorial/done/more", .unknownLink)
        do {
            try tester.open("students/Zed/age")
        } catch {
            #expect(error.segment == 1)
            #expect(error.message.contains("Zed"))
        }
    }
}
