import Crypto
import Foundation

/// A record of an encrypted folder as the server holds it (SPEC §13): every private field
/// (name, path, kind, size, times, mode, digests, manifest, link target, device, account) is
/// in one sealed blob,
/// `suite (1) ‖ epoch (4) ‖ nonce (12) ‖ AES-256-GCM(version (8) ‖ compact record) ‖ tag (16)`,
/// with associated data `"docsync/1 record" ‖ suite ‖ zone ‖ record name ‖ visible type ‖ epoch`.
/// A blob moved to another record or zone, or changed, does not open; `version` only grows
/// for an item, so a device that saw version n refuses anything older (a replay).
public struct OpenedRecord: Hashable, Sendable {
    /// The record as the device that sealed it wrote it: its id is the folder's, not the wire's.
    public var record: Record
    public var version: UInt64
    public var epoch: UInt32
    public var suite: CipherSuite
}

extension FolderEpochKeys {
    /// Seals `record`'s fields as `version` of the record `recordName` in the wire zone
    /// `zone`, whose server-visible type is `visibleType`. `nonce` as in `sealChunk`.
    public func sealRecord(_ record: Record, version: UInt64, zone: ZoneID, visibleType: String,
                           nonce: AES.GCM.Nonce? = nil) -> Data {
        var plaintext = SealedLayout(label: "")
        plaintext.uint64(version)
        plaintext.raw(CompactCoding.encode(record))
        return seal(plaintext.bytes, nonce: nonce) { suite, epoch in
            Self.recordAssociatedData(suite, zone, record.id.recordName, visibleType, epoch)
        }
    }

    /// The record sealed in `blob` as `recordName` of the wire zone `zone` with the visible
    /// type `visibleType`; `authenticationFailed` when it does not open there, or holds
    /// another record name.
    public func openRecord(_ blob: Data, recordName: String, zone: ZoneID, visibleType: String) throws(EncryptionError) -> OpenedRecord {
        let (suite, plaintext) = try open(blob, what: "the sealed record \(recordName)",
                                          refusal: "the record \(recordName) does not authenticate: changed, or moved from another record or zone") { suite, epoch in
            Self.recordAssociatedData(suite, zone, recordName, visibleType, epoch)
        }
        var fields = SealedReader(plaintext, what: "the record \(recordName)'s sealed fields")
        let version = try fields.uint64()
        let record: Record
        do { record = try CompactCoding.decodeRecord(Data(fields.rest())) } catch {
            throw EncryptionError(.malformed, "the record \(recordName)'s sealed fields do not decode: \(error)")
        }
        guard record.id.recordName == recordName else {
            throw EncryptionError(.authenticationFailed, "the blob of \(recordName) holds the record \(record.id.recordName)")
        }
        return OpenedRecord(record: record, version: version, epoch: epoch, suite: suite)
    }

    static func recordAssociatedData(_ suite: CipherSuite, _ zone: ZoneID, _ recordName: String, _ visibleType: String, _ epoch: UInt32) -> [UInt8] {
        var data = SealedLayout(label: "docsync/1 record")
        data.byte(suite.rawValue)
        data.string(zone.name)
        data.string(recordName)
        data.string(visibleType)
        data.uint32(epoch)
        return data.bytes
    }
}
