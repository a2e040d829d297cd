import DocSyncCore
import Foundation
import Synchronization

/// A server's accounts, decided once for every store over its `AccountRows`: who a token
/// belongs to, new users and tokens, quotas.
///
/// Tokens are 32 random bytes (`AccessToken`); only their SHA-256 is stored, looked up by its
/// first 8 hex digits and compared whole in constant time, so the comparison's timing says
/// nothing about how much of a guess was right. A token, once issued, stays valid (there is
/// no revocation yet): a hash seen to belong to an account is remembered, by this
/// directory only. Quotas are read afresh every time, so a change applies at once, also to
/// other processes or instances.
public final class AccountDirectory<Rows: AccountRows>: Sendable {
    public let rows: Rows
    private let known = Mutex<[String: AccountIdentity]>([:])

    public init(rows: Rows) {
        self.rows = rows
    }

    /// The account `token` belongs to, or `nil` for an unknown token.
    public func authenticate(_ token: String) async throws(SyncError) -> AccountIdentity? {
        let hash = AccessToken.hash(token)
        if let account = known.withLock({ $0[hash] }) { return account }
        var match: AccountIdentity?
        for row in try await rows.tokens(withHashPrefix: String(hash.prefix(8))) where AccessToken.constantTimeEquals(row.hash, hash) {
            match = AccountIdentity(user: row.user, device: row.device)
        }
        if let match { known.withLock { $0[hash] = match } }
        return match
    }

    /// Creates user `name` and returns its first device token, issued for `device` when
    /// given. Throws `invalidArguments` for a bad name or device name, or a user that exists.
    public func addUser(_ name: String, device: String?) async throws(SyncError) -> String {
        try AccountRules.check(userName: name)
        try AccountRules.check(device: device)
        let token = AccessToken.generate()
        try await rows.insertAccount(name, tokenHash: AccessToken.hash(token), device: device)
        return token
    }

    /// Issues another device token for the existing user `name`. Throws `invalidArguments`
    /// when there is no such user or the device name is bad.
    public func addToken(for name: String, device: String?) async throws(SyncError) -> String {
        try AccountRules.check(device: device)
        let token = AccessToken.generate()
        try await rows.insertToken(for: name, tokenHash: AccessToken.hash(token), device: device)
        return token
    }

    /// Sets the most bytes `name` may store (`nil`: no limit). Throws `invalidArguments`
    /// when there is no such user or the quota is negative.
    public func setQuota(_ bytes: Int64?, for name: String) async throws(SyncError) {
        try AccountRules.check(quota: bytes)
        try await rows.updateQuota(bytes, for: name)
    }

    /// The most bytes `name` may store, or `nil` for no limit (and for an unknown user).
    public func quota(of name: String) async throws(SyncError) -> Int64? {
        try await rows.quota(of: name)
    }

    /// Every user with the number of its tokens and its quota, sorted by the bytes of its name.
    public func users() async throws(SyncError) -> [AccountSummary] {
        try await rows.accounts().sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
