import FlowKit

/// A student in the editor.
public struct Student: Sendable, Equatable, Codable {
    public var name: String
    public var age: Int
}

/// The list of students; choosing one runs `EditStudentFlow` pushed on the
/// same stack. Its edits apply as they are made (its outputs), so leaving
/// the editor by back keeps them, as "Back to list" does. The last button
/// finishes.
public final class StudentsFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = [Student]

    private var students = [Student(name: "Ann", age: 20), Student(name: "Bob", age: 21)]
    private var list: Screen<StudentListScreen>?

    public init() {}

    public func start(_ flow: FlowContext<StudentsFlow>) {
        let list = flow.show(StudentListScreen.self, state())
        self.list = list
        list.onOutput { [unowned self] output in
            guard case .didPressButton(let index) = output else { return }
            guard index < students.count else {
                flow.finish(students)
                return
            }
            edit(index, with: EditStudentFlow(students[index]), in: flow)
        }
    }

    private func edit(_ index: Int, with editor: EditStudentFlow, in flow: FlowContext<StudentsFlow>) {
        flow.start(editor, .pushed(in: flow.context)) { [unowned self] student in
            students[index] = student
            list?.update(state())
        } onFinish: { [unowned self] student, dismisser in
            students[index] = student
            list?.update(state())
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] ending in
            // Back from the editor keeps what was edited (the outputs applied it); anything else is shown.
            guard ending != .dismissedByUser else { return }
            list?.update(state(note: "Editing \(students[index].name) \(ending)."))
        }
    }

    private func state(note: String? = nil) -> CardState {
        CardState(title: "Students", body: note ?? "Choose a student to edit.",
                  buttons: students.map { "\($0.name) (\($0.age))" } + ["Back to menu"])
    }
}

/// Edits the name; from there the age (a sub-flow whose "Done" returns here
/// with the new age); "Back to list" finishes with the edited student. Every
/// edit is also an output, so that back (which ends the flow without a
/// result) loses nothing.
public final class EditStudentFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Student
    public typealias Output = Student

    private var student: Student
    private var editor: Screen<NameEditorScreen>?

    public init(_ student: Student) {
        self.student = student
    }

    public func start(_ flow: FlowContext<EditStudentFlow>) {
        let editor = flow.show(NameEditorScreen.self, state())
        self.editor = editor
        editor.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let name):
                student.name = name
                editor.update(state())
                flow.emit(student)
            case .didPressButton(index: 0):
                editAge(EditAgeFlow(student.age), in: flow)
            case .didPressButton:
                flow.finish(student)
            }
        }
    }

    private func editAge(_ ageEditor: EditAgeFlow, in flow: FlowContext<EditStudentFlow>) {
        flow.start(ageEditor, .pushed(in: flow.context)) { [unowned self] age in
            student.age = age
            editor?.update(state())
            flow.emit(student)
        } onFinish: { [unowned self] age, dismisser in
            student.age = age
            editor?.update(state())
            flow.emit(student)
            dismisser.dismiss(animated: true)
        } onEnd: { [unowned self] ending in
            guard ending != .dismissedByUser else { return }
            editor?.update(state(note: "Editing the age \(ending)."))
        }
    }

    private func state(note: String? = nil) -> CardState {
        CardState(title: "Edit \(student.name)", body: "Age: \(student.age)" + (note.map { " \($0)" } ?? ""), buttons: ["Edit age", "Back to list"],
                  field: "Name", text: student.name)
    }
}

/// Edits the age; "Done" finishes with it. A valid age entered is also an
/// output, so that back keeps it.
public final class EditAgeFlow: Flow {
    public typealias RequiredContext = NavigationStack
    public typealias Result = Int
    public typealias Output = Int

    private var age: Int

    public init(_ age: Int) {
        self.age = age
    }

    private var editor: Screen<AgeEditorScreen>?

    public func start(_ flow: FlowContext<EditAgeFlow>) {
        let editor = flow.show(AgeEditorScreen.self, state())
        self.editor = editor
        editor.onOutput { [unowned self] output in
            switch output {
            case .didEnterText(let text):
                guard let value = Int(text.trimmingSpaces), (0...150).contains(value) else {
                    editor.update(state(error: "'\(text)' is not an age"))
                    return
                }
                age = value
                editor.update(state())
                flow.emit(value)
            case .didPressButton:
                flow.finish(age)
            }
        }
    }

    private func state(error: String? = nil) -> CardState {
        CardState(title: "Age", body: error ?? "Enter the age.", buttons: ["Done"], field: "Age", text: String(age))
    }
}

/// `students` shows the list; `students/NAME` that student's editor, as choosing them does.
extension StudentsFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<StudentsFlow> {
        guard let name = link.first else { return .here() }
        let named = students.indices.filter { students[$0].name == name }
        guard let index = named.first else {
            throw link.unknown(at: 0, "no student is named \(name)")
        }
        // A link names one place: the editor's handlers keep the index it opened (a checkpoint of
        // the place must rebuild the same ones, docs/restore.md).
        guard named.count == 1 else { throw link.refused("\(named.count) students are named \(name); a link names one of them") }
        return .start(EditStudentFlow(students[index]), consuming: 1) { [unowned self] flow, editor in edit(index, with: editor, in: flow) }
    }

    /// The student being edited, by name.
    public func place(toward child: (any Flow)?) -> [String]? {
        (child as? EditStudentFlow).map { [$0.linkID] } ?? []
    }

    /// The students as edited: a checkpoint of a long session keeps them (docs/restore.md).
    public var memento: [Student] { students }

    public func restore(_ memento: [Student]) {
        students = memento
        list?.update(state())
    }
}

/// `age` opens the age editor, as "Edit age" does; one editor per student (`linkID`, the name as
/// it is now: an edit applies to the list at once, so `students/NEW-NAME` names this editor).
extension EditStudentFlow: LinkHandling {
    public var linkID: String { student.name }

    /// The age editor, when it runs.
    public func place(toward child: (any Flow)?) -> [String]? { child is EditAgeFlow ? ["age"] : [] }

    /// The student as edited so far.
    public var memento: Student { student }

    public func restore(_ memento: Student) {
        student = memento
        editor?.update(state())
    }

    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<EditStudentFlow> {
        switch link.first {
        case nil: return .here()
        case "age": return .start(EditAgeFlow(student.age), consuming: 1) { [unowned self] flow, ageEditor in editAge(ageEditor, in: flow) }
        default: throw link.unknown(at: 0, "a student's editor has only age")
        }
    }
}

/// The age editor is a leaf: the link ends there.
extension EditAgeFlow: LinkHandling {
    public func route(_ link: LinkRoute) throws(LinkError) -> LinkPlan<EditAgeFlow> { .here() }

    /// The age entered so far.
    public var memento: Int { age }

    public func restore(_ memento: Int) {
        age = memento
        editor?.update(state())
    }
}
