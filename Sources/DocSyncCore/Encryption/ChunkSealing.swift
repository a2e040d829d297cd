import Crypto
import Foundation

/// A chunk as an encrypted folder stores it (SPEC §13): its id is the HMAC-SHA256 of its
/// content under the epoch's `chunk-id` key, and its body is
/// `suite (1) ‖ epoch (4) ‖ nonce (12) ‖ AES-256-GCM ciphertext ‖ tag (16)` with associated
/// data `"docsync/1 chunk" ‖ suite ‖ zone ‖ epoch ‖ id` — so a body moved to another id or
/// zone, or changed, does not open. `bodyDigest` (SHA-256 of the body) is what the server
/// verifies on upload and on read; it learns nothing of the content from either.
public struct SealedChunk: Hashable, Sendable {
    public var id: SHA256Digest
    public var body: Data
    public var bodyDigest: SHA256Digest

    /// Bytes a body adds to its content: suite, epoch, nonce and tag.
    public static let overhead = 1 + 4 + 12 + 16
}

extension FolderEpochKeys {
    /// The id of a chunk whose content is `content`: HMAC-SHA256 under this epoch's key.
    public func chunkID(of content: UnsafeRawBufferPointer) -> SHA256Digest {
        SHA256Digest(bytes: Array(HMAC<SHA256>.authenticationCode(for: content, using: chunkIDKey)))!
    }

    /// `chunkID(of:)` of bytes in any container.
    public func chunkID<D: DataProtocol>(of content: D) -> SHA256Digest {
        SHA256Digest(bytes: Array(HMAC<SHA256>.authenticationCode(for: content, using: chunkIDKey)))!
    }

    /// Seals `content` as the chunk `id` of `zone` (the zone's name on the wire). `nonce` is
    /// random unless given (known-answer tests only: a nonce must never repeat under a key).
    public func sealChunk<D: DataProtocol>(_ content: D, id: SHA256Digest, zone: ZoneID, nonce: AES.GCM.Nonce = AES.GCM.Nonce()) -> SealedChunk {
        let suite = CipherSuite.current
        // Sealing with a valid key and nonce cannot fail.
        let box = try! AES.GCM.seal(content, using: sealing, nonce: nonce, authenticating: Self.chunkAssociatedData(suite, zone, epoch, id))
        var body = Data(capacity: SealedChunk.overhead + content.count)
        body.append(suite.rawValue)
        withUnsafeBytes(of: epoch.bigEndian) { body.append(contentsOf: $0) }
        body.append(box.combined!)
        return SealedChunk(id: id, body: body, bodyDigest: SHA256Digest(hashing: body))
    }

    /// The content of the sealed chunk `body` stored as `id` in `zone`, once it authenticates
    /// and its content's MAC is `id`; `authenticationFailed` otherwise. The body's epoch must
    /// be this one (`FolderKeyring.openChunk` picks the epoch).
    public func openChunk(_ body: Data, id: SHA256Digest, zone: ZoneID) throws(EncryptionError) -> Data {
        var reader = SealedReader(body, what: "the sealed chunk \(id.shortHex)")
        let suite = try CipherSuite(byte: try reader.byte())
        let epoch = try reader.uint32()
        guard epoch == self.epoch else { throw EncryptionError(.missingKey, "the chunk \(id.shortHex) is of epoch \(epoch), not \(self.epoch)") }
        guard reader.remaining >= 12 + 16 else { throw EncryptionError(.malformed, "the sealed chunk \(id.shortHex) is truncated") }
        let content: Data
        do {
            let box = try AES.GCM.SealedBox(combined: reader.rest())
            content = try AES.GCM.open(box, using: sealing, authenticating: Self.chunkAssociatedData(suite, zone, epoch, id))
        } catch {
            throw EncryptionError(.authenticationFailed, "the chunk \(id.shortHex) does not authenticate: changed, or stored under another id or zone")
        }
        guard chunkID(of: content) == id else {
            throw EncryptionError(.authenticationFailed, "the chunk \(id.shortHex) holds content whose id is another")
        }
        return content
    }

    static func chunkAssociatedData(_ suite: CipherSuite, _ zone: ZoneID, _ epoch: UInt32, _ id: SHA256Digest) -> [UInt8] {
        var data = SealedLayout(label: "docsync/1 chunk")
        data.byte(suite.rawValue)
        data.string(zone.name)
        data.uint32(epoch)
        data.digest(id)
        return data.bytes
    }
}
