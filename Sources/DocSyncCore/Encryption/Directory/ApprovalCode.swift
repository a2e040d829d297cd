import Crypto
import Foundation

/// What a person compares on a new device and a trusted one before approving it (SPEC
/// §13): 16 decimal digits in groups of four, from SHA-256(`"docsync/1 approval"` ‖ the
/// account's 64 public bytes ‖ the device's 64 public bytes), its first 8 bytes as a
/// big-endian integer modulo 10¹⁶.
///
/// The new device computes it from its own keys and the account keys the server showed it;
/// the trusted device from the account's keys it holds and the device keys the server
/// showed it. A server that substitutes either key makes the two differ, and the approval
/// (which names the code) is refused.
public enum ApprovalCode {
    public static func of(account: PublicKeys, device: PublicKeys) -> String {
        var input = Array("docsync/1 approval".utf8)
        input.append(contentsOf: account.bytes)
        input.append(contentsOf: device.bytes)
        return PublicKeys.digitGroups(of: Array(SHA256.hash(data: input)))
    }

    /// What the owner of a shared encrypted folder and a participant compare (SPEC §13,
    /// `docs-status share FOLDER --with NAME --fingerprint CODE`): the same digits from
    /// SHA-256(`"docsync/1 share"` ‖ the owner account's 64 public bytes ‖ the
    /// participant account's 64 public bytes). The participant computes it from the owner's
    /// keys it pinned and its own, the owner from its own and the participant's keys the
    /// server showed; a server that substitutes either makes the two differ.
    public static func ofShare(owner: PublicKeys, participant: PublicKeys) -> String {
        var input = Array("docsync/1 share".utf8)
        input.append(contentsOf: owner.bytes)
        input.append(contentsOf: participant.bytes)
        return PublicKeys.digitGroups(of: Array(SHA256.hash(data: input)))
    }

    /// Whether `text` is `code`, ignoring spaces and dashes.
    public static func matches(_ text: String, _ code: String) -> Bool {
        text.filter { $0 != " " && $0 != "-" } == code.filter { $0 != " " }
    }
}
