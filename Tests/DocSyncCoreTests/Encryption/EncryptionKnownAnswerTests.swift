import Crypto
import DocSyncCore
import Foundation
import Testing

/// Every construction of the encryption format (SPEC §13) gives exactly the bytes that
/// Tests/Encryption/known_answers.py computes with Python's `cryptography` from the format
/// the README describes, and opens them: two implementations agree on every byte.
@Suite struct EncryptionKnownAnswerTests {
    struct Vectors {
        let json: [String: Any]

        init() throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/encryption-vectors.json")
            json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        }

        func section(_ name: String) throws -> [String: Any] { try #require(json[name] as? [String: Any]) }
        func string(_ section: String, _ key: String) throws -> String { try #require(try self.section(section)[key] as? String) }
        func bytes(_ section: String, _ key: String) throws -> Data { try Self.hex(try string(section, key)) }

        static func hex(_ text: String) throws -> Data {
            var data = Data()
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                data.append(try #require(UInt8(text[index..<next], radix: 16)))
                index = next
            }
            return data
        }

        var secret: SymmetricKey { get throws { SymmetricKey(data: try Self.hex(try #require(json["secret"] as? String))) } }
        var epoch: UInt32 { get throws { UInt32(try #require(json["epoch"] as? Int)) } }
        var zone: ZoneID { get throws { ZoneID(try #require(json["zone"] as? String)) } }
        var keys: FolderEpochKeys { get throws { try FolderEpochKeys(secret: try secret, epoch: try epoch) } }
        var account: EncryptionKeyPair { get throws { try EncryptionKeyPair(privateBytes: try bytes("keys", "agreementPrivate") + bytes("keys", "signingPrivate")) } }
    }

    static func nonce(_ data: Data) throws -> AES.GCM.Nonce { try AES.GCM.Nonce(data: data) }

    @Test func theGearTableIsDrawnFromTheChunkerKey() throws {
        let vectors = try Vectors()
        let table = GearTable(key: try vectors.keys.chunkerKey)
        #expect(String(table.values[0], radix: 16).leftPadded(16) == (try vectors.string("gear", "first")))
        #expect(String(table.values[255], radix: 16).leftPadded(16) == (try vectors.string("gear", "last")))
        #expect(table.values != GearTable.standard.values)
    }

    @Test func aChunkIsNamedByItsMACAndSealedToTheKnownBytes() throws {
        let vectors = try Vectors()
        let keys = try vectors.keys, zone = try vectors.zone
        let content = try vectors.bytes("chunk", "content")
        let id = keys.chunkID(of: content)
        #expect(id.hex == (try vectors.string("chunk", "id")))
        let sealed = keys.sealChunk(content, id: id, zone: zone, nonce: try Self.nonce(try vectors.bytes("chunk", "nonce")))
        #expect(sealed.body == (try vectors.bytes("chunk", "body")))
        #expect(sealed.bodyDigest.hex == (try vectors.string("chunk", "bodyDigest")))
        #expect(try keys.openChunk(sealed.body, id: id, zone: zone) == content)
        #expect(sealed.body.count == content.count + SealedChunk.overhead)
    }

    @Test func aRecordIsSealedToTheKnownBytes() throws {
        let vectors = try Vectors()
        let keys = try vectors.keys, zone = try vectors.zone
        let record = try #require(RecordFixtures.all.first { $0.name == (try vectors.string("record", "fixture")) }).record
        let version = UInt64(try #require(try vectors.section("record")["version"] as? Int))
        let visibleType = try vectors.string("record", "visibleType")
        let blob = keys.sealRecord(record, version: version, zone: zone, visibleType: visibleType,
                                   nonce: try Self.nonce(try vectors.bytes("record", "nonce")))
        #expect(blob == (try vectors.bytes("record", "blob")))
        let opened = try keys.openRecord(blob, recordName: record.id.recordName, zone: zone, visibleType: visibleType)
        let epoch = try vectors.epoch
        #expect(opened.record == record && opened.version == version && opened.epoch == epoch && opened.suite == .v1)
    }

    @Test func keysHaveTheKnownPublicHalvesAndFingerprint() throws {
        let vectors = try Vectors()
        let account = try vectors.account
        #expect(account.publicKeys.bytes == (try vectors.bytes("keys", "public")))
        #expect(account.publicKeys.fingerprint == (try vectors.string("keys", "fingerprint")))
        #expect(account.publicKeys.hasFingerprint((try vectors.string("keys", "fingerprint")).replacingOccurrences(of: " ", with: "-")))
        #expect(try PublicKeys(bytes: account.publicKeys.bytes) == account.publicKeys)
    }

    @Test func aFolderSecretIsWrappedForAPublicKeyToTheKnownBytes() throws {
        let vectors = try Vectors()
        let account = try vectors.account
        let ephemeral = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try vectors.bytes("wrap", "ephemeralPrivate"))
        let context = try vectors.string("wrap", "context")
        let secret = try Vectors.hex(try #require(vectors.json["secret"] as? String))
        let wrapped = try KeyWrap.wrap(secret, for: account.agreement.publicKey, context: context, ephemeral: ephemeral,
                                   nonce: try Self.nonce(try vectors.bytes("wrap", "nonce")))
        #expect(wrapped == (try vectors.bytes("wrap", "wrapped")))
        #expect(try KeyWrap.unwrap(wrapped, with: account.agreement, context: context) == secret)
    }

    @Test func theAccountKeyIsWrappedByTheRecoveryKeyToTheKnownBytes() throws {
        let vectors = try Vectors()
        let recovery = try RecoveryKey(bytes: try vectors.bytes("recovery", "key"))
        #expect(recovery.text == (try vectors.string("recovery", "text")))
        #expect(try RecoveryKey(text: (try vectors.string("recovery", "text")).uppercased().replacingOccurrences(of: "-", with: " ")) == recovery)
        #expect(recovery.agreementKey.publicKey.rawRepresentation == (try vectors.bytes("recovery", "public")))
        let context = try vectors.string("recovery", "context")
        let ephemeral = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try vectors.bytes("recovery", "ephemeralPrivate"))
        let wrapped = try KeyWrap.wrap((try vectors.account).privateBytes, for: recovery.agreementKey.publicKey, context: context,
                                       ephemeral: ephemeral, nonce: try Self.nonce(try vectors.bytes("recovery", "nonce")))
        #expect(wrapped == (try vectors.bytes("recovery", "wrapped")))
        #expect(try KeyWrap.unwrap(wrapped, with: recovery.agreementKey, context: context) == (try vectors.account).privateBytes)
    }

    /// Ed25519 signatures are checked, not compared: an implementation may randomize them.
    @Test func aStatementSignedElsewhereVerifies() throws {
        let vectors = try Vectors()
        let subject = try vectors.string("statement", "subject"), payload = try vectors.bytes("statement", "payload")
        let statement = KeyStatement(suite: .v1, kind: .folderKey, subject: subject, payload: payload,
                                     signature: try vectors.bytes("statement", "signature"))
        #expect(try statement.verified(by: (try vectors.account).signing.publicKey, kind: .folderKey, subject: subject) == payload)
        let ours = KeyStatement(.folderKey, subject: subject, payload: payload, signedBy: (try vectors.account).signing)
        #expect(try ours.verified(by: (try vectors.account).signing.publicKey, kind: .folderKey, subject: subject) == payload)
    }

    @Test func zoneNamesOnTheWireAreTheKnownOpaqueOnes() throws {
        let vectors = try Vectors()
        let names = try #require(vectors.json["zoneNames"] as? [String: String])
        #expect(names.count == 3)
        for (folder, opaque) in names {
            #expect((try vectors.account).opaqueZoneName(for: ZoneID(folder)).name == opaque)
        }
    }
}

extension String {
    /// The string with zeros before it up to `width` characters.
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
