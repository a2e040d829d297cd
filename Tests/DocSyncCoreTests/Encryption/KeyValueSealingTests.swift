import DocSyncCore
import Foundation
import Testing

/// Sealed Values of an encrypted account's key-value store (SPEC §12, §13).
@Suite struct KeyValueSealingTests {
    static let secret = FolderEpochKeys.newSecret()
    static let sealing = KeyValueSealing(zone: ZoneID("~e.abcdefghijklmnopqrstuvwxyz"), nameSecret: secret)
    static let keys = try! FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)
    static let keyring = FolderKeyring([keys])

    @Test func recordNamesAreTheSameOnEveryDeviceAndSayNothingOfTheKey() throws {
        let again = KeyValueSealing(zone: Self.sealing.zone, nameSecret: Self.secret)
        let theme = KeyValueKey("theme")
        #expect(Self.sealing.recordName(of: theme) == again.recordName(of: theme))
        #expect(Self.sealing.recordName(of: theme) != Self.sealing.recordName(of: KeyValueKey("Theme")))
        let otherAccount = KeyValueSealing(zone: Self.sealing.zone, nameSecret: FolderEpochKeys.newSecret())
        #expect(otherAccount.recordName(of: theme) != Self.sealing.recordName(of: theme))
        let otherStore = KeyValueSealing(zone: ZoneID("~e.bbcdefghijklmnopqrstuvwxyz"), nameSecret: Self.secret)
        #expect(otherStore.recordName(of: theme) != Self.sealing.recordName(of: theme))
        let name = Self.sealing.recordName(of: KeyValueKey("api token / ünïcode"))
        #expect(name.count == 27 && name.hasPrefix("v") && !name.contains("api") && KeyValueKey(recordName: name) != nil,
                "a valid record name, and a valid store slot, that is no encoding of the key")
    }

    @Test func aSealedValueOpensAsWrittenAndOnlyThere() throws {
        let key = KeyValueKey("window frame"), value = JSONValue.object(["x": .number(10), "dark": .bool(true)])
        let wire = Self.sealing.seal(value, for: key, modified: Timestamp(nanosecondsSince1970: 5), device: "laptop", version: 7, with: Self.keys)
        #expect(wire.type == .sealed && wire.size == Int64(value.text.utf8.count) && wire.value == nil)
        #expect(!String(decoding: wire.sealed!.bytes, as: UTF8.self).contains("window"), "the key is sealed")
        let opened = try Self.sealing.open(wire, with: Self.keyring)
        #expect(opened.key == key && opened.value == value && opened.version == 7)

        // Presented as another key's record, in another zone, or under another key: refused.
        let other = KeyValueKey("theme")
        var moved = wire
        moved = Record(id: RecordID(zone: wire.id.zone, recordName: Self.sealing.recordName(of: other)), type: .sealed, path: RelativePath(Self.sealing.recordName(of: other)),
                       size: wire.size, modified: wire.modified, mode: 0, lastModifiedBy: "", sealed: wire.sealed)
        #expect(throws: EncryptionError.self) { try Self.sealing.open(moved, with: Self.keyring) }
        let elsewhere = KeyValueSealing(zone: ZoneID("~e.bbcdefghijklmnopqrstuvwxyz"), nameSecret: Self.secret)
        #expect(throws: EncryptionError.self) { try elsewhere.open(wire, with: Self.keyring) }
        let stranger = FolderKeyring([try FolderEpochKeys(secret: FolderEpochKeys.newSecret(), epoch: 1)])
        #expect(throws: EncryptionError.self) { try Self.sealing.open(wire, with: stranger) }
        let plain = Record.value(value, for: key, in: KeyValueStoreID("org.example.editor"), modified: Timestamp(nanosecondsSince1970: 5), device: "laptop")
        do {
            _ = try Self.sealing.open(Record(id: RecordID(zone: Self.sealing.zone, recordName: wire.id.recordName), type: .value, path: plain.path,
                                             size: plain.size, modified: plain.modified, mode: 0, lastModifiedBy: "laptop", value: plain.value), with: Self.keyring)
            Issue.record("a plain Value was taken in a sealed store")
        } catch {
            #expect(error.kind == .downgraded)
        }
    }
}
