import Foundation

/// How a memento of an older layout becomes a flow's `Memento` of today (`LinkHandling.mementoMigrations`):
/// the old layout's own type, decoded from the JSON the older version wrote, and a function to today's.
/// A new version of the app hands the result to `restore(_:)`, as after a plain restart
/// (docs/restore.md, "A new version of the app").
///
/// ```swift
/// extension StudentsFlow: LinkHandling {
///     public static let mementoVersion = 2
///     public static var mementoMigrations: [MementoMigration<[Student]>] {
///         [.from(1, [StudentV1].self) { old in old.map { Student(name: $0.name, age: $0.age, email: nil) } }]
///     }
/// }
/// ```
public struct MementoMigration<Memento: Decodable> {
    /// The `mementoVersion` of the layout this migration reads.
    public let version: Int
    /// Decodes that layout's JSON and turns it into today's memento.
    let read: (Data) throws -> Memento

    /// A memento of `version`, decoded as `old` and turned into today's by `migrate`. `migrate` may
    /// throw (`MementoRefused`, or any error) to drop the memento: its flow then starts without it
    /// and the daemon says why.
    public static func from<Old: Decodable>(_ version: Int, _ old: Old.Type,
                                            _ migrate: @escaping (Old) throws -> Memento) -> MementoMigration {
        MementoMigration(version: version) { data in try migrate(JSONDecoder().decode(Old.self, from: data)) }
    }
}

/// A memento a migration declines, with the reason the daemon's warning gives.
public struct MementoRefused: Error, CustomStringConvertible {
    /// Why the memento cannot become today's.
    public var description: String

    /// A refusal saying `reason`.
    public init(_ reason: String) { description = reason }
}

/// A flow's memento left by a stop for the app's next version (docs/restore.md, "A new version of the
/// app"): named by the flow's place in the tree of flows (`key`, type names and link ids from the
/// root: `LauncherFlow/StudentsFlow`), with the layout's `mementoVersion` and its JSON.
package struct CarriedMemento: Equatable, Sendable {
    /// The flow's place among the flows: each flow from the root as its type name, with `[linkID]`
    /// when it has one and `#N` for the Nth sibling of the same name.
    package var key: String
    /// The `mementoVersion` of the flow that wrote it.
    package var version: Int
    /// The memento, as JSON.
    package var data: Data

    package init(key: String, version: Int, data: Data) {
        (self.key, self.version, self.data) = (key, version, data)
    }
}

/// What became of carried mementos as the flows started (`FlowRuntime.endCarrying()`).
package struct CarryReport: Equatable, Sendable {
    /// A memento dropped for its flow alone, and why.
    package struct Refusal: Equatable, Sendable {
        /// The flow's key (`CarriedMemento.key`).
        package var key: String
        /// Why it could not be given back: no migration, a decoding error, a migration that declined.
        package var reason: String
    }

    /// The keys whose flows took their memento back.
    package var carried: [String] = []
    /// The mementos that did not decode or migrate.
    package var refused: [Refusal] = []
    /// The keys no flow of this version started at (their place was not opened, or the flow is gone).
    package var unclaimed: [String] = []

    package init() {}
}

extension LinkHandling {
    /// The layout version of today's memento.
    public static var mementoVersion: Int { 1 }

    /// No migrations: a memento of another layout version is dropped.
    public static var mementoMigrations: [MementoMigration<Memento>] { [] }

    /// The memento and its layout version, as a stop leaves it for the next version (nil: none kept).
    func carriedMemento() throws -> (version: Int, data: Data)? {
        guard let data = try encodedMemento() else { return nil }
        return (Self.mementoVersion, data)
    }

    /// Takes back a memento an older (or the same) version of the app left: decoded as today's when its
    /// layout version is today's (Codable's own tolerance), through the migration from its version
    /// otherwise; throws why not.
    func restoreCarried(_ data: Data, version: Int) throws(MementoRefused) {
        let memento: Memento
        if version == Self.mementoVersion {
            do {
                memento = try JSONDecoder().decode(Memento.self, from: data)
            } catch {
                throw MementoRefused("it does not decode as \(Memento.self) (layout version \(version)): \(Self.describe(error))")
            }
        } else if let migration = Self.mementoMigrations.first(where: { $0.version == version }) {
            do {
                memento = try migration.read(data)
            } catch let error as MementoRefused {
                throw MementoRefused("its migration from layout version \(version) declined it: \(error)")
            } catch {
                throw MementoRefused("its migration from layout version \(version) failed: \(Self.describe(error))")
            }
        } else {
            let known = Self.mementoMigrations.map { "\($0.version)" }
            let from = known.isEmpty ? "none" : known.joined(separator: ", ")
            throw MementoRefused(version > Self.mementoVersion
                ? "it has layout version \(version), newer than this version's \(Self.mementoVersion)"
                : "it has layout version \(version); this version's is \(Self.mementoVersion) and its mementoMigrations read \(from)")
        }
        restore(memento)
    }

    /// A decoding error in a few words: what is missing or wrong, and where.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "key '\(key.stringValue)' is missing\(context.codingPath.isEmpty ? "" : " at \(path(context))")"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) has no \(type) value"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
