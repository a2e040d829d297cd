import Crypto
@testable import DocSyncCore
import Foundation
import Testing

/// Nonces drawn a buffer at a time are each handed out once: distinct across several
/// refills and from several threads at once, and every one is 12 bytes of randomness.
@Suite struct NonceSourceTests {
    @Test func everyNonceIsDistinctAcrossRefillsAndThreads() async {
        let source = NonceSource()
        // 4 tasks × 1,000 nonces: about 12 refills of the 4 KiB buffer, drawn concurrently.
        let drawn = await withTaskGroup(of: [Data].self) { group in
            for _ in 0..<4 { group.addTask { (0..<1_000).map { _ in Data(source.nonce()) } } }
            var all: [Data] = []
            for await part in group { all += part }
            return all
        }
        #expect(drawn.count == 4_000)
        #expect(Set(drawn).count == drawn.count, "a nonce was handed out twice")
        #expect(drawn.allSatisfy { $0.count == 12 })
        // Random bytes: about one byte in 256 is zero, never a whole nonce of them (the wiped buffer).
        let zeros = drawn.reduce(0) { $0 + $1.filter { $0 == 0 }.count }
        #expect(zeros < 4_000 * 12 / 64, "\(zeros) zero bytes in \(4_000 * 12)")
    }
}
