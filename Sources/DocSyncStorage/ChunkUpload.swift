import DocSyncCore
import Foundation

/// One chunk to store: its bytes and the digest they must hash to.
///
/// A plain chunk's `digest` is the SHA-256 of its bytes. A sealed chunk (SPEC §13) is
/// stored under its id, a keyed MAC of content the store never sees, and carries
/// `bodyDigest`, the SHA-256 of its bytes (the sealed body): every store keeps it beside the
/// chunk and checks the bytes against it on upload and on every read, so a sealed chunk
/// damaged at rest is `chunkCorrupt` as a plain one is.
public struct ChunkUpload: Sendable, Hashable {
    public var digest: SHA256Digest
    public var bytes: Data
    /// Set by a caller in this process that computed `bytesDigest` from these very bytes, or
    /// checked it against them: a backend storing them in this process (the embedded one)
    /// then does not hash them a second time. Bytes that cross a process boundary are hashed
    /// by whoever receives them, whatever this says, and every backend checks each chunk it
    /// serves, so a wrong promise costs a refetch, never wrong content.
    public var isVerified: Bool
    /// A sealed chunk's (SPEC §13): the SHA-256 of `bytes`, since its `digest` is a keyed
    /// MAC of the content the store never sees. The store checks the bytes against it on
    /// upload and on every read, so damage is still `chunkCorrupt`. `nil` for a plain chunk,
    /// whose `digest` is the SHA-256 of its bytes.
    public var bodyDigest: SHA256Digest?

    public init(digest: SHA256Digest, bytes: Data, isVerified: Bool = false, bodyDigest: SHA256Digest? = nil) {
        self.digest = digest
        self.bytes = bytes
        self.isVerified = isVerified
        self.bodyDigest = bodyDigest
    }

    /// The upload of a sealed chunk: its MAC id, its sealed body and that body's SHA-256.
    /// `isVerified`: `sealChunk` computed the digest from this very body in this process, so
    /// a store in this process (the embedded one) does not hash it again; a server does.
    public init(sealed chunk: SealedChunk) {
        self.init(digest: chunk.id, bytes: chunk.body, isVerified: true, bodyDigest: chunk.bodyDigest)
    }

    /// The SHA-256 `bytes` must have: `bodyDigest` for a sealed chunk, `digest` for a plain one.
    public var bytesDigest: SHA256Digest { bodyDigest ?? digest }

    /// Checks the chunk before a store keeps it. Throws `limitExceeded` when it is longer
    /// than `StorageLimits.maximumChunkSize`, and `chunkDigestMismatch` (naming `digest`)
    /// when its bytes do not hash to `bytesDigest`. They are hashed unless `isVerified` and
    /// `trustingPromise` (a store in another process than the caller's passes false).
    public func checkBeforeStoring(trustingPromise: Bool = true) throws(SyncError) {
        guard bytes.count <= StorageLimits.maximumChunkSize else {
            throw SyncError(.limitExceeded, "chunk \(digest.shortHex) is \(bytes.count) bytes, more than the \(StorageLimits.maximumChunkSize) allowed; chunk the content again",
                            digest: digest)
        }
        guard (isVerified && trustingPromise) || SHA256Digest(hashing: bytes) == bytesDigest else {
            if let bodyDigest {
                throw SyncError(.chunkDigestMismatch,
                                "the body of sealed chunk \(digest.shortHex) does not hash to the SHA-256 sent with it (\(bodyDigest.shortHex)); nothing was stored: seal the content again and resend",
                                digest: digest)
            }
            throw SyncError(.chunkDigestMismatch, "chunk bytes do not hash to \(digest.shortHex); nothing was stored: read the content again and resend", digest: digest)
        }
    }
}

extension SyncError {
    /// The `chunkCorrupt` of a stored chunk `digest` whose bytes no longer hash to what was
    /// checked on upload (its digest, or a sealed chunk's body digest); `place` says where
    /// they lie, for the operator.
    public static func storedChunkCorrupt(_ digest: SHA256Digest, sealed: Bool, at place: String? = nil) -> SyncError {
        let kind = sealed ? "sealed chunk" : "chunk", check = sealed ? "body digest" : "digest"
        return SyncError(.chunkCorrupt, "stored \(kind) \(digest.shortHex) does not match its \(check)\(place.map { " (\($0))" } ?? ""); it must be uploaded again",
                         digest: digest)
    }
}
