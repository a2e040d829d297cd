import Crypto
import Foundation

/// How the key directory names a device (SPEC §13): 20 hexadecimal digits of
/// SHA-256(`"docsync/1 device"` ‖ its 64 public bytes). The device's name is sealed for the
/// account (`DeviceAnnouncement`), so the server sees neither names nor how they relate.
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let text: String

    /// The id of the device holding `keys`.
    public init(_ keys: PublicKeys) {
        var input = Array("docsync/1 device".utf8)
        input.append(contentsOf: keys.bytes)
        text = SHA256.hash(data: input).prefix(10).map { String(format: "%02x", $0) }.joined()
    }

    init?(text: String) {
        guard text.utf8.count == 20, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.text = text
    }

    public var description: String { text }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.text < rhs.text }
}
