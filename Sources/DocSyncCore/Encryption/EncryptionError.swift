/// Why sealed data could not be read or written (SPEC §13). A device that meets one writes
/// nothing to the folder for that item, shows the message, and keeps syncing the rest.
public struct EncryptionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The bytes do not authenticate under the key and associated data they claim: they
        /// were changed, moved to another record, zone or chunk id, or sealed by someone else.
        case authenticationFailed
        /// A cipher suite this version does not know.
        case unsupportedSuite
        /// An older suite than the folder uses, or a plain record where the folder is encrypted.
        case downgraded
        /// A sealed record older than one already seen for the same item (a replay).
        case rolledBack
        /// The epoch's key is not among those this device holds.
        case missingKey
        /// Not the layout of any sealed form (truncated, wrong lengths, bad text).
        case malformed
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
