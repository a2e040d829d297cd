import DocSyncCore
import Testing
import Foundation

/// Records, local items and scopes for the planner's decision tables, written short.
///
/// Every item is named by a letter (`"A"` … as record names `itemA0000…`); times are
/// seconds after a fixed epoch; `T` is the content text (its digest is the content).
enum Fixture {
    static let zone = ZoneID("Docs")
    static let here = "laptop"
    static let there = "desktop"
    static let fresh = "freshcopy00000000000001"

    static func name(_ letter: String) -> String { "item\(letter)0000000000000000001" }
    static func time(_ seconds: Int64) -> Timestamp { Timestamp(seconds: 1_700_000_000 + seconds, nanoseconds: 0) }

    static func doc(_ letter: String, _ path: String, _ text: String, at seconds: Int64 = 0, mode: UInt32 = 0o644,
                    tag: String? = "t1", by device: String = there) -> Record {
        let digest = SHA256Digest(hashing: Array(text.utf8))
        let size = Int64(text.utf8.count)
        let asset = AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: Int(size))], chunkCount: 1, size: size, contentDigest: digest)
        return Record(id: RecordID(zone: zone, recordName: name(letter)), type: .document, changeTag: tag.map(ChangeTag.init),
                      path: RelativePath(path), size: size, modified: time(seconds), mode: mode, contentDigest: digest, asset: asset,
                      lastModifiedBy: device)
    }

    static func folder(_ letter: String, _ path: String, at seconds: Int64 = 0, mode: UInt32 = 0o755, tag: String? = "t1",
                       by device: String = there) -> Record {
        Record(id: RecordID(zone: zone, recordName: name(letter)), type: .folder, changeTag: tag.map(ChangeTag.init),
               path: RelativePath(path), modified: time(seconds), mode: mode, lastModifiedBy: device)
    }

    static func link(_ letter: String, _ path: String, _ target: String, at seconds: Int64 = 0, tag: String? = "t1",
                     by device: String = there) -> Record {
        Record(id: RecordID(zone: zone, recordName: name(letter)), type: .symlink, changeTag: tag.map(ChangeTag.init),
               path: RelativePath(path), size: Int64(target.utf8.count), modified: time(seconds), mode: 0o777,
               symlinkTarget: target, lastModifiedBy: device)
    }

    /// The local item whose record is `observed` (its tag is the ancestor's, its device this one).
    static func local(_ observed: Record, _ change: LocalItem.Change, ancestor: Record?, placeholder: Bool = false) -> LocalItem {
        var seen = observed
        seen.changeTag = ancestor?.changeTag
        seen.lastModifiedBy = here
        return LocalItem(recordName: observed.id.recordName, change: change, isPlaceholder: placeholder, ancestor: ancestor, observed: seen)
    }

    /// An item the engine moved aside to `observed`'s path, otherwise as acknowledged.
    static func movedAside(_ observed: Record, ancestor: Record) -> LocalItem {
        var item = local(observed, .edited, ancestor: ancestor)
        item.onlyMovedByEngine = true
        return item
    }

    /// An item as the server acknowledged it, unchanged here.
    static func synced(_ record: Record, placeholder: Bool = false) -> LocalItem {
        local(record, .none, ancestor: record, placeholder: placeholder)
    }

    /// A record as changed on the other device (tag t2).
    static func changed(_ record: Record) -> Record {
        var next = record
        next.changeTag = ChangeTag("t2")
        return next
    }

    /// The conflict-copy path the planner picks for `path` at `seconds`, past `taken`.
    static func aside(_ path: String, at seconds: Int64 = 0, taken: Set<RelativePath> = []) -> RelativePath {
        ConflictName.copyPath(for: RelativePath(path), device: here, time: time(seconds), isTaken: { taken.contains($0) })
    }

    static func scope(_ change: RemoteChange, item: LocalItem? = nil, occupant: LocalItem? = nil, occupantDeleted: Bool = false,
                      occupantHasLiveChildren: Bool = false, directoryAtPath: Bool = false, hasLiveChildren: Bool = false,
                      isIgnored: Bool = false, inUse: Set<RelativePath> = [], joining: Bool = false) -> RemoteChangeScope {
        RemoteChangeScope(change: change, item: item, occupant: occupant, occupantDeleted: occupantDeleted,
                          occupantHasLiveChildren: occupantHasLiveChildren, directoryAtPath: directoryAtPath,
                          hasLiveChildren: hasLiveChildren, isIgnored: isIgnored, pathsInUse: inUse, freshRecordName: fresh,
                          joining: joining)
    }
}

/// One row of a decision table: a situation and the exact plan expected for it.
struct PlannerCase: Sendable, CustomTestStringConvertible {
    var name: String
    var scope: RemoteChangeScope
    var settings: PlannerSettings
    var expected: [SyncAction]

    init(_ name: String, _ scope: RemoteChangeScope, policy: ConflictPolicy = .keepBoth, onDemand: Bool = false,
         textMerge: TextMergeRule? = nil, _ expected: [SyncAction]) {
        self.name = name
        self.scope = scope
        self.settings = PlannerSettings(device: Fixture.here, conflictPolicy: policy, onDemand: onDemand, textMerge: textMerge)
        self.expected = expected
    }

    var testDescription: String {
        "\(name) [\(settings.conflictPolicy.rawValue)\(settings.onDemand ? ", on demand" : "")\(settings.textMerge != nil ? ", merging text" : "")]"
    }
}



/// Paths in the tables are written as string literals.
extension RelativePath: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}
