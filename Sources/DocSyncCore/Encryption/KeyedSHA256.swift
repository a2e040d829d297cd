import Crypto

/// HMAC-SHA256 (RFC 2104) under one key, with the key's inner and outer blocks hashed once
/// when made: each MAC then hashes only the message and one outer block. The same MAC as
/// `HMAC<SHA256>` under that key (the known-answer tests hold both to RFC 4231's vectors),
/// without its per-call key set-up — a chunk id is computed for every chunk read or
/// received. Safe to share between threads (each call copies the states it starts from).
struct KeyedSHA256: Sendable {
    private let inner: SHA256
    private let outer: SHA256

    init(key: SymmetricKey) {
        var block = [UInt8](repeating: 0, count: 64)
        key.withUnsafeBytes { raw in
            if raw.count > block.count {
                SHA256.hash(data: raw).withUnsafeBytes { digest in block.replaceSubrange(0..<digest.count, with: digest) }
            } else {
                block.replaceSubrange(0..<raw.count, with: raw)
            }
        }
        var inner = SHA256(), outer = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        outer.update(data: block.map { $0 ^ 0x5c })
        self.inner = inner
        self.outer = outer
    }

    /// The MAC of `message`.
    func code(of message: UnsafeRawBufferPointer) -> SHA256Digest {
        var inner = self.inner
        inner.update(bufferPointer: message)
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return SHA256Digest(outer.finalize())
    }
}
