import Crypto
import Foundation

/// The keys of one epoch of an encrypted folder (SPEC §13), derived from the epoch's
/// 32-byte secret with HKDF-SHA256 (salt `docsync/1`, info naming the key):
/// - `seal`: AES-256-GCM for chunk bodies and records;
/// - `chunk-id`: HMAC-SHA256 of a chunk's content is its id, so the server cannot tell
///   whether a user holds a known file, and identical content deduplicates within the
///   epoch only;
/// - `chunker`: the gear table of the chunker (`GearTable(key:)`), so chunk boundaries
///   (and sizes) depend on the key too.
///
/// The secret is what is wrapped for each account that may read the folder; a new epoch
/// (a device or participant removed) is a new secret, so nothing sealed later opens with an
/// old one. Safe to share between threads.
public struct FolderEpochKeys: Sendable {
    public let epoch: UInt32
    let sealing: SymmetricKey
    /// HMAC-SHA256 under the `chunk-id` key.
    let chunkIDMAC: KeyedSHA256
    /// The key the epoch's gear table is drawn from.
    public let chunkerKey: SymmetricKey
    /// The epoch's gear table (`GearTable(key: chunkerKey)`), drawn once.
    public let gearTable: GearTable

    /// The keys of `epoch` from its secret (32 bytes; `invalidKey` otherwise).
    public init(secret: SymmetricKey, epoch: UInt32) throws(EncryptionError) {
        guard secret.bitCount == 256 else { throw EncryptionError(.malformed, "a folder epoch's secret is \(secret.bitCount / 8) bytes, not 32") }
        self.epoch = epoch
        sealing = Self.derive(secret, "seal")
        chunkIDMAC = KeyedSHA256(key: Self.derive(secret, "chunk-id"))
        chunkerKey = Self.derive(secret, "chunker")
        gearTable = GearTable(key: chunkerKey)
    }

    /// A new random epoch secret.
    public static func newSecret() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// HKDF-SHA256 of `secret`, salt `docsync/1`, info `label`, 32 bytes.
    static func derive(_ secret: SymmetricKey, _ label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: Array("docsync/1".utf8), info: Array(label.utf8), outputByteCount: 32)
    }
}
