import Foundation

/// The one error type of every backend and of the engine, modelled on CloudKit's `CKError`.
///
/// Each `Code` has one documented behaviour in the engine (SPEC §5); the error carries
/// what that behaviour needs: `retryAfter` for `requestRateLimited`, `serverRecord` for
/// `serverRecordChanged`, `itemErrors` for `partialFailure`, `digest` for chunk errors.
/// `message` is written for a person and says what to do where there is something to do.
public struct SyncError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Codable, Sendable, CaseIterable {
        // Transient: keep the work queued, retry with backoff and jitter.
        case networkFailure, networkUnavailable, serviceUnavailable, zoneBusy
        /// Wait at least `retryAfter`, then retry.
        case requestRateLimited
        /// The save's base change tag is stale; `serverRecord` is the server's current record.
        case serverRecordChanged
        /// Some items of a batch failed; `itemErrors` holds each one's own error.
        case partialFailure
        /// Too many items (more than `RecordBatch.maximumItems`) or too large a request: split it.
        case limitExceeded
        case zoneNotFound, userDeletedZone, changeTokenExpired
        case quotaExceeded, notAuthenticated
        /// The caller takes part in a shared zone but may not do this there: a read-only
        /// participant's save, or what only the owner may do (SPEC §11). Not retried.
        case permissionDenied
        /// The file changed while it was being read; discard that upload and read it again later.
        case assetFileModified
        /// In an atomic batch, this item was fine but another item failed, so nothing was saved.
        case batchRequestFailed
        /// The record does not exist (for example, fetching a deleted record).
        case unknownItem
        /// The request itself is malformed: a bad name, path, record or token. Retrying will not help.
        case invalidArguments
        /// No chunk with this digest is stored.
        case chunkNotFound
        /// A stored or received chunk's bytes do not hash to its digest.
        case chunkCorrupt
        /// An uploaded chunk's bytes do not hash to the digest it was sent under; it was not stored.
        case chunkDigestMismatch
        /// The backend failed in a way it could not classify; the message says how.
        case internalError
        /// The zone was moved into another (a folder turned encrypted, SPEC §13) and is only
        /// a redirect now: `movedTo` names where it went. Follow it: sync that zone and
        /// match what is on disk; never write into the old one again.
        case zoneMoved
    }

    public var code: Code
    public var message: String
    /// For `requestRateLimited` (and optionally transient codes): the least time to wait, in seconds.
    public var retryAfter: Double?
    /// For `serverRecordChanged`: the record as the server has it now.
    public var serverRecord: Record?
    /// For `partialFailure`: the error of each item that failed.
    public var itemErrors: [RecordID: SyncError]?
    /// For chunk errors: the chunk concerned.
    public var digest: SHA256Digest?
    /// For `quotaExceeded` when the user's account is full (not the backend's disk): what
    /// the account stores and may store.
    public var quota: AccountQuota?
    /// For `zoneMoved`: the zone the named one was moved into.
    public var movedTo: ZoneID?

    public init(
        _ code: Code, _ message: String, retryAfter: Double? = nil, serverRecord: Record? = nil,
        itemErrors: [RecordID: SyncError]? = nil, digest: SHA256Digest? = nil, quota: AccountQuota? = nil,
        movedTo: ZoneID? = nil
    ) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
        self.itemErrors = itemErrors
        self.digest = digest
        self.quota = quota
        self.movedTo = movedTo
    }

    /// True for the codes whose handling is "keep the work queued and retry later".
    public var isTransient: Bool {
        switch code {
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .zoneBusy, .requestRateLimited: true
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension SyncError {
    /// The save was based on a stale change tag.
    public static func serverRecordChanged(_ serverRecord: Record) -> SyncError {
        SyncError(.serverRecordChanged,
                  "\(serverRecord.id) was changed on the server (now \(serverRecord.changeTag?.rawValue ?? "untagged")); merge and resend",
                  serverRecord: serverRecord)
    }

    public static func zoneNotFound(_ zone: ZoneID) -> SyncError {
        SyncError(.zoneNotFound, "zone \(zone.name.debugDescription) does not exist; create it and resend")
    }

    public static func zoneMoved(_ zone: ZoneID, to target: ZoneID) -> SyncError {
        SyncError(.zoneMoved, "zone \(zone.name.debugDescription) was moved into an encrypted zone; sync that one instead (nothing is written here any more)",
                  movedTo: target)
    }

    public static func chunkNotFound(_ digest: SHA256Digest) -> SyncError {
        SyncError(.chunkNotFound, "chunk \(digest.shortHex) is not stored; upload it first", digest: digest)
    }
}

/// A user's storage on a backend against its quota (SPEC §8): live records, Recently
/// Deleted and replaced versions all count.
public struct AccountQuota: Hashable, Codable, Sendable {
    public var usedBytes: Int64
    public var quotaBytes: Int64

    public init(usedBytes: Int64, quotaBytes: Int64) {
        self.usedBytes = usedBytes
        self.quotaBytes = quotaBytes
    }
}
