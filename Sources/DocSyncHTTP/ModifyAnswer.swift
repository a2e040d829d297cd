import DocSyncCore
import DocSyncStorage

extension WireBody {
    /// `POST /v1/zones/{zone}/modify` answer: each item's outcome, without the saved records
    /// themselves. A saved record is the record sent with its new change tag and the account
    /// that saved it, so the answer names the tag and the account once, and the client puts
    /// them on the record it sent (`result(for:)`); echoing every record back cost the server
    /// an encoding and the client a decoding of each.
    public struct ModifyAnswer: Codable, Sendable, Hashable {
        /// Each saved record's new change tag, by record name (all in the batch's zone).
        public var saved: [String: ChangeTag]
        /// The names of the records deleted (all in the batch's zone).
        public var deleted: [String]
        /// Each item that failed, with its error.
        public var failed: [Failure]
        /// `ModifyResult.token`: the zone's token after this batch, when the batch's known
        /// token was the latest.
        public var token: ChangeToken?
        /// The account every saved record was saved by (`Record.lastEditorName`); absent when
        /// nothing was saved.
        public var editor: String?

        /// One failed item: its id (a batch may name an id of another zone, which fails) and why.
        public struct Failure: Codable, Sendable, Hashable {
            public var id: RecordID
            public var error: SyncError
        }

        /// The answer for `result`, whose saved and deleted ids are all in one zone (the batch's)
        /// and whose saved records were all saved by the account `editor`.
        public init(_ result: ModifyResult, editor: String? = nil) {
            saved = Dictionary(uniqueKeysWithValues: result.saved.map { ($0.key.recordName, $0.value.changeTag ?? ChangeTag("")) })
            deleted = result.deleted.map(\.recordName).sorted()
            failed = result.failed.sorted { $0.key < $1.key }.map { Failure(id: $0.key, error: $0.value) }
            token = result.token
            self.editor = editor
        }

        /// An answer without failures.
        init(saved: [String: ChangeTag], deleted: [String], token: ChangeToken?, editor: String?) {
            self.saved = saved
            self.deleted = deleted
            self.failed = []
            self.token = token
            self.editor = editor
        }

        /// The result this answer gives for `batch`, the batch it answers: each saved record
        /// is the batch's record with the answer's change tag and editor. Throws `internalError` when the
        /// answer names a record the batch did not save or delete, or gives an empty tag: the
        /// server does not speak this protocol.
        public func result(for batch: RecordBatch) throws(SyncError) -> ModifyResult {
            func foreign(_ what: String) -> SyncError {
                SyncError(.internalError, "the server's answer to a batch for \(batch.zone) \(what); is the URL a docsync-server of a compatible version?")
            }
            var result = ModifyResult(token: token)
            var sent: [String: Record] = [:]
            for record in batch.saves where record.id.zone == batch.zone { sent[record.id.recordName] = record }
            for (name, tag) in saved {
                guard var record = sent[name] else { throw foreign("says it saved \(name.debugDescription), which the batch did not save") }
                guard !tag.rawValue.isEmpty else { throw foreign("gives \(name.debugDescription) no change tag") }
                record.changeTag = tag
                record.lastEditorName = editor
                result.saved[record.id] = record
            }
            var deletions: [String: RecordID] = [:]
            for deletion in batch.deletions where deletion.id.zone == batch.zone { deletions[deletion.id.recordName] = deletion.id }
            for name in deleted {
                guard let id = deletions[name] else { throw foreign("says it deleted \(name.debugDescription), which the batch did not delete") }
                result.deleted.insert(id)
            }
            for failure in failed { result.failed[failure.id] = failure.error }
            return result
        }
    }
}
