import FlowApp
import FlowJournal
import FlowKit
import Foundation

/// What a new version of the app takes from the old one's journal besides the place
/// (docs/restore.md, "A new version of the app"): the flows' mementos, each named by the flow's place
/// among the flows with its layout version, and what hosts saved for screens (`SaveState`), each
/// named by its screen's place with the kind and a fingerprint of the kind's contract. Nothing in it
/// names an id: ids are the old version's.
///
/// The journal's record kind 68, in two roles (docs/journal.md): the last record a stop writes
/// (what it leaves for a next version; a restore of the same version skips it), and the first record
/// of the journal an upgrade starts (the mementos it carried and the place it opened: a restore
/// starts the app from it as the upgrade did, the saved states following as kind 66 records).
struct CarriedState: Equatable {
    /// The record kind.
    static let kind: Int64 = 68
    /// The layout of the body; a body of another layout carries nothing.
    static let layout: UInt64 = 1

    /// What a host saved for a screen, named by the screen's place (`FlowRuntime.carryKey(ofScreen:)`).
    struct SavedState: Equatable {
        var key: String
        var kind: String
        /// A fingerprint of the kind's contract (`ScreenContract`), "" for a kind without a module.
        var contract: String
        var data: Data
    }

    /// The place's link text ("": the app's start).
    var place: String
    var mementos: [CarriedMemento]
    var savedStates: [SavedState]

    /// What `runtime`, running `app`, leaves for a next version: its mementos and the saved states of
    /// its live screens (`savedStates`, by screen). A memento that does not encode is left out.
    static func take(of runtime: FlowRuntime, app: FlowApp.App, place: String, savedStates: [ScreenID: Data]) -> CarriedState {
        let mementos = (try? runtime.carriedMementos()) ?? []
        let contracts = savedStates.isEmpty ? [:] : fingerprints(of: app)
        var saved: [SavedState] = []
        for (screen, data) in savedStates.sorted(by: { $0.key < $1.key }) {
            guard let key = runtime.carryKey(ofScreen: screen), let kind = key.split(separator: ":").last?.split(separator: "#").first else { continue }
            saved.append(SavedState(key: key, kind: String(kind), contract: contracts[String(kind)] ?? "", data: data))
        }
        return CarriedState(place: place, mementos: mementos, savedStates: saved)
    }

    /// The fingerprint of each kind's contract in `app` (FNV-1a 64 of its JSON, keys sorted).
    static func fingerprints(of app: FlowApp.App) -> [String: String] {
        var found: [String: String] = [:]
        for screen in AppContract(app).screens {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in screen.json.text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            found[screen.kind] = String(hash, radix: 16)
        }
        return found
    }

    /// What opening a carried state did (`open`).
    struct Opened {
        /// The longest part of the place that opened, each window's on its line (`PlaceText`; "":
        /// none, the app's start).
        var place: String
        /// The links refused on the way, each with why.
        var refused: [String]
        /// What became of the mementos.
        var report: CarryReport
    }

    /// Starts `app` on `runtime`, a fresh one, with the mementos given back as their flows start, and
    /// opens the place one segment more at a time — each flow on the way has its memento before it
    /// plans its part — to the longest part this version opens. `settle` takes the effects.
    func open(_ app: FlowApp.App, on runtime: FlowRuntime, settle: (FlowRuntime) -> Void) -> Opened {
        runtime.beginCarrying(mementos)
        app.start(runtime)
        settle(runtime)
        var opened = Opened(place: "", refused: [], report: CarryReport())
        // The main window's place, then each other window's (`PlaceText`).
        var openedLines: [String] = []
        for line in PlaceText.lines(place) {
            guard !line.isEmpty else {
                openedLines.append("")
                continue
            }
            do throws(LinkError) {
                let link = try Link(parsing: line)
                // A part may be refused where a longer one opens (a link that needs its next segment):
                // every part is tried, and the place is the longest that opened.
                var refusals: [String] = []
                var longest = ""
                for count in 1...link.segments.count {
                    let whole = count == link.segments.count
                    let part = try Link(Array(link.segments.prefix(count)), query: whole ? link.query : [])
                    do throws(LinkError) {
                        _ = try runtime.open(part)
                    } catch {
                        refusals.append("\(part): \(error.message)")
                        continue
                    }
                    settle(runtime)
                    longest = "\(part)"
                    refusals = []
                }
                opened.refused += refusals
                openedLines.append(longest)
            } catch {
                opened.refused.append("\(line) is not a link: \(error.message)")
                openedLines.append("")
            }
        }
        opened.place = PlaceText.joined(openedLines)
        opened.report = runtime.endCarrying()
        return opened
    }

    // MARK: The record

    /// The body: the layout, the place, the mementos (key, version, JSON), the saved states (key,
    /// kind, contract, bytes), as unsigned LEB128 varints, strings and bytes with their length first.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64) { JournalBatch.appendVarint(value, to: &bytes) }
        func put(_ data: some Collection<UInt8>) {
            put(UInt64(data.count))
            bytes += data
        }
        put(Self.layout)
        put(Array(place.utf8))
        put(UInt64(mementos.count))
        for memento in mementos {
            put(Array(memento.key.utf8))
            put(UInt64(bitPattern: Int64(memento.version)))
            put(memento.data)
        }
        put(UInt64(savedStates.count))
        for saved in savedStates {
            put(Array(saved.key.utf8))
            put(Array(saved.kind.utf8))
            put(Array(saved.contract.utf8))
            put(saved.data)
        }
        return bytes
    }

    /// Why a record's body does not read.
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a record's body; throws what is wrong with it.
    init(decoding body: [UInt8]) throws(Unreadable) {
        var reader = JournalBatch.Reader(bytes: body)
        let short = Unreadable(description: "the carried-state record is cut short")
        func next() throws(Unreadable) -> UInt64 {
            guard let value = reader.varint() else { throw short }
            return value
        }
        func bytes() throws(Unreadable) -> [UInt8] {
            guard let data = reader.bytes(try next()) else { throw short }
            return Array(data)
        }
        func text() throws(Unreadable) -> String { String(decoding: try bytes(), as: UTF8.self) }
        let layout = try next()
        guard layout == Self.layout else {
            throw Unreadable(description: "the carried-state record has layout \(layout); this flowd reads layout \(Self.layout)")
        }
        place = try text()
        let count = try next()
        guard count <= UInt64(body.count) else { throw short }
        mementos = []
        for _ in 0..<count {
            let key = try text()
            let version = Int(truncatingIfNeeded: Int64(bitPattern: try next()))
            mementos.append(CarriedMemento(key: key, version: version, data: Data(try bytes())))
        }
        let saves = try next()
        guard saves <= UInt64(body.count) else { throw short }
        savedStates = []
        for _ in 0..<saves {
            savedStates.append(SavedState(key: try text(), kind: try text(), contract: try text(), data: Data(try bytes())))
        }
        guard reader.atEnd else { throw Unreadable(description: "the carried-state record has bytes after its end") }
    }

    init(place: String, mementos: [CarriedMemento], savedStates: [SavedState]) {
        (self.place, self.mementos, self.savedStates) = (place, mementos, savedStates)
    }
}
