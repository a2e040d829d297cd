import DocSyncCore
import Foundation

/// A device's bearer token and what the server keeps of it.
///
/// A token is 32 random bytes written in base64url without padding (43 characters). The
/// server stores only its SHA-256 (`hash`), so a copy of the data directory does not hand
/// out working tokens; comparisons of hashes take the same time whatever bytes differ.
public enum AccessToken {
    /// A new token from the system's secure random generator.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0 ..< 32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    /// The SHA-256 of the token's UTF-8 bytes, as lowercase hex: what the user store keeps.
    public static func hash(_ token: String) -> String {
        SHA256Digest(hashing: Array(token.utf8)).hex
    }

    /// Whether two hashes are equal, looking at every byte whatever the first difference.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// Base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
