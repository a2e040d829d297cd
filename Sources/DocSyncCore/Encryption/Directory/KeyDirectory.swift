import Crypto
import Foundation

/// An account's key directory as its devices read it from the server (SPEC §13): the
/// key-value store `docsync.keys` (zone `~docsync.keys`), whose values are
///
/// | key | value | written by |
/// |---|---|---|
/// | `account` | `{"statement"}`: the account's public keys of generation G (subject `account:G`), self-signed | the device that turned encryption on, or removed a device |
/// | `a.G` | `{"statement"}`: generation G's public keys, signed by generation G-1's | the device that removed a device |
/// | `recovery` | `{"statement", "wrap"}`: the recovery key's public key, signed, and the account keys wrapped for it | turning on, `recovery-key --new`, removing a device |
/// | `d.ID` | `{"publicKeys", "name"}`: a device's public keys and its name wrapped for the account | each device, for itself |
/// | `t.ID` | `{"statement", "wrap"}`: "device ID is trusted", signed by the account, and the account keys wrapped for it | a trusted device approving it |
/// | `f.ZONE.EPOCH` | `{"statement"}`: the epoch's secret wrapped for the account, signed by the account | trusted devices |
///
/// Everything a device acts on is signed by the account or opened with a key it holds; the
/// rest (announcements, the account's public keys for a device not approved yet) is
/// checked by the person comparing the `ApprovalCode`. Reading never throws: a value that
/// is not what its key says is ignored.
public struct KeyDirectory: Sendable, Equatable {
    /// The key-value store that holds it (reserved: no application may use it).
    public static let storeName = "docsync.keys"

    /// The values, by key.
    public private(set) var values: [String: JSONValue]

    public init(values: [String: JSONValue] = [:]) { self.values = values }

    /// Applies `writes` (a `nil` removes the key), as the server will once they are saved.
    public mutating func apply(_ writes: KeyDirectoryWrites) {
        for (key, value) in writes.values { values[key] = value }
    }

    // MARK: keys

    public static let accountKey = "account"
    public static let recoveryKey = "recovery"
    static func linkKey(_ generation: UInt32) -> String { "a.\(generation)" }
    static func announcementKey(_ id: DeviceID) -> String { "d.\(id)" }
    static func trustKey(_ id: DeviceID) -> String { "t.\(id)" }
    static func folderKey(_ zone: ZoneID, _ epoch: UInt32) -> String { "f.\(zone.name).\(epoch)" }

    // MARK: reading

    /// Whether encryption was turned on for the account (its statement is there).
    public var isEncrypted: Bool { values[Self.accountKey] != nil }

    /// The account's public keys and their generation, as the account signed them; `nil`
    /// when there are none, `authenticationFailed` or `malformed` when the statement does
    /// not hold.
    public func account() throws(EncryptionError) -> (keys: PublicKeys, generation: UInt32)? {
        guard let value = values[Self.accountKey] else { return nil }
        let statement = try KeyStatement(json: value.field("statement"))
        let keys = try PublicKeys(bytes: statement.payload)
        guard statement.subject.hasPrefix("account:"), let generation = UInt32(statement.subject.dropFirst("account:".count)), generation >= 1 else {
            throw EncryptionError(.malformed, "the account's statement names no generation")
        }
        _ = try statement.verified(by: keys.signing, kind: .accountKeys, subject: "account:\(generation)")
        return (keys, generation)
    }

    /// The account's public keys (`account()` without the generation).
    public func accountPublicKeys() throws(EncryptionError) -> PublicKeys? { try account()?.keys }

    /// Generation `generation`'s public keys as generation `generation - 1` (`previous`)
    /// signed them, `nil` when the link is missing or not signed by `previous`.
    func link(to generation: UInt32, from previous: PublicKeys) -> PublicKeys? {
        guard let value = values[Self.linkKey(generation)], let statement = try? KeyStatement(json: value.field("statement")),
              let payload = try? statement.verified(by: previous.signing, kind: .accountKeys, subject: "account:\(generation)") else { return nil }
        return try? PublicKeys(bytes: payload)
    }

    /// The keys of generation `target`, reached from `known` (of generation `from`) by
    /// links each signed by the generation before; `nil` when a link is missing or forged.
    public func chain(from known: PublicKeys, generation from: UInt32, to target: UInt32) -> PublicKeys? {
        var keys = known
        for generation in stride(from: from + 1, through: target, by: 1) {
            guard let next = link(to: generation, from: keys) else { return nil }
            keys = next
        }
        return keys
    }

    /// The recovery key's public key, as the account (`account`, of `generation`) signed it.
    func recoveryPublicKey(signedBy account: PublicKeys, generation: UInt32) -> Curve25519.KeyAgreement.PublicKey? {
        guard let value = values[Self.recoveryKey], let statement = try? KeyStatement(json: value.field("statement")),
              let payload = try? statement.verified(by: account.signing, kind: .accountKeys, subject: "recovery:\(generation)") else { return nil }
        return try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: payload)
    }

    /// The account keys wrapped for the recovery key, if any.
    public var recoveryWrap: Data? { values[Self.recoveryKey]?.field("wrap").base64Bytes }

    /// Every device that announced itself, by id (those whose entry is not one are left out).
    public var announcements: [DeviceID: DeviceAnnouncement] {
        var found: [DeviceID: DeviceAnnouncement] = [:]
        for (key, value) in values where key.hasPrefix("d.") {
            guard let id = DeviceID(text: String(key.dropFirst(2))),
                  let keys = value.field("publicKeys").base64Bytes.flatMap({ try? PublicKeys(bytes: $0) }),
                  DeviceID(keys) == id, let name = value.field("name").base64Bytes else { continue }
            found[id] = DeviceAnnouncement(id: id, publicKeys: keys, sealedName: name)
        }
        return found
    }

    /// The ids of the devices the server says are trusted (each still checked by its signature).
    public var trustedIDs: [DeviceID] {
        values.keys.filter { $0.hasPrefix("t.") }.compactMap { DeviceID(text: String($0.dropFirst(2))) }.sorted()
    }

    /// The trust entry of `id`: the signed statement and the wrapped account keys.
    func trust(of id: DeviceID) -> (statement: KeyStatement, wrap: Data)? {
        guard let value = values[Self.trustKey(id)], let statement = try? KeyStatement(json: value.field("statement")),
              let wrap = value.field("wrap").base64Bytes else { return nil }
        return (statement, wrap)
    }

    /// The signed statements of every epoch of `zone`, by epoch.
    func folderStatements(of zone: ZoneID) -> [UInt32: KeyStatement] {
        let prefix = "f.\(zone.name)."
        var found: [UInt32: KeyStatement] = [:]
        for (key, value) in values where key.hasPrefix(prefix) {
            guard let epoch = UInt32(key.dropFirst(prefix.count)), let statement = try? KeyStatement(json: value.field("statement")) else { continue }
            found[epoch] = statement
        }
        return found
    }

    /// The zones that have folder keys.
    public var zonesWithKeys: Set<ZoneID> {
        Set(values.keys.filter { $0.hasPrefix("f.") }.compactMap { key -> ZoneID? in
            let rest = key.dropFirst(2)
            guard let dot = rest.lastIndex(of: ".") else { return nil }
            return ZoneID(String(rest[..<dot]))
        })
    }
}

/// What a device publishes about itself: its public keys, and its name wrapped for the
/// account (only the account's devices can read it).
public struct DeviceAnnouncement: Sendable, Equatable {
    public let id: DeviceID
    public let publicKeys: PublicKeys
    public let sealedName: Data
}

/// Values to write to the key directory (a `nil` removes the key).
public struct KeyDirectoryWrites: Sendable, Equatable {
    public var values: [String: JSONValue?] = [:]

    public init() {}

    public mutating func merge(_ other: KeyDirectoryWrites) { values.merge(other.values) { _, new in new } }
    public var isEmpty: Bool { values.isEmpty }
}

extension JSONValue {
    /// The field `name` of an object, `.null` for anything else.
    func field(_ name: String) -> JSONValue {
        if case let .object(fields) = self { fields[name] ?? .null } else { .null }
    }
}
