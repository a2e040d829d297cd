import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Key-value stores of an encrypted account (SPEC §12, §13) between real daemons on the
/// embedded backend: a store that synced plain moves into its sealed zone when encryption
/// is turned on (its values carried, its plain zone purged: no key and no value left in the
/// store's files); a device awaiting approval keeps its writes to itself; once approved it
/// follows, and values written on either device reach the other, sealed.
@Suite(.serialized) struct EncryptedKeyValueSystemTests {
    static let store = KeyValueSystemTests.store

    @Test func aStoreMovesIntoItsSealedZoneAndSyncsSealed() async throws {
        let base = try TemporaryDirectory("docsync-e2ee-kv")
        let backend = base.url.appendingPathComponent("backend")
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        let laptop = try DaemonProcess(name: "laptop", base: base.url, backend: backend)
        let desk = try DaemonProcess(name: "desk", base: base.url, backend: backend)
        for daemon in [laptop, desk] {
            try daemon.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() })
        }
        let secretValue = JSONValue.string("walrus-nebula-7731")
        _ = try await KeyValueSystemTests.set("theme", .string("dark"), on: laptop)
        _ = try await KeyValueSystemTests.set("api-credential-marker", secretValue, on: laptop)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            try await KeyValueSystemTests.get("api-credential-marker", on: desk) == secretValue
        }, "the plain store syncs first")
        #expect(!EncryptionMoveSystemTests.find(["walrus-nebula-7731", "api-credential-marker"], in: backend).isEmpty,
                "before encryption the store's files hold the value in the clear")

        let enabled = try await EncryptionSystemTests.encryption(laptop, ["enable"])
        #expect(enabled.state == .on, "\(enabled)")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            EncryptionMoveSystemTests.find(["walrus-nebula-7731", "api-credential-marker"], in: backend).isEmpty
        }, "the store's values move into its sealed zone and the plain zone is purged: \(laptop.logText().suffix(3000))")
        #expect(try await KeyValueSystemTests.list(on: laptop) == ["theme": .string("dark"), "api-credential-marker": secretValue],
                "the laptop keeps every value")

        // The desk awaits approval: its write stays with it, and nothing of it reaches the server.
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            await EncryptionSystemTests.polledEncryption(desk)?.state == .awaitingApproval
        })
        _ = try await KeyValueSystemTests.set("desk-note", .string("penguin-orbit-5512"), on: desk)
        #expect(try await KeyValueSystemTests.get("desk-note", on: desk) == .string("penguin-orbit-5512"), "a write succeeds at once locally")
        try await EncryptionMoveSystemTests.approve(desk, from: laptop, name: "desk")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            try await KeyValueSystemTests.get("desk-note", on: laptop) == .string("penguin-orbit-5512")
        }, "once approved, the desk's write reaches the laptop, sealed: \(desk.logText().suffix(3000))")
        #expect(try await KeyValueSystemTests.get("api-credential-marker", on: desk) == secretValue, "the desk follows the values into the sealed zone")
        _ = try await KeyValueSystemTests.set("theme", .string("sunlight-quasar-42"), on: laptop)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            try await KeyValueSystemTests.get("theme", on: desk) == .string("sunlight-quasar-42")
        })
        let leaked = EncryptionMoveSystemTests.find(["walrus-nebula-7731", "api-credential-marker", "penguin-orbit-5512", "desk-note", "sunlight-quasar-42"], in: backend)
        #expect(leaked.isEmpty, "no key or value in the clear in the store's files: \(leaked)")
        for daemon in [laptop, desk] { _ = await daemon.stop() }
    }
}
