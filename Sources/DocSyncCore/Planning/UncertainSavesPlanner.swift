/// What becomes of saves sent but never answered (the connection failed after the request
/// left, so each may have landed), decided from what the server says later: no I/O, no
/// clock, no database. The engine remembers every version of a record it sent since the
/// record's last answer, and hands them here with the items they belong to.
///
/// The rules:
/// - a record that comes back (fetched, or in a conflict's answer) with exactly the fields of
///   one remembered version is this device's own save, not a change made elsewhere: it
///   becomes the item's acknowledged record and is not applied as a remote change. An item
///   deleted here meanwhile (no row, or its deletion waiting to be sent) also owns a record
///   another device has only relocated since (a move is no edit); for an item with no row
///   left, the deletion is made again, to be sent against that record;
/// - a new record whose one unanswered create is followed by another version was created by
///   this device and edited elsewhere on top: the create is the ancestor of both sides, so
///   an item unchanged since settles on it and the other version replaces it without a
///   conflict copy (an item changed since is merged against it);
/// - a record deleted elsewhere whose last version (from Recently Deleted) is one this
///   device sent was deleted by a device that had the save: that version becomes the
///   item's ancestor, so the deletion wins unless the item changed here since (then the
///   edit wins, as edits do);
/// - a create about to be sent again whose earlier try landed and was then deleted on
///   another device (the store has no live record, and Recently Deleted lists it) is not
///   sent again unless the item changed since or is a folder: a backend cannot tell the
///   retry from a first creation, and the deletion wins.
///
/// Any answer for a record ends what was remembered of it.
public enum UncertainSavesPlanner {
    /// One item of this device's index, as these decisions see it.
    public struct Item: Sendable, Hashable {
        public var change: LocalItem.Change
        /// The item's content was read since it last changed: `observed` has its digest.
        public var contentRead: Bool
        /// The item as it would be sent (for a deleted item: as it was last seen).
        public var observed: Record
        /// The record the server last acknowledged for it.
        public var acknowledged: Record?

        public init(change: LocalItem.Change, contentRead: Bool = true, observed: Record, acknowledged: Record? = nil) {
            self.change = change
            self.contentRead = contentRead
            self.observed = observed
            self.acknowledged = acknowledged
        }
    }

    public enum Decision: Sendable, Hashable {
        /// What was remembered of the record is answered: it is forgotten.
        case forget(recordName: String)
        /// `record` is this device's own save: it becomes the item's acknowledged record.
        case acknowledge(recordName: String, as: Record)
        /// `record` is this device's own save of an item deleted here since (its row gone):
        /// the deletion is made again, to be sent against `record`.
        case sendDeletion(of: Record)
        /// `landed`, a save of this device, is the ancestor of the server's version: the item
        /// settles on it when `settle` (nothing of it changed since), and otherwise only takes
        /// it as its acknowledged record (an edit on top of it, still to be sent).
        case takeAsAncestor(recordName: String, landed: Record, settle: Bool)
    }

    /// The decisions for what the server answered, and the names of the records in
    /// `changed` that are this device's own saves (not applied as remote changes).
    public struct Answer: Sendable, Hashable {
        public var decisions: [Decision]
        public var own: Set<String>

        public init(decisions: [Decision] = [], own: Set<String> = []) {
            self.decisions = decisions
            self.own = own
        }
    }

    /// Settles the remembered saves that `changed` (the server's records) and `deleted` (its
    /// deletions, with their last versions in `deletedVersions`, from Recently Deleted)
    /// answer. `remembered` holds the versions sent without an answer, by record name;
    /// `items` the index's items of those names (absent: no row).
    public static func answer(changed: [Record], deleted: [String], deletedVersions: [String: Record],
                              remembered: [String: [Record]], items: [String: Item]) -> Answer {
        var answer = Answer()
        var items = items
        for name in deleted {
            guard let versions = remembered[name] else { continue }
            answer.decisions.append(.forget(recordName: name))
            guard let last = deletedVersions[name], versions.contains(where: { last.isSameRecord(as: $0) }),
                  let item = items[name], item.acknowledged?.changeTag != last.changeTag else { continue }
            // Deleted by a device that had this save: the save is the ancestor of the deletion.
            answer.decisions.append(takeAsAncestor(last, item, &items, name))
        }
        for record in changed {
            let name = record.id.recordName
            guard let versions = remembered[name] else { continue }
            answer.decisions.append(.forget(recordName: name))
            let existing = items[name]
            let deletedHere = existing == nil || existing?.change == .deleted
            guard versions.contains(where: { mine in
                record.isSameRecord(as: mine) || (deletedHere && RemoteChangePlanner.onlyRelocated(mine, record))
            }) else {
                if let item = existing, versions.count == 1, let create = versions.first, create.changeTag == nil, item.acknowledged == nil {
                    // A new record that exists: its one create landed, and the server's
                    // version was made on top of it.
                    answer.decisions.append(takeAsAncestor(create, item, &items, name))
                }
                continue
            }
            answer.own.insert(name)
            if var item = existing {
                item.acknowledged = record
                items[name] = item
                answer.decisions.append(.acknowledge(recordName: name, as: record))
            } else {
                // The row made for the deletion is the item for a later answer of the same record.
                items[name] = Item(change: .deleted, observed: record, acknowledged: record)
                answer.decisions.append(.sendDeletion(of: record))
            }
        }
        return answer
    }

    /// `landed` becomes the ancestor of `item` (named `name`); the item as it then is replaces
    /// it in `items`, for the decisions after this one.
    private static func takeAsAncestor(_ landed: Record, _ item: Item, _ items: inout [String: Item], _ name: String) -> Decision {
        let unchangedSince = item.change == .edited && item.contentRead && item.observed.isSameRecord(as: landed)
        var after = item
        after.acknowledged = landed
        if unchangedSince {
            after.change = .none
            after.contentRead = true
        }
        items[name] = after
        return .takeAsAncestor(recordName: name, landed: landed, settle: unchangedSince)
    }

    /// The creates among `items` about to be sent that have unanswered saves remembered: the
    /// engine asks the backend which of their records are live, and whether Recently Deleted
    /// lists the others, before `createsDeletedElsewhere` decides. In record-name order.
    public static func createsToCheck(_ items: [String: Item], remembered: [String: [Record]]) -> [String] {
        items.filter { $0.value.acknowledged == nil && $0.value.change == .edited && remembered[$0.key] != nil }.keys.sorted()
    }

    /// The creates among `checked` not to send: their record is not live (`live` names the
    /// live ones), Recently Deleted lists it, and the item is still a create (never
    /// acknowledged, an edit to send) of a file or link, not a folder, whose fields as it
    /// would be sent are exactly one version this device sent (`Record.isSameRecord`; a
    /// change since shows in its size, time or digest). Each goes to the version store
    /// instead, deleted elsewhere. In record-name order.
    public static func createsDeletedElsewhere(_ checked: [String], items: [String: Item], remembered: [String: [Record]],
                                               live: Set<String>, recentlyDeleted: Set<String>) -> [String] {
        checked.sorted().filter { name in
            guard !live.contains(name), recentlyDeleted.contains(name), let item = items[name], let versions = remembered[name] else { return false }
            return item.observed.type != .folder && item.acknowledged == nil && item.change == .edited
                && versions.contains { item.observed.isSameRecord(as: $0) }
        }
    }
}
