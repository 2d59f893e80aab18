import FlowKit
import FlowKitTesting
import Testing

enum ListScreen: ScreenModule {
    static let kind = "list"
    struct State: Codable, Equatable { var title: String; var items: [String] }
    enum Output: Codable, Equatable { case select(String) }
}

enum DetailScreen: ScreenModule {
    static let kind = "detail"
    struct State: Codable, Equatable { var title: String; var links: [String] }
    enum Output: Codable, Equatable { case open(String) }
}

/// One tab: a list; selecting pushes a detail; a detail's link is an output for the parent.
final class DirectoryFlow: Flow {
    typealias RequiredContext = NavigationStack
    enum Output: Equatable { case openLinked(String) }
    let title: String
    let items: [String: [String]]
    private var flow: FlowContext<DirectoryFlow>?

    init(_ title: String, _ items: [String: [String]]) {
        self.title = title
        self.items = items
    }

    func start(_ flow: FlowContext<DirectoryFlow>) {
        self.flow = flow
        flow.show(ListScreen.self, .init(title: title, items: items.keys.sorted())).onOutput { [weak self] output in
            guard case .select(let name) = output else { return }
            self?.showDetail(name)
        }
    }

    /// Pushes the detail of `name` on this tab's stack (called by the parent for cross-tab links).
    func showDetail(_ name: String) {
        guard let flow, flow.isRunning else { return }
        flow.show(DetailScreen.self, .init(title: name, links: items[name] ?? []), .pushed(in: flow.context)).onOutput { output in
            guard case .open(let linked) = output else { return }
            flow.emit(.openLinked(linked))
        }
    }
}

/// A tab bar with contacts and events; a contact's detail opens an event's detail in the other tab and
/// vice versa.
final class ContactsAndEventsFlow: Flow {
    typealias RequiredContext = Presenter
    private(set) var bar: TabBar?

    func start(_ flow: FlowContext<ContactsAndEventsFlow>) {
        let tabs = flow.placer.withTabBarEmbedding(count: 2).map { tab in tab.map { [weak self] bar in self?.bar = bar; return bar } }
        let contacts = DirectoryFlow("contacts", ["ann": ["party"], "bob": ["meeting"]])
        let events = DirectoryFlow("events", ["party": ["ann", "bob"], "meeting": ["bob"]])
        flow.start(contacts, tabs[0].withNavigationEmbedding()) { [weak self] output in
            guard case .openLinked(let name) = output, let bar = self?.bar else { return }
            events.showDetail(name)
            flow.selectTab(1, of: bar)
        } onFinish: { _, _ in } onEnd: { _ in }
        flow.start(events, tabs[1].withNavigationEmbedding()) { [weak self] output in
            guard case .openLinked(let name) = output, let bar = self?.bar else { return }
            contacts.showDetail(name)
            flow.selectTab(0, of: bar)
        } onFinish: { _, _ in } onEnd: { _ in }
    }
}

struct Student: Codable, Equatable { var name: String; var age: Int }

enum StudentListScreen: ScreenModule {
    static let kind = "students"
    struct State: Codable, Equatable { var students: [Student] }
    enum Output: Codable, Equatable { case select(Int) }
}

enum NameEditorScreen: ScreenModule {
    static let kind = "nameEditor"
    struct State: Codable, Equatable { var student: Student }
    enum Output: Codable, Equatable { case rename(String), editAge, backToList }
}

enum AgeEditorScreen: ScreenModule {
    static let kind = "ageEditor"
    struct State: Codable, Equatable { var age: Int }
    enum Output: Codable, Equatable { case setAge(Int), done }
}

/// The list of students; editing one runs `EditStudentFlow` and applies its result.
final class StudentsFlow: Flow {
    typealias RequiredContext = NavigationStack
    private(set) var students = [Student(name: "Ann", age: 20), Student(name: "Bob", age: 21)]

    func start(_ flow: FlowContext<StudentsFlow>) {
        let list = flow.show(StudentListScreen.self, .init(students: students))
        list.onOutput { [unowned self] output in
            guard case .select(let index) = output else { return }
            flow.start(EditStudentFlow(students[index]), .pushed(in: flow.context)) { [unowned self] student, dismisser in
                students[index] = student
                list.update(.init(students: students))
                dismisser.dismiss(animated: true)
            } onEnd: { _ in }
        }
    }
}

/// Edits the name; from there the age (a sub-flow); "back to list" finishes with the edited student.
final class EditStudentFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Result = Student
    private var student: Student
    init(_ student: Student) { self.student = student }

    func start(_ flow: FlowContext<EditStudentFlow>) {
        let editor = flow.show(NameEditorScreen.self, .init(student: student))
        editor.onOutput { [unowned self] output in
            switch output {
            case .rename(let name):
                student.name = name
                editor.update(.init(student: student))
            case .editAge:
                flow.start(EditAgeFlow(student.age), .pushed(in: flow.context)) { [unowned self] age, dismisser in
                    student.age = age
                    editor.update(.init(student: student))
                    dismisser.dismiss(animated: true)
                } onEnd: { _ in }
            case .backToList:
                flow.finish(student)
            }
        }
    }
}

/// Edits the age; "done" finishes with it.
final class EditAgeFlow: Flow {
    typealias RequiredContext = NavigationStack
    typealias Result = Int
    private var age: Int
    init(_ age: Int) { self.age = age }

    func start(_ flow: FlowContext<EditAgeFlow>) {
        let editor = flow.show(AgeEditorScreen.self, .init(age: age))
        editor.onOutput { [unowned self] output in
            switch output {
            case .setAge(let age):
                self.age = age
                editor.update(.init(age: age))
            case .done:
                flow.finish(age)
            }
        }
    }
}

@Suite("Tab bar cross links and the student editor")
struct TabsAndStudentsTests {
    @Test func contactsAndEventsLinkAcrossTabs() throws {
        let tester = FlowTester()
        let app = ContactsAndEventsFlow()
        tester.start(app, windowRoot)
        #expect(tester.runtime.liveFlowCount == 3)
        let lists = tester.screens(ListScreen.self)
        #expect(lists.count == 2)
        let contactsList = try #require(tester.expectVisible(ListScreen.self))
        let contactsStack = try #require(tester.placement(of: contactsList)?.stack)
        let eventsStack = try #require(tester.placement(of: lists[1])?.stack)
        let bar = try #require(app.bar)

        let ann = try #require(tester.expectPush(when: contactsList, of: ListScreen.self, sends: .select("ann"), pushes: DetailScreen.self))
        let party = try #require(tester.expectPush(when: ann, of: DetailScreen.self, sends: .open("party"), pushes: DetailScreen.self, on: eventsStack))
        #expect(tester.visibleScreen == party)
        #expect(tester.runtime.debugTree().nodes.first { $0.id == bar.node }?.selectedTab == 1)
        #expect(tester.transport.events.contains(.placementChanged(ann, placement: tester.runtime.placement(of: ann)!, change: .tabDeselected)))

        let bob = try #require(tester.expectPush(when: party, of: DetailScreen.self, sends: .open("bob"), pushes: DetailScreen.self, on: contactsStack))
        #expect(tester.visibleScreen == bob)
        tester.expectStack(contactsStack, holds: ["list", "detail", "detail"])
        tester.expectStack(eventsStack, holds: ["list", "detail"])
        try tester.back()
        #expect(tester.visibleScreen == ann)
        try tester.selectTab(1)
        #expect(tester.visibleScreen == party)
        tester.expectSound()
    }

    @Test func studentEditor() throws {
        let tester = FlowTester()
        let students = StudentsFlow()
        tester.start(students, windowRoot.withNavigationEmbedding())
        let list = try #require(tester.expectVisible(StudentListScreen.self))
        let stack = try #require(tester.placement(of: list)?.stack)
        let nameEditor = try #require(tester.expectPush(when: list, of: StudentListScreen.self, sends: .select(1), pushes: NameEditorScreen.self))
        try tester.send(.rename("Robert"), from: nameEditor, as: NameEditorScreen.self)
        #expect(tester.state(NameEditorScreen.self)?.student == Student(name: "Robert", age: 21))
        let ageEditor = try #require(tester.expectPush(when: nameEditor, of: NameEditorScreen.self, sends: .editAge, pushes: AgeEditorScreen.self))
        try tester.send(.setAge(30), from: ageEditor, as: AgeEditorScreen.self)
        try tester.send(.done, from: ageEditor, as: AgeEditorScreen.self)
        #expect(tester.visibleScreen == nameEditor, "done returns to the name editor")
        #expect(tester.state(NameEditorScreen.self)?.student == Student(name: "Robert", age: 30))
        try tester.send(.backToList, from: nameEditor, as: NameEditorScreen.self)
        #expect(tester.visibleScreen == list)
        tester.expectStack(stack, holds: ["students"])
        #expect(tester.state(StudentListScreen.self)?.students == [Student(name: "Ann", age: 20), Student(name: "Robert", age: 30)])
        #expect(tester.runtime.liveFlowCount == 1)
        tester.expectSound()
    }
}
