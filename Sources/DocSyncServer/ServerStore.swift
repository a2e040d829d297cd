import DocSyncCore
import DocSyncStorage
import Foundation
import Logging

/// Everything docsync-server keeps: accounts (users, device tokens, quotas) and each user's
/// storage. Two kinds, with the same meaning to devices: the embedded store of one machine
/// (`EmbeddedServerStore`: SQLite and pack files in the data directory) and the scale-out
/// store (`ScaleOutServerStore`: PostgreSQL and an S3 bucket, shared by any number of
/// server instances).
public protocol ServerStore: Sendable {
    associatedtype Accounts: AccountRows
    /// The store's accounts (users, device tokens, quotas), decided by `AccountDirectory`
    /// over the store's rows; the calls below reach them.
    var accounts: AccountDirectory<Accounts> { get }

    /// `user`'s storage (created on first use). Only the name a token authenticated is
    /// ever passed here, so one user's requests cannot reach another's data.
    func backend(for user: String) async throws(SyncError) -> any ServerStorageBackend
    /// What `user`'s storage keeps, in bytes of chunks (0 before its first use).
    func storedBytes(of user: String) async throws(SyncError) -> Int64
    /// Collects garbage now: one user's storage or everyone's, waiting up to `seconds` while
    /// another collector works. One report per store, named by its user (`nil` for a user
    /// with nothing stored yet), or one named "all users" where one collection covers everyone.
    func collect(user: String?, waiting seconds: Double) async throws(SyncError) -> [(user: String, report: GarbageCollectionReport?)]
    /// Collects what is due: storage not collected for `interval` (the server's schedule).
    func collectDue(interval: TimeInterval, logger: Logger) async
    /// The rate limit of this store's server: per process for the embedded store, shared by
    /// every instance for the scale-out store.
    func rateLimiter(ratePerSecond: Double) -> any RequestAdmission
    /// Frees the caches of storage no request used for `idle`.
    func releaseIdle(for idle: Duration)
    /// Whether requests can be served now (`/readyz`).
    func isReady() async -> Bool
    /// Lets go of connections and ends notification streams; the store is not used after.
    func shutdown() async
}

extension ServerStore {
    /// The account `token` belongs to, or `nil` for an unknown token.
    public func authenticate(_ token: String) async throws(SyncError) -> AccountIdentity? { try await accounts.authenticate(token) }
    /// The most bytes `user` may store, or `nil` for no limit (and for an unknown user).
    public func quota(of user: String) async throws(SyncError) -> Int64? { try await accounts.quota(of: user) }
    /// Creates `name` and returns its first device token (issued for `device` when given).
    public func addUser(_ name: String, device: String?) async throws(SyncError) -> String { try await accounts.addUser(name, device: device) }
    /// Issues another device token for the existing user `name`.
    public func addToken(for name: String, device: String?) async throws(SyncError) -> String { try await accounts.addToken(for: name, device: device) }
    /// Sets the most bytes `name` may store (`nil`: no limit).
    public func setQuota(_ bytes: Int64?, for name: String) async throws(SyncError) { try await accounts.setQuota(bytes, for: name) }
    /// Every user with the number of its tokens and its quota, sorted by name.
    public func users() async throws(SyncError) -> [AccountSummary] { try await accounts.users() }

    // Sharing (SPEC §11), as `AccountDirectory` decides it.

    /// `share`'s entries, sorted by participant.
    public func shareEntries(of share: ShareName) async throws(SyncError) -> [ShareEntry] { try await accounts.shareEntries(of: share) }
    /// The entries whose participant is `participant`, sorted by share.
    public func shares(of participant: String) async throws(SyncError) -> [ShareEntry] { try await accounts.shares(of: participant) }
    /// The owner's change to `participants`' entries of `share` (`AccountDirectory.changeShare`).
    public func changeShare(_ share: ShareName, _ action: ShareAction, participants: [String]) async throws(SyncError) -> [ShareEntry] {
        try await accounts.changeShare(share, action, participants: participants)
    }
    /// A participant's answer to `share` (`AccountDirectory.answerShare`).
    public func answerShare(_ share: ShareName, participant: String, _ action: ShareAction) async throws(SyncError) -> ShareEntry {
        try await accounts.answerShare(share, participant: participant, action)
    }
    /// Carries `share`'s open entries to the zone it moved to (`AccountDirectory.carryShare`).
    public func carryShare(_ share: ShareName, to target: ZoneID) async throws(SyncError) {
        try await accounts.carryShare(share, to: target)
    }
    /// The role in which `caller` may do `operation` in `share`, or the error refusing it.
    public func access(_ operation: ZoneOperation, caller: String, share: ShareName) async throws(SyncError) -> ZoneRole {
        try await accounts.access(operation, caller: caller, share: share)
    }
    /// Stores `entry` in place of `expected` (`ShareRows.replaceShareEntry`): for a migration and tests.
    public func replaceShareEntry(_ expected: ShareEntry?, with entry: ShareEntry) async throws(SyncError) -> Bool {
        try await accounts.rows.replaceShareEntry(expected, with: entry)
    }
}

/// Waits while another collector holds the store: runs `attempt` until a report says it
/// ran, or `seconds` have passed.
func collectWaiting(_ seconds: Double, _ attempt: () async throws(SyncError) -> GarbageCollectionReport) async throws(SyncError) -> GarbageCollectionReport {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        let report = try await attempt()
        if report.ran || Date() >= deadline { return report }
        try? await Task.sleep(for: .milliseconds(200))
    }
}
