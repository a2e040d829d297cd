import Crypto
import DocSyncCore
import Foundation
import Testing

/// What a malicious server may do to sealed bytes (SPEC §13; the attacks of Albrecht et al.
/// 2024 and Hofmann and Truong 2024), each refused by the opening side with the right kind
/// of error: nothing altered, moved or forged opens.
@Suite struct SealedTamperingTests {
    static let secret = SymmetricKey(data: Data(repeating: 7, count: 32))
    static let keys = try! FolderEpochKeys(secret: secret, epoch: 1)
    static let zone = ZoneID("e.aaaaaaaaaaaaaaaaaaaaaaaaaa"), otherZone = ZoneID("e.bbbbbbbbbbbbbbbbbbbbbbbbbb")

    static func chunk(_ text: String) -> SealedChunk {
        let content = Data(text.utf8)
        return keys.sealChunk(content, id: keys.chunkID(of: content), zone: zone)
    }

    static func flipped(_ data: Data, at offset: Int) -> Data {
        var copy = data
        copy[copy.startIndex + offset] ^= 0x01
        return copy
    }

    enum ChunkAttack: String, CaseIterable, Sendable {
        case flipAContentByte, flipTheTag, flipTheNonce, swapBodiesOfTwoIDs, serveItInAnotherZone, truncate, unknownSuite,
             sealedUnderAnotherFoldersKey, anotherEpoch
    }

    @Test(arguments: ChunkAttack.allCases)
    func aTamperedChunkIsRefused(_ attack: ChunkAttack) throws {
        let mine = Self.chunk("the quarterly figures"), other = Self.chunk("the holiday photos")
        var body = mine.body, zone = Self.zone
        var keyring = FolderKeyring([Self.keys])
        let expected: EncryptionError.Kind
        switch attack {
        case .flipAContentByte: body = Self.flipped(body, at: 20); expected = .authenticationFailed
        case .flipTheTag: body = Self.flipped(body, at: body.count - 1); expected = .authenticationFailed
        case .flipTheNonce: body = Self.flipped(body, at: 6); expected = .authenticationFailed
        case .swapBodiesOfTwoIDs: body = other.body; expected = .authenticationFailed
        case .serveItInAnotherZone: zone = Self.otherZone; expected = .authenticationFailed
        case .truncate: body = body.prefix(10); expected = .malformed
        case .unknownSuite: body[body.startIndex] = 9; expected = .unsupportedSuite
        case .sealedUnderAnotherFoldersKey:
            let stranger = try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
            body = stranger.sealChunk(Data("the quarterly figures".utf8), id: mine.id, zone: Self.zone).body
            expected = .authenticationFailed
        case .anotherEpoch:
            keyring.insert(try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 2))
            body[body.startIndex + 4] = 2  // the epoch field's last byte
            expected = .authenticationFailed
        }
        let caught = #expect(throws: EncryptionError.self) { _ = try keyring.openChunk(body, id: mine.id, zone: zone) }
        #expect(caught?.kind == expected, "\(String(describing: caught))")
        #expect(try keyring.openChunk(mine.body, id: mine.id, zone: Self.zone) == Data("the quarterly figures".utf8))
    }

    enum RecordAttack: String, CaseIterable, Sendable {
        case flipAByte, moveToAnotherRecord, moveToAnotherZone, changeTheVisibleType, truncate, epochWithoutKey
    }

    @Test(arguments: RecordAttack.allCases)
    func aTamperedRecordIsRefused(_ attack: RecordAttack) throws {
        let record = RecordFixtures.all[0].record
        let blob = Self.keys.sealRecord(record, version: 3, zone: Self.zone, visibleType: "Sealed")
        var (opened, name, zone, type) = (blob, record.id.recordName, Self.zone, "Sealed")
        let expected: EncryptionError.Kind
        switch attack {
        case .flipAByte: opened = Self.flipped(blob, at: 30); expected = .authenticationFailed
        case .moveToAnotherRecord: name = "another-record"; expected = .authenticationFailed
        case .moveToAnotherZone: zone = Self.otherZone; expected = .authenticationFailed
        case .changeTheVisibleType: type = "Value"; expected = .authenticationFailed
        case .truncate: opened = blob.prefix(3); expected = .malformed
        case .epochWithoutKey: opened[opened.startIndex + 4] = 9; expected = .missingKey
        }
        let keyring = FolderKeyring([Self.keys])
        let caught = #expect(throws: EncryptionError.self) { _ = try keyring.openRecord(opened, recordName: name, zone: zone, visibleType: type) }
        #expect(caught?.kind == expected, "\(String(describing: caught))")
        #expect(try keyring.openRecord(blob, recordName: record.id.recordName, zone: Self.zone, visibleType: "Sealed").record == record)
    }

    @Test func aWrappedKeyOpensOnlyForItsReaderAndContext() throws {
        let alice = EncryptionKeyPair(), mallory = EncryptionKeyPair()
        let secret = Data(repeating: 3, count: 32)
        let wrapped = try KeyWrap.wrap(secret, for: alice.agreement.publicKey, context: "folder:z:1:alice")
        #expect(try KeyWrap.unwrap(wrapped, with: alice.agreement, context: "folder:z:1:alice") == secret)
        #expect(throws: EncryptionError.self) { _ = try KeyWrap.unwrap(wrapped, with: mallory.agreement, context: "folder:z:1:alice") }
        #expect(throws: EncryptionError.self) { _ = try KeyWrap.unwrap(wrapped, with: alice.agreement, context: "folder:z:2:alice") }
        let recovery = RecoveryKey()
        let byRecovery = try KeyWrap.wrap(secret, for: recovery.agreementKey.publicKey, context: "account")
        #expect(try KeyWrap.unwrap(byRecovery, with: recovery.agreementKey, context: "account") == secret)
        #expect(throws: EncryptionError.self) { _ = try KeyWrap.unwrap(byRecovery, with: RecoveryKey().agreementKey, context: "account") }
        #expect(throws: EncryptionError.self) { _ = try KeyWrap.unwrap(byRecovery, with: alice.agreement, context: "account") }
    }

    /// The server substitutes a wrapped key of its own: unsigned by the account, it is refused.
    @Test func aStatementTheAccountDidNotSignIsRefused() throws {
        let alice = EncryptionKeyPair(), server = EncryptionKeyPair()
        let forged = try KeyWrap.wrap(Data(repeating: 1, count: 32), for: alice.agreement.publicKey, context: "folder:z:1:alice")
        let statement = KeyStatement(.folderKey, subject: "folder:z:1:alice", payload: forged, signedBy: server.signing)
        #expect(throws: EncryptionError.self) { _ = try statement.verified(by: alice.signing.publicKey, kind: .folderKey, subject: "folder:z:1:alice") }
        let genuine = KeyStatement(.folderKey, subject: "folder:z:1:alice", payload: forged, signedBy: alice.signing)
        var swapped = genuine
        swapped.payload = try KeyWrap.wrap(Data(repeating: 2, count: 32), for: alice.agreement.publicKey, context: "folder:z:1:alice")
        #expect(throws: EncryptionError.self) { _ = try swapped.verified(by: alice.signing.publicKey, kind: .folderKey, subject: "folder:z:1:alice") }
        #expect(throws: EncryptionError.self) { _ = try genuine.verified(by: alice.signing.publicKey, kind: .folderKey, subject: "folder:z:1:bob") }
        #expect(throws: EncryptionError.self) { _ = try genuine.verified(by: alice.signing.publicKey, kind: .trustedDevice, subject: "folder:z:1:alice") }
    }

    @Test func aSuiteOlderThanTheFoldersIsADowngrade() throws {
        #expect(try CipherSuite.v1.refusingDowngrade(below: .v1) == .v1)
        #expect(throws: EncryptionError.self) { _ = try CipherSuite(byte: 0) }
        #expect(throws: EncryptionError.self) { _ = try CipherSuite(byte: 2) }
    }

    @Test func aRecoveryKeyWithATypoIsRefused() throws {
        let key = RecoveryKey()
        var letters = Array(key.text)
        letters[5] = letters[5] == "a" ? "b" : "a"
        #expect(throws: EncryptionError.self) { _ = try RecoveryKey(text: String(letters)) }
        #expect(try RecoveryKey(text: key.text) == key)
        #expect(key.text.count == 56 + 13)
    }

    /// Content-defined chunking under an epoch's gear table: boundaries move with the key,
    /// and stay local to an edit as with the standard table.
    @Test func chunkBoundariesDependOnTheKey() throws {
        var random = SplitMix64(seed: 42)
        let data = Data((0..<600_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        func lengths(_ gear: GearTable) -> [Int] {
            var chunker = ContentDefinedChunker(.documents, gear: gear)
            return data.withUnsafeBytes { buffer in
                var lengths: [Int] = [], start = 0
                while start < buffer.count {
                    let length = chunker.nextChunkLength(of: UnsafeRawBufferPointer(rebasing: buffer[start...]))
                    lengths.append(length)
                    start += length
                }
                return lengths
            }
        }
        let plain = lengths(.standard)
        let keyed = lengths(GearTable(key: Self.keys.chunkerKey))
        let otherKeyed = lengths(GearTable(key: try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1).chunkerKey))
        #expect(keyed.reduce(0, +) == data.count && plain.reduce(0, +) == data.count)
        #expect(keyed != plain && keyed != otherKeyed)
        #expect(keyed == lengths(GearTable(key: Self.keys.chunkerKey)), "deterministic for one key")
    }
}

extension SealedTamperingTests {
    /// A public key of low order (here all zeros) agrees no secret: wrapping for it fails
    /// instead of sealing under a key the server could know.
    @Test func aKeyIsNeverWrappedForALowOrderPublicKey() throws {
        let zero = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: Data(repeating: 0, count: 32))
        let caught = #expect(throws: EncryptionError.self) { _ = try KeyWrap.wrap(Data(repeating: 1, count: 32), for: zero, context: "folder:z:1:x") }
        #expect(caught?.kind == .malformed)
    }
}

extension SealedTamperingTests {
    /// A wrapped key whose ephemeral key is of low order would open for every reader with a
    /// secret anyone knows: it is refused.
    @Test func aWrappedKeyWithALowOrderEphemeralKeyIsRefused() throws {
        let alice = EncryptionKeyPair()
        var wrapped = try KeyWrap.wrap(Data(repeating: 1, count: 32), for: alice.agreement.publicKey, context: "folder:z:1:alice")
        wrapped.replaceSubrange(wrapped.startIndex + 2..<wrapped.startIndex + 34, with: Data(repeating: 0, count: 32))
        let caught = #expect(throws: EncryptionError.self) { _ = try KeyWrap.unwrap(wrapped, with: alice.agreement, context: "folder:z:1:alice") }
        #expect(caught?.kind == .authenticationFailed)
    }
}
