import Foundation

/// Every epoch's keys of one encrypted folder that this device holds (SPEC §13): it seals
/// with the newest and opens what any of them sealed. An epoch it lacks is `missingKey`
/// (a device or participant removed before that epoch began reads nothing sealed in it).
public struct FolderKeyring: Sendable {
    public private(set) var epochs: [UInt32: FolderEpochKeys]

    /// A keyring of `keys` (at least one).
    public init(_ keys: [FolderEpochKeys]) {
        precondition(!keys.isEmpty, "a keyring holds at least one epoch")
        epochs = Dictionary(keys.map { ($0.epoch, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The newest epoch's keys: what new chunks and records are sealed with.
    public var current: FolderEpochKeys { epochs[epochs.keys.max()!]! }

    /// Adds (or replaces) an epoch's keys.
    public mutating func insert(_ keys: FolderEpochKeys) { epochs[keys.epoch] = keys }

    /// The keys of `epoch`, or `missingKey`.
    public func keys(for epoch: UInt32) throws(EncryptionError) -> FolderEpochKeys {
        guard let keys = epochs[epoch] else {
            throw EncryptionError(.missingKey, "sealed in epoch \(epoch), whose key this device does not hold")
        }
        return keys
    }

    /// Opens a sealed chunk with the keys of the epoch its body names.
    public func openChunk(_ body: Data, id: SHA256Digest, zone: ZoneID) throws(EncryptionError) -> Data {
        try keys(for: try Self.epoch(of: body, what: "the sealed chunk \(id.shortHex)")).openChunk(body, id: id, zone: zone)
    }

    /// Opens a sealed record with the keys of the epoch its blob names.
    public func openRecord(_ blob: Data, recordName: String, zone: ZoneID, visibleType: String) throws(EncryptionError) -> OpenedRecord {
        try keys(for: try Self.epoch(of: blob, what: "the sealed record \(recordName)")).openRecord(blob, recordName: recordName, zone: zone, visibleType: visibleType)
    }

    /// The epoch a sealed form names (after its suite byte, which must be known).
    static func epoch(of sealed: Data, what: @escaping @autoclosure () -> String) throws(EncryptionError) -> UInt32 {
        var reader = SealedReader(sealed, what: what())
        _ = try CipherSuite(byte: try reader.byte())
        return try reader.uint32()
    }
}
