import DocSyncCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What this device keeps of its account's encryption in the state directory (SPEC §13),
/// beside its own `device-key`, both readable by the user alone (mode 600):
/// - `account-key`: the account's keys once this device is trusted (`AccountKeys.stored`:
///   private bytes, generation, zone-name secret), replaced only by a newer generation;
/// - `account-public`: the account's public keys and generation this device confirmed
///   last (`PinnedAccount.stored`), kept from the moment it sees the account encrypted — so
///   a device that saw it encrypted never again takes it for a plain one, and a server
///   showing other keys without the account's signed link to them is refused.
struct AccountKeyFiles: Sendable {
    let directory: URL

    var heldURL: URL { directory.appendingPathComponent("account-key") }
    var pinnedURL: URL { directory.appendingPathComponent("account-public") }

    /// The account keys this device holds, `nil` when it holds none.
    func held() throws -> AccountKeys? {
        guard let bytes = FileManager.default.contents(atPath: heldURL.path) else { return nil }
        do { return try AccountKeys(stored: bytes) } catch {
            throw DeviceKeyError(path: heldURL.path, problem: error.message)
        }
    }

    /// The account's public keys this device confirmed last, `nil` before it saw any.
    func pinned() throws -> PinnedAccount? {
        guard let bytes = FileManager.default.contents(atPath: pinnedURL.path) else { return nil }
        do { return try PinnedAccount(stored: bytes) } catch {
            throw DeviceKeyError(path: pinnedURL.path, problem: error.message)
        }
    }

    /// Keeps `keys` (and their public half) unless this device holds keys of the same or a
    /// newer generation.
    func hold(_ keys: AccountKeys) throws {
        try pin(PinnedAccount(keys: keys.publicKeys, generation: keys.generation))
        if let held = try held(), held.generation >= keys.generation { return }
        try replace(heldURL, with: keys.stored)
    }

    /// Remembers `account` unless a pinned one is of the same or a newer generation.
    func pin(_ account: PinnedAccount) throws {
        if let pinned = try pinned(), pinned.generation >= account.generation { return }
        try replace(pinnedURL, with: account.stored)
    }

    /// Writes `bytes` to `url` through a new file of mode 600 renamed over it: the old one
    /// stays whole until the new one is on disk.
    private func replace(_ url: URL, with bytes: Data) throws {
        let temporary = url.appendingPathExtension("new")
        unlink(temporary.path)
        try DeviceKeyFile.write(bytes, to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            throw DeviceKeyError(path: url.path, problem: "cannot be replaced: \(String(cString: strerror(errno)))")
        }
    }
}
