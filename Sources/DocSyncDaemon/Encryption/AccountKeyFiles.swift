import DocSyncCore
import Foundation

/// What this device keeps of its account's encryption in the state directory (SPEC §13),
/// beside its own `device-key`:
/// - `account-key`: the account's 64 private bytes, once this device is trusted (mode 600,
///   created once, like the device key);
/// - `account-public`: the account's 64 public bytes as this device first saw them (a
///   server showing others later is refused), kept from the moment the account is seen
///   encrypted — so a device that saw it encrypted never again takes it for a plain one.
struct AccountKeyFiles: Sendable {
    let directory: URL

    var heldURL: URL { directory.appendingPathComponent("account-key") }
    var pinnedURL: URL { directory.appendingPathComponent("account-public") }

    /// The account keys this device holds, `nil` when it holds none.
    func held() throws -> AccountKeys? {
        guard let bytes = FileManager.default.contents(atPath: heldURL.path) else { return nil }
        do { return AccountKeys(try EncryptionKeyPair(privateBytes: bytes)) } catch {
            throw DeviceKeyError(path: heldURL.path, problem: error.message)
        }
    }

    /// The account's public keys this device saw first, `nil` before it saw any.
    func pinned() throws -> PublicKeys? {
        guard let bytes = FileManager.default.contents(atPath: pinnedURL.path) else { return nil }
        do { return try PublicKeys(bytes: bytes) } catch {
            throw DeviceKeyError(path: pinnedURL.path, problem: error.message)
        }
    }

    /// Keeps `keys` (and their public half) unless this device already holds account keys.
    func hold(_ keys: AccountKeys) throws {
        try pin(keys.publicKeys)
        guard try held() == nil else { return }
        try DeviceKeyFile.write(keys.pair.privateBytes, to: heldURL)
    }

    /// Remembers `keys` as the account's unless some are remembered already.
    func pin(_ keys: PublicKeys) throws {
        guard try pinned() == nil else { return }
        try DeviceKeyFile.write(keys.bytes, to: pinnedURL)
    }
}
