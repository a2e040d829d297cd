import DocSyncCore
import DocSyncStorage

extension WireBody {
    /// `GET /v1/zones/{zone}/deleted` answer: the zone's Recently Deleted, newest deletion first.
    public struct DeletedRecords: Codable, Sendable, Hashable {
        public var deleted: [DeletedRecord]
        public init(deleted: [DeletedRecord]) { self.deleted = deleted }
    }

    /// `POST /v1/zones/{zone}/deleted/recover` request: at most `RecordBatch.maximumItems`.
    public struct Recoveries: Codable, Sendable, Hashable {
        public var recoveries: [Recovery]
        public init(recoveries: [Recovery]) { self.recoveries = recoveries }
    }

    /// One record to recover (`DeletedRecordRecovery`), its path as text: the server checks
    /// each path on its own, so one bad path fails its item only.
    public struct Recovery: Codable, Sendable, Hashable {
        public var device: String
        public var id: RecordID
        public var path: String?

        public init(_ recovery: DeletedRecordRecovery) {
            device = recovery.device
            id = recovery.id
            path = recovery.path?.string
        }

        public init(device: String, id: RecordID, path: String?) {
            self.device = device
            self.id = id
            self.path = path
        }
    }

    /// `POST /v1/zones/{zone}/deleted/recover` answer: the records recovered, whole (the
    /// client did not have them), sorted by id, and each item that failed.
    public struct RecoverAnswer: Codable, Sendable, Hashable {
        public var failed: [ModifyAnswer.Failure]
        public var saved: [Record]

        public init(_ result: ModifyResult) {
            failed = result.failed.sorted { $0.key < $1.key }.map { ModifyAnswer.Failure(id: $0.key, error: $0.value) }
            saved = result.saved.values.sorted { $0.id < $1.id }
        }

        init(saved: [Record]) {
            failed = []
            self.saved = saved
        }

        /// The result this answer gives for `recoveries`. Throws `internalError` when it
        /// names a record that was not asked for, or one without a change tag: the server
        /// does not speak this protocol.
        public func result(for recoveries: [DeletedRecordRecovery]) throws(SyncError) -> ModifyResult {
            let asked = Set(recoveries.map(\.id))
            var result = ModifyResult()
            for record in saved {
                guard asked.contains(record.id), record.changeTag != nil else {
                    throw SyncError(.internalError, "the server's answer to a recovery names \(record.id), which was not asked for or has no change tag; is the URL a docsync-server of a compatible version?")
                }
                result.saved[record.id] = record
            }
            for failure in failed { result.failed[failure.id] = failure.error }
            return result
        }
    }

    /// `POST /v1/zones/{zone}/deleted/purge` request: `all`, or the record names to purge
    /// (at most `WireLimits.recordNamesPerPurge`), never both.
    public struct Purge: Codable, Sendable, Hashable {
        public var all: Bool
        public var recordNames: [String]

        public init(all: Bool, recordNames: [String]) {
            self.all = all
            self.recordNames = recordNames
        }
    }

    /// `POST /v1/zones/{zone}/deleted/purge` answer: how many records left Recently Deleted.
    public struct Purged: Codable, Sendable, Hashable {
        public var purged: Int
        public init(purged: Int) { self.purged = purged }
    }
}
