import Crypto
@testable import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The chunk-id MAC with its key blocks hashed once (`KeyedSHA256`) is HMAC-SHA256: RFC
/// 4231's vectors, and the same codes as swift-crypto's `HMAC<SHA256>` for seeded keys and
/// messages of every length around the block size.
@Suite struct KeyedSHA256Tests {
    static func hex(_ text: String) -> Data {
        var bytes = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// RFC 4231 §4: test cases 1, 2, 3, 4, 6 and 7 (5 truncates its output), HMAC-SHA-256.
    static let vectors: [(key: Data, message: Data, mac: String)] = [
        (hex(String(repeating: "0b", count: 20)), Data("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Data("Jefe".utf8), Data("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (hex(String(repeating: "aa", count: 20)), hex(String(repeating: "dd", count: 50)),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), hex(String(repeating: "cd", count: 50)),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (hex(String(repeating: "aa", count: 131)), Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (hex(String(repeating: "aa", count: 131)),
         Data("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: 0..<vectors.count) func rfc4231(_ index: Int) {
        let vector = Self.vectors[index]
        let mac = vector.message.withUnsafeBytes { KeyedSHA256(key: SymmetricKey(data: vector.key)).code(of: $0) }
        #expect(mac.hex == vector.mac)
    }

    @Test func theSameCodesAsSwiftCryptosHMAC() {
        var random = SeededRandom(seed: 4231)
        for _ in 0..<200 {
            let key = SymmetricKey(data: random.bytes(Int.random(in: 1...150, using: &random)))
            let message = Data(random.bytes(Int.random(in: 0...300, using: &random)))
            let keyed = KeyedSHA256(key: key)
            let expected = SHA256Digest(bytes: Array(HMAC<SHA256>.authenticationCode(for: message, using: key)))!
            #expect(message.withUnsafeBytes { keyed.code(of: $0) } == expected, "key of \(key.bitCount / 8) bytes, message of \(message.count)")
            // The precomputed states are copied, not consumed: the same key gives the same code again.
            #expect(message.withUnsafeBytes { keyed.code(of: $0) } == expected)
        }
    }
}
