import DocSyncCore

extension RecordBatch {
    /// Item errors found without looking at stored state, the same for every store: an id
    /// named twice in one batch, an id outside the batch's zone, an invalid record, a
    /// deleting device's name that is not valid, a Value outside a key-value store's zone or
    /// anything else inside one (SPEC §12). Items not named here still depend on what is
    /// stored.
    public var itemsFailingValidation: [RecordID: SyncError] {
        var failed: [RecordID: SyncError] = [:]
        var seen = Set<RecordID>()
        let ids = saves.map(\.id) + deletions.map(\.id)
        for id in ids where !seen.insert(id).inserted {
            failed[id] = SyncError(.invalidArguments, "\(id) appears more than once in one batch")
        }
        for id in ids where id.zone != zone {
            failed[id] = SyncError(.invalidArguments, "\(id) is not in the batch's zone \(zone)")
        }
        for record in saves where failed[record.id] == nil && !record.belongs(in: zone) {
            failed[record.id] = SyncError(.invalidArguments, record.type == .value
                ? "\(record.id): a Value lives only in a key-value store's zone (~ID)"
                : "\(record.id): a key-value store's zone \(zone) holds only Values (sealed, in an encrypted store's zone ~e.…)")
        }
        for record in saves where failed[record.id] == nil {
            do { try record.validate() } catch { failed[record.id] = error }
        }
        for deletion in deletions where failed[deletion.id] == nil {
            if let problem = deletion.device.flatMap(DeviceName.problem(with:)) {
                failed[deletion.id] = SyncError(.invalidArguments, "the deletion of \(deletion.id) names a device that \(problem)")
            }
        }
        return failed
    }
}

extension Record {
    /// Whether the record may be saved in `zone`: a Value only in a key-value store's zone, and
    /// such a zone holds only Values — sealed ones in an encrypted store's zone (`~e.…`, SPEC
    /// §13), which holds no plain one.
    func belongs(in zone: ZoneID) -> Bool {
        guard zone.isKeyValueStore else { return type != .value }
        return type == .value || (type == .sealed && zone.isEncryptedKeyValueStore)
    }

    /// The slot a record of a key-value store's zone fills (its key, or for a sealed Value the
    /// key its record name reads as), `nil` for any other record.
    var keyValueSlot: KeyValueKey? {
        type == .sealed ? KeyValueKey(recordName: id.recordName) : keyValueKey
    }
}

extension ZoneID {
    /// An encrypted account's key-value store zone (`~e.` and 26 letters, SPEC §13).
    var isEncryptedKeyValueStore: Bool { name.hasPrefix(Self.keyValuePrefix + "e.") }
}
