import DocSyncCore
import DocSyncStorage
import Foundation

/// Records through `SealingBackend`: sealed on the way out, opened on the way in.
extension SealingBackend {
    /// Seals the batch's saves (deletions go as they are), sends it, and opens what the
    /// answer carries: a saved item comes back as the plaintext it was sealed from, with the
    /// server's change tag; the server's record of a conflict is opened, and when it does not
    /// open that item fails with `invalidArguments`.
    func modifyRecords(_ batch: RecordBatch) async throws(SyncError) -> ModifyResult {
        let keyring = try keyring()
        var sealedBatch = batch
        let versions = batch.saves.isEmpty ? [:] : try ledger.nextVersions(batch.saves.map(\.id.recordName))
        sealedBatch.saves = batch.saves.map { seal($0, version: versions[$0.id.recordName]!, with: keyring.current) }
        var result = try await base.modifyRecords(sealedBatch)
        let sent = Dictionary(batch.saves.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        result.saved = Dictionary(uniqueKeysWithValues: result.saved.compactMap { id, wire in
            sent[id].map { plain in (id, Self.acknowledged(plain, answer: wire)) }
        })
        result.failed = try await openConflicts(result.failed, keyring: keyring)
        return result
    }

    /// A page of changes with every record opened; those that do not open are listed in
    /// `refused` under the item's path here (nothing of them reaches the folder).
    ///
    /// A record sealed in an epoch this device does not hold yet (one started elsewhere) is
    /// refused too, and the key source told (`noteMissingEpoch`): once the epochs held
    /// change, the next fetch starts from the zone's beginning (records known unchanged are
    /// passed over by the engine), so such a record is applied then.
    func fetchChanges(in zone: ZoneID, since token: ChangeToken?, limit: Int) async throws(SyncError) -> ChangeSet {
        let from = keys.takeRefetch() ? nil : token
        if from == nil, token != nil { logger.notice("new keys arrived: fetching the folder's changes again from the start", metadata: ["zone": "\(zone)"]) }
        var page = try await base.fetchChanges(in: zone, since: from, limit: limit)
        guard !page.changed.isEmpty else { return page }
        let (opened, refusals) = try openAll(page.changed, keyring: try keyring(), in: "a page of changes")
        if refusals.contains(where: { $0.error.kind == .missingKey }) { keys.noteMissingEpoch() }
        page.changed = opened
        let paths = ledger.paths(refusals.map(\.name))
        page.refused += refusals.map { RefusedRecord(recordName: $0.name, path: paths[$0.name] ?? "", reason: $0.error.description) }
        return page
    }

    /// The records of `ids` opened; those that do not open are left out (and logged).
    func fetchRecords(_ ids: [RecordID]) async throws(SyncError) -> [RecordID: Record] {
        let wire = try await base.fetchRecords(ids)
        guard !wire.isEmpty else { return wire }
        let (opened, _) = try openAll(Array(wire.values), keyring: try keyring(), in: "records fetched by name")
        return Dictionary(opened.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Recently Deleted with every last version opened; one that does not open, or is older
    /// than a version seen, is left out (and logged): nothing is decided from it.
    func listDeleted(in zone: ZoneID, since: Timestamp?) async throws(SyncError) -> [DeletedRecord] {
        let listed = try await base.listDeleted(in: zone, since: since)
        guard !listed.isEmpty else { return listed }
        let keyring = try keyring()
        let seen = try ledger.seen(listed.map(\.record.id.recordName))
        return listed.compactMap { deleted in
            switch open(deleted.record, with: keyring, seen: seen[deleted.record.id.recordName]) {
            case .success(let opened):
                var plain = deleted
                plain.record = opened.record
                return plain
            case .failure(let error):
                logRefusal(deleted.record.id.recordName, path: nil, error, in: "Recently Deleted")
                return nil
            }
        }
    }

    /// Brings sealed records back at their last path (the server cannot move a sealed item:
    /// a recovery naming another path fails with `invalidArguments`), and opens what comes back.
    func recoverDeleted(_ recoveries: [DeletedRecordRecovery], in zone: ZoneID) async throws(SyncError) -> ModifyResult {
        let keyring = try keyring()
        let moved = recoveries.filter { $0.path != nil }
        let inPlace = recoveries.filter { $0.path == nil }
        var result = inPlace.isEmpty ? ModifyResult() : try await base.recoverDeleted(inPlace, in: zone)
        for recovery in moved {
            result.failed[recovery.id] = SyncError(.invalidArguments,
                "an encrypted folder's item comes back only at its last path, which is taken here; move what is there, then recover it again")
        }
        let (opened, refused) = try openAll(Array(result.saved.values), keyring: keyring, in: "recovered records")
        result.saved = Dictionary(opened.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for refusal in refused {
            result.failed[RecordID(zone: zone, recordName: refusal.name)] = Self.refusedAnswer(refusal.error)
        }
        result.failed = try await openConflicts(result.failed, keyring: keyring)
        return result
    }

    // MARK: sealing and opening

    /// The wire record of `plain` sealed as `version`: a document lists its chunks as the
    /// sealed asset does (each data chunk with its sealed length; a large file's top manifest
    /// nodes as they are).
    private func seal(_ plain: Record, version: UInt64, with keys: FolderEpochKeys) -> Record {
        guard plain.type == .document, let asset = plain.asset else { return Record.sealing(plain, version: version, with: keys, zone: zone) }
        let overhead = SealedChunk.overhead
        let entries = asset.depth == 0 ? asset.entries.map { ChunkRef(digest: $0.digest, length: $0.length + overhead) } : asset.entries
        // What the content takes sealed: each distinct data chunk's body; for a large file an
        // estimate (every chunk's body and the top nodes; the lower nodes are not listed here).
        var distinct = Set<SHA256Digest>()
        let stored = asset.depth == 0
            ? entries.reduce(Int64(0)) { $0 + (distinct.insert($1.digest).inserted ? Int64($1.length) : 0) }
            : asset.size + Int64(asset.chunkCount * overhead) + entries.reduce(Int64(0)) { $0 + Int64($1.length) }
        return Record.sealing(plain, version: version, with: keys, zone: zone, chunks: entries, depth: asset.depth,
                              chunkCount: asset.chunkCount, storedBytes: stored)
    }

    /// The plaintext record a save acknowledged: as sealed, with the answer's change tag and
    /// (when the device named none) the account the server named — exactly what opening the
    /// answered record gives, so a fetch bringing it back finds it acknowledged already.
    static func acknowledged(_ plain: Record, answer: Record) -> Record {
        var record = plain
        record.changeTag = answer.changeTag
        record.lastEditorName = plain.lastEditorName ?? answer.lastEditorName
        return record
    }

    /// Opens `records` (noting each version as seen); returns the plaintexts and what was refused.
    private func openAll(_ records: [Record], keyring: FolderKeyring, in what: String)
        throws(SyncError) -> (opened: [Record], refused: [(name: String, error: EncryptionError)]) {
        let seen = try ledger.seen(records.map(\.id.recordName))
        var opened: [Record] = [], refused: [(name: String, error: EncryptionError)] = [], versions: [String: UInt64] = [:]
        for wire in records {
            let name = wire.id.recordName
            switch open(wire, with: keyring, seen: seen[name]) {
            case .success(let record):
                opened.append(record.record)
                versions[name] = max(versions[name] ?? 0, record.version)
            case .failure(let error):
                refused.append((name, error))
            }
        }
        try ledger.note(versions)
        if !refused.isEmpty {
            let paths = ledger.paths(refused.map(\.name))
            for (name, error) in refused { logRefusal(name, path: paths[name], error, in: what) }
        }
        return (opened, refused)
    }

    /// `failed` with the server's record of each conflict (`serverRecordChanged`) opened —
    /// fetched when the answer did not carry it; an item whose server record does not open
    /// fails with `invalidArguments` instead.
    private func openConflicts(_ failed: [RecordID: SyncError], keyring: FolderKeyring) async throws(SyncError) -> [RecordID: SyncError] {
        let conflicts = failed.filter { $0.value.code == .serverRecordChanged }
        guard !conflicts.isEmpty else { return failed }
        var result = failed
        let unsent = conflicts.filter { $0.value.serverRecord == nil }.map(\.key)
        let fetched = unsent.isEmpty ? [:] : try await base.fetchRecords(unsent)
        let wire = conflicts.compactMap { id, error in (error.serverRecord ?? fetched[id]) }
        let (opened, refused) = try openAll(wire, keyring: keyring, in: "the server's record of a conflict")
        for record in opened { result[record.id]?.serverRecord = record }
        for refusal in refused { result[RecordID(zone: zone, recordName: refusal.name)] = Self.refusedAnswer(refusal.error) }
        return result
    }

    /// The per-item error of an answer whose record does not open.
    static func refusedAnswer(_ error: EncryptionError) -> SyncError {
        SyncError(.invalidArguments, "the server's version of this item was refused (\(error.description)); nothing was written, "
            + "and this device's version stays here until the item changes again")
    }
}
