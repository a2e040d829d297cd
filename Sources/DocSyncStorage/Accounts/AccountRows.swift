import DocSyncCore
import Foundation

/// Whom a token belongs to: a user, and the device it was issued for (`nil` when its
/// issuer named none).
public struct AccountIdentity: Sendable, Hashable {
    public var user: String
    public var device: String?

    public init(user: String, device: String?) {
        self.user = user
        self.device = device
    }
}

/// One issued token as an account store keeps it: the SHA-256 of the token (lowercase hex,
/// `AccessToken.hash`), its account's name and its device.
public struct TokenRow: Sendable, Hashable {
    public var hash: String
    public var user: String
    public var device: String?

    public init(hash: String, user: String, device: String?) {
        self.hash = hash
        self.user = user
        self.device = device
    }
}

/// A user as `docsync-server user list` shows it.
public struct AccountSummary: Sendable, Hashable {
    public var name: String
    public var tokens: Int
    public var quotaBytes: Int64?

    public init(name: String, tokens: Int, quotaBytes: Int64?) {
        self.name = name
        self.tokens = tokens
        self.quotaBytes = quotaBytes
    }
}

/// The narrow persistence of a server's accounts under `AccountDirectory`, which decides
/// everything: the embedded store's `users.sqlite` and the scale-out store's PostgreSQL
/// tables keep rows and answer these calls, and the shares' (`ShareRows`). Tokens themselves are never stored, only their
/// hashes, each with its first 8 hex digits for the look-up.
public protocol AccountRows: ShareRows {
    /// Creates the account `name` with one token, in one transaction; throws
    /// `AccountRules.userExists(name)` when the name is taken.
    func insertAccount(_ name: String, tokenHash: String, device: String?) async throws(SyncError)
    /// Adds a token for the existing account `name`; throws `AccountRules.noSuchUser(name)`.
    func insertToken(for name: String, tokenHash: String, device: String?) async throws(SyncError)
    /// Sets the quota of `name` (`nil`: no limit); throws `AccountRules.noSuchUser(name)`.
    func updateQuota(_ bytes: Int64?, for name: String) async throws(SyncError)
    /// The quota of `name`, `nil` for no limit and for an unknown account.
    func quota(of name: String) async throws(SyncError) -> Int64?
    /// Every account, in any order.
    func accounts() async throws(SyncError) -> [AccountSummary]
    /// The tokens whose hash starts with `prefix` (8 hex digits).
    func tokens(withHashPrefix prefix: String) async throws(SyncError) -> [TokenRow]
}
