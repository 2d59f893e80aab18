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
        tester.send(.didEnterText(text: "30"), from: AgeEditorScreen.self)
        press(0, on: AgeEditorScreen.self, in: tester)
        #expect(tester.expectVisible(NameEditorScreen.self) != nil)
        #expect(tester.state(NameEditorScreen.self)?.body == "Age: 30")
        try tester.back()
        #expect(tester.expectVisible(StudentListScreen.self) != nil)
        #expect(tester.state(StudentListScreen.self)?.buttons == ["Ann (20)", "Bob (30)", "Back to menu"], "back kept the edit")
        press(2, on: StudentListScreen.self, in: tester)
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Student editor: Ann 20, Bob 30 (dismiss animated)", "back from Bob's editor kept the edit")
        tester.expectSound()
    }

    /// A rename is kept when the person leaves the editor with back, as with "Back to list".
    @Test func backFromTheStudentEditorKeepsTheRename() throws {
        let (tester, _) = launch()
        press(4, on: MenuScreen.self, in: tester)
        press(0, on: StudentListScreen.self, in: tester)
        tester.send(.didEnterText(text: "Anna"), from: NameEditorScreen.self)
        try tester.back()
        #expect(tester.state(StudentListScreen.self)?.buttons == ["Anna (20)", "Bob (21)", "Back to menu"])
        press(1, on: StudentListScreen.self, in: tester)
        press(0, on: NameEditorScreen.self, in: tester)
        tester.send(.didEnterText(text: "22"), from: AgeEditorScreen.self)
        try tester.back()
        #expect(tester.state(NameEditorScreen.self)?.body == "Age: 22", "back from the age editor kept the age")
        try tester.back()
        #expect(tester.state(StudentListScreen.self)?.buttons == ["Anna (20)", "Bob (22)", "Back to menu"])
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

    @Test func profileIsTheWalkAndItsResultIsReported() throws {
        let (walked, _) = launch()
        press(1, on: MenuScreen.self, in: walked)

        let (tester, _) = launch()
        tester.expectOpen("profile", starts: ["PersonalProfileFlow"], visible: ProfileScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())

        // Back walks to the menu as after the walk; opened again, Save and Done report the result.
        try tester.back()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Personal profile: dismissed by user")
        try tester.open("profile")
        tester.send(.didEnterText(text: "Grace"), from: ProfileScreen.self)
        press(0, on: ProfileScreen.self, in: tester)
        press(0, on: SummaryScreen.self, in: tester)
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Personal profile: saved Grace (dismiss animated)")
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
    }

    @Test func profileKeptIsTheEntryThatLeavesItOnTheStack() throws {
        let (walked, _) = launch()
        press(3, on: MenuScreen.self, in: walked)

        let (tester, _) = launch()
        tester.expectOpen("profile/kept", starts: ["PersonalProfileFlow"], visible: ProfileScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())
        try tester.back()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Personal profile: dismissed by user")
        try tester.open("profile")                                   // the other personal-profile entry
        let kept = try tester.open("profile/kept")
        #expect(kept.unwound.count == 1 && kept.started.count == 1, "profile/kept is not the same place as profile")
        press(0, on: ProfileScreen.self, in: tester)
        press(0, on: SummaryScreen.self, in: tester)
        #expect(menuStatus(tester) == "Personal profile: saved Ada (leave on the stack)")
        #expect(tester.expectVisible(SummaryScreen.self) != nil, "the screens stay on the stack")
        let finished = tester.state(SummaryScreen.self)
        #expect(finished?.body == LauncherFlow.keptNote && finished?.buttons == [], "the summary says the flow finished: \(String(describing: finished))")

        // `menu` takes away what the entry left, and the menu is visible.
        let menu = try tester.open("menu")
        #expect(menu.started.isEmpty && menu.unwound.isEmpty)
        #expect(menu.visibleScreen == tester.screen(MenuScreen.self))
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(tester.screens(ProfileScreen.self).isEmpty && tester.screens(SummaryScreen.self).isEmpty)
        #expect(menuStatus(tester) == "Personal profile: saved Ada (leave on the stack)", "menu keeps the last report")
        tester.expectSound()
    }

    @Test func profileBusinessOwnerIsTheWalkAndResultsTravelUp() throws {
        let (walked, _) = launch()
        press(2, on: MenuScreen.self, in: walked)
        press(0, on: BusinessScreen.self, in: walked)

        let (tester, _) = launch()
        tester.expectOpen("profile/business", starts: ["BusinessProfileFlow"], visible: BusinessScreen.self)
        tester.expectOpen("profile/business/owner", starts: ["PersonalProfileFlow"], visible: ProfileScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())
        let (direct, _) = launch()
        direct.expectOpen("profile/business/owner", starts: ["BusinessProfileFlow", "PersonalProfileFlow"], visible: ProfileScreen.self)
        #expect(direct.runtime.debugTree() == walked.runtime.debugTree())

        try tester.back()
        try tester.back()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Business profile: dismissed by user")
        #expect(tester.runtime.liveFlowCount == 1)

        // Back from the owner's form returns to the business form, unchanged; the owner's result
        // reaches the business profile, whose result reaches the launcher.
        try direct.back()
        #expect(direct.state(BusinessScreen.self)?.body == "Owner: not set")
        try direct.open("profile/business/owner")
        direct.send(.didEnterText(text: "Grace"), from: ProfileScreen.self)
        press(0, on: ProfileScreen.self, in: direct)
        press(0, on: SummaryScreen.self, in: direct)
        #expect(direct.expectVisible(BusinessScreen.self) != nil)
        #expect(direct.state(BusinessScreen.self)?.body == "Owner: Grace")
        press(1, on: BusinessScreen.self, in: direct)
        #expect(direct.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(direct) == "Business profile: Acme owned by Grace (dismiss without animation)")
        #expect(direct.runtime.liveFlowCount == 1)
        direct.expectSound()
    }

    @Test func loginIsTheWalkInItsModal() async throws {
        let (walked, _) = launch()
        press(6, on: MenuScreen.self, in: walked)

        let (tester, _) = launch()
        tester.expectOpen("login", starts: ["LoginFlow"], visible: LoginScreen.self)
        #expect(tester.runtime.debugTree() == walked.runtime.debugTree())

        // Closing the modal returns to the menu; opened again, a login reports its result.
        try tester.closeModal()
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        let closed = menuStatus(tester)
        try walked.closeModal()
        #expect(closed == menuStatus(walked))
        try tester.open("login")
        tester.send(.didEnterText(text: "ann"), from: LoginScreen.self)
        press(0, on: LoginScreen.self, in: tester)
        try tester.complete(tester.work[0], with: LoginFlow.Verdict.accepted)
        press(0, on: LoginSuccessScreen.self, in: tester)
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(menuStatus(tester) == "Login: logged in as ann (dismiss animated)")
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
    }

    @Test func menuUnwindsEveryAppToTheMenu() throws {
        let (fresh, _) = launch()
        let (tester, _) = launch()
        let nothing = try tester.open("menu")
        #expect(nothing.started.isEmpty && nothing.unwound.isEmpty && nothing.reused.count == 1)
        #expect(tester.runtime.debugTree() == fresh.runtime.debugTree())

        try tester.open("students/Bob/age")
        let fromStudents = try tester.open("menu")
        #expect(fromStudents.unwound.count == 3, "the students app and Bob's editors")
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(tester.runtime.liveFlowCount == 1)
        try tester.open("directory/events/Party")
        try tester.open("menu")
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        try tester.open("login")
        try tester.open("menu")
        #expect(tester.expectVisible(MenuScreen.self) != nil)
        #expect(tester.runtime.liveFlowCount == 1)
        #expect(menuStatus(tester) == "Choose a demo.", "unwound apps report nothing")
        // The menu works as before: an app opened from it by hand.
        press(4, on: MenuScreen.self, in: tester)
        #expect(tester.expectVisible(StudentListScreen.self) != nil)
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
        tester.expectLinkRefused("profile/Zed", .unknownLink)
        tester.expectLinkRefused("profile/business/partner", .unknownLink)
        tester.expectLinkRefused("profile/business/owner/more", .unknownLink)
        tester.expectLinkRefused("login/more", .unknownLink)
        tester.expectLinkRefused("menu/more", .unknownLink)
        do {
            try tester.open("students/Zed/age")
        } catch {
            #expect(error.segment == 1)
            #expect(error.message.contains("Zed"))
        }
    }
}
