import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Random AES-GCM nonces (96 bits) drawn from the kernel's random source 4 KiB at a time,
/// so sealing a chunk costs no system call of its own (`AES.GCM.Nonce()` makes one per
/// nonce). Every nonce is fresh randomness, handed out once; bytes given out are wiped
/// from the buffer. Safe to share between threads.
final class NonceSource: Sendable {
    /// The source every sealing in this process draws from.
    static let shared = NonceSource()

    private struct Pool: ~Copyable {
        var bytes = [UInt8](repeating: 0, count: 4_096)
        var next = 4_096
    }
    private let pool = Mutex(Pool())

    /// A nonce no other call returns.
    func nonce() -> AES.GCM.Nonce {
        let drawn: [UInt8] = pool.withLock { pool in
            if pool.next + 12 > pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { Self.fill($0) }
                pool.next = 0
            }
            let range = pool.next..<pool.next + 12
            let bytes = Array(pool.bytes[range])
            pool.bytes.replaceSubrange(range, with: repeatElement(0, count: 12))
            pool.next += 12
            return bytes
        }
        // Twelve bytes are a valid nonce.
        return try! AES.GCM.Nonce(data: drawn)
    }

    /// Fills `buffer` from the kernel's random source (`getentropy`, 256 bytes a call,
    /// blocking only until the source is seeded at boot). A source that cannot be read stops
    /// the process: sealing with a nonce that is not random would be worse.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var filled = 0
        while filled < buffer.count {
            let count = min(256, buffer.count - filled)
            guard getentropy(buffer.baseAddress! + filled, count) == 0 else {
                fatalError("the kernel's random source cannot be read (errno \(errno)); no nonce can be drawn")
            }
            filled += count
        }
    }
}
