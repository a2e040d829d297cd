import DocSyncCore
import DocSyncStorage
import Foundation
import Logging

/// The backend as an encrypted folder's engine sees it (SPEC §13): the one place where its
/// records are sealed on their way out and opened on their way in.
///
/// What a caller may rely on:
/// - every record it saves is sent sealed with the current epoch's keys, as a version one
///   above any this device has seen or sent for that record (`SealedVersionLedger`, noted
///   before the request leaves); deletions go as they are;
/// - every record it hands back — a page of changes, a save's answer, the server's record of
///   a conflict, records fetched by name, Recently Deleted, recoveries — has been opened with
///   the folder's keyring and is the plaintext record the sealing device wrote (with the
///   wire's change tag), valid, of this zone; its version is at least the highest this
///   device has seen for it, and is noted as seen. A record that is plain, does not
///   authenticate, is older than one seen (a replay), or names an epoch whose key is not
///   held is never handed back as a record: in a page it is listed in `refused` (with the
///   item's path where the index has it), in a modify answer its item fails with
///   `invalidArguments` (a per-item error, never retried in a loop), and from
///   `fetchRecords` or `listDeleted` it is left out;
/// - a data chunk downloaded is opened (bound to its id and this zone) and handed back as its
///   content; one that does not open fails the call with `invalidArguments`. A manifest node
///   (stored in the clear under its SHA-256) comes back as stored;
/// - chunk uploads pass through unchanged: the sender seals data chunks itself
///   (`ChunkUpload(sealed:)`), since only it knows which uploads are manifest nodes.
///
/// Whatever needs keys throws `serviceUnavailable` while they are not available (the engine
/// then shows the folder as awaiting approval or not decryptable and does not call it).
final class SealingBackend: StorageBackend {
    let base: any StorageBackend
    /// The folder's zone (its opaque name on the wire).
    let zone: ZoneID
    let keys: FolderKeySource
    let ledger: SealedVersionLedger
    let logger: Logger

    init(base: any StorageBackend, zone: ZoneID, keys: FolderKeySource, ledger: SealedVersionLedger, logger: Logger) {
        self.base = base
        self.zone = zone
        self.keys = keys
        self.ledger = ledger
        self.logger = logger
    }

    /// The keyring now; `serviceUnavailable` when the keys are not available.
    func keyring() throws(SyncError) -> FolderKeyring {
        switch keys.current {
        case .available(let keyring): return keyring
        case .awaitingApproval:
            throw SyncError(.serviceUnavailable, "this encrypted folder's keys are not here yet: this device awaits approval")
        case .waiting(let reason):
            throw SyncError(.serviceUnavailable, "this encrypted folder's keys are not here yet: \(reason)")
        case .cannotDecrypt(let reason):
            throw SyncError(.serviceUnavailable, "this encrypted folder cannot be decrypted: \(reason)")
        }
    }

    /// `wire` opened with `keyring`: the sealed plaintext, checked to be a valid item of this
    /// zone under the wire's record name and no older than `seen` (the highest version this
    /// device has seen of it).
    func open(_ wire: Record, with keyring: FolderKeyring, seen: UInt64?) -> Result<OpenedRecord, EncryptionError> {
        do throws(EncryptionError) {
            guard wire.id.zone == zone else {
                throw EncryptionError(.authenticationFailed, "\(wire.id) is a record of another zone than \(zone.name)")
            }
            let opened = try wire.opened(with: keyring)
            if let seen, opened.version < seen {
                throw EncryptionError(.rolledBack, "the record \(wire.id.recordName) is version \(opened.version), older than version \(seen) "
                    + "this device has seen: the server offered an earlier state again")
            }
            guard [.document, .folder, .symlink].contains(opened.record.type) else {
                throw EncryptionError(.malformed, "the record \(wire.id.recordName) holds a \(opened.record.type.rawValue), which has no place in a folder")
            }
            guard opened.record.id == wire.id else {
                throw EncryptionError(.authenticationFailed, "the blob of \(wire.id.recordName) holds the record \(opened.record.id)")
            }
            do { try opened.record.validate() } catch {
                throw EncryptionError(.malformed, "the record \(wire.id.recordName) opens to an invalid record: \(error.message)")
            }
            return .success(opened)
        } catch {
            return .failure(error)
        }
    }

    /// Logs a record refused on arrival (where from, which item, why).
    func logRefusal(_ name: String, path: String?, _ error: EncryptionError, in what: String) {
        logger.warning("refused a sealed record from the server; nothing was written", metadata: [
            "path": "\(path ?? "")", "record": "\(name)", "kind": "\(error.kind.rawValue)", "in": "\(what)", "problem": "\(error.message)"])
    }

    // MARK: passed through

    func createZone(_ zone: ZoneID) async throws(SyncError) { try await base.createZone(zone) }

    func deleteZone(_ zone: ZoneID) async throws(SyncError) { try await base.deleteZone(zone) }

    func listZones() async throws(SyncError) -> [ZoneID] { try await base.listZones() }

    func moveZone(_ zone: ZoneID, to target: ZoneID) async throws(SyncError) { try await base.moveZone(zone, to: target) }

    func missingChunks(_ digests: [SHA256Digest]) async throws(SyncError) -> Set<SHA256Digest> { try await base.missingChunks(digests) }

    func uploadChunk(_ digest: SHA256Digest, bytes: Data) async throws(SyncError) { try await base.uploadChunk(digest, bytes: bytes) }

    func uploadChunks(_ chunks: [ChunkUpload]) async throws(SyncError) { try await base.uploadChunks(chunks) }

    func changeNotifications() -> AsyncStream<ChangeNotification> { base.changeNotifications() }

    func purgeDeleted(in zone: ZoneID, ids: [RecordID]?) async throws(SyncError) -> Int { try await base.purgeDeleted(in: zone, ids: ids) }

    func usage() async throws(SyncError) -> StorageUsage { try await base.usage() }

    func releaseMemory() { base.releaseMemory() }
}
