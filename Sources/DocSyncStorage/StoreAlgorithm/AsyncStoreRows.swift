import DocSyncCore
import Foundation

/// `StoreRows` for a layer that answers over a network (the scale-out store's PostgreSQL):
/// the same reads and the same one write, each a round trip. `AnsweredRows` runs the store
/// algorithm over it. Calls happen one at a time, in one transaction of the layer's.
public protocol AsyncStoreRows {
    var tokenAccount: Int64? { get }
    func allZones() async throws -> [(name: String, movedTo: String?)]
    func zoneState(of zone: String) async throws -> ZoneState?
    func liveVersions(_ names: [String], in zone: String) async throws -> [String: StoredVersion]
    func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) async throws -> [StoredDeletion]
    func keptBodies(in zone: String) async throws -> [Data]
    func storedChunks(among digests: [SHA256Digest]) async throws -> Set<SHA256Digest>
    func changes(in zone: String, after: Int64, limit: Int) async throws -> [ChangeRow]
    func reserveSequence(_ count: Int) async throws -> Int64
    func newIncarnation() -> String
    func apply(_ writes: StoreWrites) async throws
}

/// Runs an operation of `StoreAlgorithm` over an `AsyncStoreRows` layer: the operation runs
/// over what the layer has answered so far; when it asks for rows not answered yet, it stops,
/// the layer is asked (one round trip), and it runs again from the start with the answer.
/// The algorithm writes only at its end, so a run that stopped wrote nothing: the last run
/// writes, once, through the layer.
///
/// Each round trip asks what the algorithm asked, no more; asking the same again is answered
/// from what was kept, so a run that reads a zone twice costs one round trip.
public struct AnsweredRows: StoreRows {
    /// The rows the algorithm asked for and the layer has not answered yet.
    enum Question: Hashable {
        case allZones
        case zoneState(String)
        case live(zone: String, names: [String])
        case deleted(zone: String, names: [String]?, since: Timestamp?)
        case keptBodies(zone: String)
        case chunks([SHA256Digest])
        case changes(zone: String, after: Int64, limit: Int)
        case sequence(Int)
    }

    struct Unanswered: Error {
        let question: Question
    }

    public let tokenAccount: Int64?
    private var zonesAnswer: [(name: String, movedTo: String?)]?
    private var zoneStates: [String: ZoneState?] = [:]
    /// Live versions by zone and name (`nil`: asked, none stored).
    private var live: [String: [String: StoredVersion?]] = [:]
    private var deleted: [String: [StoredDeletion]] = [:]
    private var kept: [String: [Data]] = [:]
    private var chunksAsked = Set<SHA256Digest>()
    private var chunksStored = Set<SHA256Digest>()
    private var changeAnswers: [Question: [ChangeRow]] = [:]
    /// The sequence values reserved, in the order the operation reserves them: each run
    /// takes them again from the first.
    private var reservations: [(count: Int, first: Int64)] = []
    private var reservationsTaken = 0
    private let incarnation: String
    /// What the run wants written (kept, not written: the layer writes after the last run).
    private(set) var writes: [StoreWrites] = []

    init(tokenAccount: Int64?, incarnation: String) {
        self.tokenAccount = tokenAccount
        self.incarnation = incarnation
    }

    /// Runs `operation` over `layer` until it has every answer it asks for, then writes
    /// what it wrote. At most 16 round trips; an operation asking for more is a fault of
    /// the algorithm (`internalError`).
    public static func run<Layer: AsyncStoreRows, Value>(
        _ operation: (inout AnsweredRows) throws -> Value, over layer: Layer
    ) async throws -> Value {
        var answered = AnsweredRows(tokenAccount: layer.tokenAccount, incarnation: layer.newIncarnation())
        for _ in 0 ..< 16 {
            var attempt = answered
            do {
                let value = try operation(&attempt)
                for writes in attempt.writes { try await layer.apply(writes) }
                return value
            } catch let unanswered as Unanswered {
                try await answered.answer(unanswered.question, from: layer)
            }
        }
        throw SyncError(.internalError, "the store algorithm kept asking for rows after 16 round trips")
    }

    private mutating func answer(_ question: Question, from layer: some AsyncStoreRows) async throws {
        switch question {
        case .allZones:
            zonesAnswer = try await layer.allZones()
        case .zoneState(let zone):
            zoneStates[zone] = .some(try await layer.zoneState(of: zone))
        case .live(let zone, let names):
            let found = try await layer.liveVersions(names, in: zone)
            for name in names { live[zone, default: [:]][name] = .some(found[name]) }
        case .deleted(let zone, let names, let since):
            let found = try await layer.deletedEntries(names, in: zone, since: since)
            deleted[Self.key(zone, names, since)] = found
        case .keptBodies(let zone):
            kept[zone] = try await layer.keptBodies(in: zone)
        case .chunks(let digests):
            chunksStored.formUnion(try await layer.storedChunks(among: digests))
            chunksAsked.formUnion(digests)
        case .changes(let zone, let after, let limit):
            changeAnswers[question] = try await layer.changes(in: zone, after: after, limit: limit)
        case .sequence(let count):
            reservations.append((count, try await layer.reserveSequence(count)))
        }
    }

    private static func key(_ zone: String, _ names: [String]?, _ since: Timestamp?) -> String {
        "\(zone)\u{0}\(names.map { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "\u{0}") } ?? "*")\u{0}\(since?.nanosecondsSince1970 ?? .min)"
    }

    // MARK: StoreRows

    public func allZones() throws -> [(name: String, movedTo: String?)] {
        guard let zonesAnswer else { throw Unanswered(question: .allZones) }
        return zonesAnswer
    }

    public func zoneState(of zone: String) throws -> ZoneState? {
        guard let state = zoneStates[zone] else { throw Unanswered(question: .zoneState(zone)) }
        return state
    }

    public func liveVersions(_ names: [String], in zone: String) throws -> [String: StoredVersion] {
        let known = live[zone] ?? [:]
        let missing = names.filter { known[$0] == nil }
        guard missing.isEmpty else { throw Unanswered(question: .live(zone: zone, names: missing)) }
        var found: [String: StoredVersion] = [:]
        for name in names { if let version = known[name] ?? nil { found[name] = version } }
        return found
    }

    public func deletedEntries(_ names: [String]?, in zone: String, since: Timestamp?) throws -> [StoredDeletion] {
        guard let found = deleted[Self.key(zone, names, since)] else {
            throw Unanswered(question: .deleted(zone: zone, names: names, since: since))
        }
        return found
    }

    public func keptBodies(in zone: String) throws -> [Data] {
        guard let found = kept[zone] else { throw Unanswered(question: .keptBodies(zone: zone)) }
        return found
    }

    public func storedChunks(among digests: [SHA256Digest]) throws -> Set<SHA256Digest> {
        let missing = digests.filter { !chunksAsked.contains($0) }
        guard missing.isEmpty else { throw Unanswered(question: .chunks(missing)) }
        return chunksStored.intersection(digests)
    }

    public func changes(in zone: String, after: Int64, limit: Int) throws -> [ChangeRow] {
        let question = Question.changes(zone: zone, after: after, limit: limit)
        guard let found = changeAnswers[question] else { throw Unanswered(question: question) }
        return found
    }

    public mutating func reserveSequence(_ count: Int) throws -> Int64 {
        guard reservationsTaken < reservations.count else { throw Unanswered(question: .sequence(count)) }
        let reservation = reservations[reservationsTaken]
        guard reservation.count == count else {
            throw SyncError(.internalError, "the store algorithm reserved \(count) sequence values where it reserved \(reservation.count) before")
        }
        reservationsTaken += 1
        return reservation.first
    }

    public func newIncarnation() -> String { incarnation }

    public mutating func apply(_ writes: StoreWrites) throws {
        self.writes.append(writes)
    }
}
