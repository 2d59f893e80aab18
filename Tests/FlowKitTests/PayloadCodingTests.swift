import FlowKit
import FlowKitTesting
import Foundation
import Testing

/// A counter whose wire form is its own: a big-endian 4-byte number (no protobuf in FlowKit's tests).
struct Tally: BinaryPayload, Equatable {
    var count: UInt32
    static let payloadContentType = "application/x-tally"
    struct NotFourBytes: Error {}

    init(count: UInt32) { self.count = count }
    init(binaryPayload: Data) throws {
        guard binaryPayload.count == 4 else { throw NotFourBytes() }
        count = binaryPayload.reduce(0) { $0 << 8 | UInt32($1) }
    }

    func binaryPayload() throws -> Data { Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) }) }
}

/// A press whose wire form is one byte.
enum Press: BinaryPayload, Equatable {
    case button(index: UInt8)
    static let payloadContentType = "application/x-press"
    struct Empty: Error {}

    init(binaryPayload: Data) throws {
        guard let first = binaryPayload.first else { throw Empty() }
        self = .button(index: first)
    }

    func binaryPayload() throws -> Data {
        guard case .button(let index) = self else { return Data() }
        return Data([index])
    }
}

/// A screen whose State and Output are binary payloads.
enum TallyScreen: ScreenModule {
    typealias State = Tally
    typealias Output = Press
    static let kind = "tally"
}

/// A screen whose State is JSON and whose Output is binary: each side picks its coder alone.
enum MixedScreen: ScreenModule {
    struct State: Codable, Equatable { var label: String }
    typealias Output = Press
    static let kind = "mixed"
}

/// Shows a tally; button 0 counts up, button 1 sends the same count again, button 2 sends it again forced.
final class TallyFlow: Flow {
    typealias RequiredContext = Presenter
    var count: UInt32 = 0

    func start(_ flow: FlowContext<TallyFlow>) {
        let screen = flow.show(TallyScreen.self, Tally(count: 0))
        screen.onOutput { [unowned self] press in
            guard case .button(let index) = press else { return }
            if index == 0 { count += 1 }
            screen.update(Tally(count: count), forced: index == 2)
        }
    }
}

/// Binary payloads (`BinaryPayload`, `PayloadCoder`) and the unchanged-update rule, in the runtime.
@Suite struct PayloadCodingTests {
    @Test func aModulePicksItsCodersFromItsTypes() {
        #expect(TallyScreen.stateCoder.contentType == "application/x-tally" && !TallyScreen.stateCoder.isJSON)
        #expect(TallyScreen.outputCoder.contentType == "application/x-press")
        #expect(MixedScreen.stateCoder.contentType == "application/json" && MixedScreen.stateCoder.isJSON)
        #expect(MixedScreen.outputCoder.contentType == "application/x-press")
        let contract = ScreenContract(TallyScreen.self)
        #expect(contract.stateContentType == "application/x-tally" && contract.outputContentType == "application/x-press")
    }

    @Test func theRuntimesFastPathsAgreeWithTheCoders() throws {
        let codec = JSONPayloadCodec()
        let tally = Tally(count: 70_000)
        #expect(try TallyScreen.encodeState(tally, with: codec) == TallyScreen.stateCoder.encode(tally, with: codec))
        #expect(try TallyScreen.decodeOutput(Data([9]), with: codec) == TallyScreen.outputCoder.decode(Data([9]), with: codec))
        let mixed = MixedScreen.State(label: "a")
        #expect(try MixedScreen.encodeState(mixed, with: codec) == Data(#"{"label":"a"}"#.utf8))
        #expect(try MixedScreen.decodeOutput(Data([4]), with: codec) == .button(index: 4))
    }

    @Test func idsHashByTheirNumber() {
        // NodeID and FlowID give Set and Dictionary a mix of their number instead of SipHash.
        var seen = Set<NodeID>()
        for raw in 0..<10_000 as Range<UInt64> { seen.insert(NodeID(rawValue: raw)) }
        #expect(seen.count == 10_000 && seen.contains(NodeID(rawValue: 9_999)) && !seen.contains(NodeID(rawValue: 10_000)))
        let flows = Dictionary(uniqueKeysWithValues: (1...500 as ClosedRange<UInt64>).map { (FlowID(rawValue: $0 << 40), $0) })
        #expect(flows[FlowID(rawValue: 7 << 40)] == 7 && flows[FlowID(rawValue: 7)] == nil)
        #expect(NodeID(rawValue: 3).hashValue == NodeID(rawValue: 3).hashValue)
    }

    @Test func placesAndUpdatesCarryTheBinaryFormAndItsContentType() throws {
        let tester = FlowTester()
        tester.start(TallyFlow(), windowRoot)
        let screen = try #require(tester.screen(TallyScreen.self))
        guard case .placed(_, _, let state, _)? = tester.transport.events.first else {
            Issue.record("expected a place, got \(tester.transport.events)")
            return
        }
        #expect(state == Data([0, 0, 0, 0]))
        #expect(tester.runtime.contentTypes(of: screen)?.state == "application/x-tally")
        #expect(tester.runtime.contentTypes(of: screen)?.output == "application/x-press")

        try tester.send(.button(index: 0), from: screen, as: TallyScreen.self)
        #expect(tester.state(of: screen, as: TallyScreen.self) == Tally(count: 1))
        #expect(tester.transport.screens[screen]?.state == Data([0, 0, 0, 1]))
        // The payload decoded by the runtime itself: a raw byte from a host.
        #expect(try tester.runtime.receiveOutput(screen: screen, payload: Data([0])))
        #expect(tester.state(of: screen, as: TallyScreen.self) == Tally(count: 2))
    }

    @Test func peopleReadAndWriteJSONForBinaryPayloads() throws {
        let tester = FlowTester()
        tester.start(TallyFlow(), windowRoot)
        let screen = try #require(tester.screen(TallyScreen.self))
        // JSON in: the Codable JSON of the Swift type, turned into the module's bytes.
        let payload = try tester.runtime.outputPayload(screen: screen, fromJSON: Data(#"{"button":{"index":0}}"#.utf8))
        #expect(payload == Data([0]))
        // JSON out, for events and recordings.
        #expect(tester.runtime.stateJSON(screen: screen, payload: Data([0, 0, 1, 0])).map { String(decoding: $0, as: UTF8.self) } == #"{"count":256}"#)
        #expect(tester.runtime.outputJSON(screen: screen, payload: Data([3])).map { String(decoding: $0, as: UTF8.self) } == #"{"button":{"index":3}}"#)
        // Bytes that are not a value read as nothing; JSON that is not an Output is refused with why.
        #expect(tester.runtime.stateJSON(screen: screen, payload: Data([1])) == nil)
        #expect(throws: FlowKitError.self) { try tester.runtime.outputPayload(screen: screen, fromJSON: Data(#"{"nope":{}}"#.utf8)) }
        #expect(throws: FlowKitError.self) { try tester.runtime.outputPayload(screen: ScreenID(rawValue: 999), fromJSON: Data("{}".utf8)) }
    }

    @Test func anOutputThatIsNotTheModulesBytesIsRefusedNamingItsContentType() throws {
        let tester = FlowTester()
        tester.start(TallyFlow(), windowRoot)
        let screen = try #require(tester.screen(TallyScreen.self))
        do {
            try tester.runtime.receiveOutput(screen: screen, payload: Data())
            Issue.record("an empty payload decoded")
        } catch {
            #expect(error.code == .outputDecodingFailed)
            #expect(error.message.contains("application/x-press"), "\(error.message)")
        }
    }

    @Test func anUpdateThatChangesNothingSendsNothingUnlessForced() throws {
        let tester = FlowTester()
        tester.start(TallyFlow(), windowRoot)
        let screen = try #require(tester.screen(TallyScreen.self))
        tester.transport.clearEvents()

        try tester.send(.button(index: 0), from: screen, as: TallyScreen.self)  // 0 -> 1: sent
        try tester.send(.button(index: 1), from: screen, as: TallyScreen.self)  // 1 again: nothing
        try tester.send(.button(index: 1), from: screen, as: TallyScreen.self)  // nothing
        #expect(tester.transport.events.count == 1, "\(tester.transport.events)")
        #expect(tester.runtime.unchangedUpdates == 2)

        try tester.send(.button(index: 2), from: screen, as: TallyScreen.self)  // 1 again, forced: sent
        #expect(tester.transport.events.count == 2)
        try tester.send(.button(index: 0), from: screen, as: TallyScreen.self)  // 1 -> 2: sent
        #expect(tester.transport.events.count == 3)
        #expect(tester.runtime.unchangedUpdates == 2)
        #expect(tester.transport.events.allSatisfy { if case .updated = $0 { true } else { false } })
        #expect(tester.state(of: screen, as: TallyScreen.self) == Tally(count: 2))
    }

    @Test func theFirstUpdateIsComparedWithThePlacedState() throws {
        let tester = FlowTester()
        tester.start(TallyFlow(), windowRoot)
        let screen = try #require(tester.screen(TallyScreen.self))
        tester.transport.clearEvents()
        try tester.send(.button(index: 1), from: screen, as: TallyScreen.self)  // 0, as placed: nothing
        #expect(tester.transport.events.isEmpty)
        #expect(tester.runtime.unchangedUpdates == 1)
    }
}
