import Crypto
import Foundation

/// SHA-256 over data that arrives in pieces (a file written chunk by chunk).
public struct StreamingSHA256: Sendable {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ data: Data) { hasher.update(data: data) }

    /// The digest of everything given so far.
    public func finalize() -> SHA256Digest { SHA256Digest(hasher.finalize()) }
}
