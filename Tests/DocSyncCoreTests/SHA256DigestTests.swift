import DocSyncCore
import Foundation
import Testing

@Suite struct SHA256DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func matchesKnownVectors(input: String, hex: String) {
        let digest = SHA256Digest(hashing: Data(input.utf8))
        #expect(digest.hex == hex)
        #expect(SHA256Digest(hex: hex) == digest)
        #expect(SHA256Digest(hex: hex.uppercased()) == digest)
        #expect(SHA256Digest(bytes: digest.bytes) == digest)
        #expect(digest.shortHex == String(hex.prefix(12)))
    }

    @Test(arguments: ["", "abc", String(repeating: "g", count: 64), String(repeating: "0", count: 63), String(repeating: "0", count: 65)])
    func rejectsMalformedHex(text: String) {
        #expect(SHA256Digest(hex: text) == nil)
    }

    @Test func rejectsWrongByteCounts() {
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 31)) == nil)
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 33)) == nil)
    }

    @Test func codesAsHexStringAndOrdersByBytes() throws {
        let a = SHA256Digest(hashing: Data("a".utf8)), b = SHA256Digest(hashing: Data("b".utf8))
        let json = try JSONEncoder().encode([a, b])
        #expect(String(decoding: json, as: UTF8.self) == "[\"\(a.hex)\",\"\(b.hex)\"]")
        #expect(try JSONDecoder().decode([SHA256Digest].self, from: json) == [a, b])
        #expect((a < b) == (a.hex < b.hex))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SHA256Digest.self, from: Data("\"zz\"".utf8)) }
    }

    @Test(arguments: [
        ("0000000000000001" + String(repeating: "f", count: 48), Int64(1)),
        ("7fffffffffffffff" + String(repeating: "0", count: 48), Int64.max),
        ("8000000000000000" + String(repeating: "1", count: 48), Int64.min),
        ("ffffffffffffffff" + String(repeating: "2", count: 48), Int64(-1)),
        ("0102030405060708" + String(repeating: "3", count: 48), Int64(0x0102030405060708)),
    ])
    func indexKeyIsTheFirstEightBytesAsASignedInteger(hex: String, key: Int64) throws {
        let digest = try #require(SHA256Digest(hex: hex))
        #expect(digest.indexKey == key)
        // Only the first eight bytes count.
        let other = try #require(SHA256Digest(hex: String(hex.prefix(16)) + String(repeating: "a", count: 48)))
        #expect(other != digest && other.indexKey == key)
    }
}
