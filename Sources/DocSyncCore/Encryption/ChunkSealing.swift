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
        chunkIDMAC.code(of: content)
    }

    /// The id of a chunk whose content is `content`: HMAC-SHA256 under this epoch's key.
    public func chunkID(of content: Data) -> SHA256Digest {
        content.withUnsafeBytes { chunkIDMAC.code(of: $0) }
    }

    /// Seals `content` as the chunk `id` of `zone` (the zone's name on the wire). `nonce` is
    /// random unless given (known-answer tests only: a nonce must never repeat under a key).
    public func sealChunk<D: DataProtocol>(_ content: D, id: SHA256Digest, zone: ZoneID, nonce: AES.GCM.Nonce? = nil) -> SealedChunk {
        let body = seal(content, nonce: nonce) { suite, epoch in Self.chunkAssociatedData(suite, zone, epoch, id) }
        return SealedChunk(id: id, body: body, bodyDigest: body.withUnsafeBytes { SHA256Digest(hashing: $0) })
    }

    /// The content of the sealed chunk `body` stored as `id` in `zone`, once it authenticates
    /// and its content's MAC is `id`; `authenticationFailed` otherwise. The body's epoch must
    /// be this one (`FolderKeyring.openChunk` picks the epoch).
    public func openChunk(_ body: Data, id: SHA256Digest, zone: ZoneID) throws(EncryptionError) -> Data {
        let content = try open(body, what: "the sealed chunk \(id.shortHex)",
                               refusal: "the chunk \(id.shortHex) does not authenticate: changed, or stored under another id or zone") { suite, epoch in
            Self.chunkAssociatedData(suite, zone, epoch, id)
        }.plaintext
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
