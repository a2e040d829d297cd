@testable import DocSyncDaemon
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Logging
import Testing

/// This device's key pair in its state directory (SPEC §13): created once with mode 600,
/// the same keys at every start, made private again when others could read it, and a
/// damaged file an error that says what to do, never a new key in its place.
@Suite struct DeviceKeyFileTests {
    let logger = Logger(label: "test")

    func mode(_ url: URL) throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) }

    @Test func theKeyIsCreatedOnceReadableByTheUserAloneAndKept() throws {
        let directory = try TemporaryDirectory("docsync-device-key")
        let file = directory.url.appendingPathComponent(DeviceKeyFile.name)
        let created = try DeviceKeyFile.loadOrCreate(in: directory.url, logger: logger)
        #expect(try mode(file) == 0o600)
        #expect(try Data(contentsOf: file).count == 64)
        let again = try DeviceKeyFile.loadOrCreate(in: directory.url, logger: logger)
        #expect(again.publicKeys == created.publicKeys && again.publicKeys.fingerprint == created.publicKeys.fingerprint)
        let otherDirectory = try TemporaryDirectory("docsync-device-key")
        let other = try DeviceKeyFile.loadOrCreate(in: otherDirectory.url, logger: logger)
        #expect(other.publicKeys != created.publicKeys, "each state directory, each device, its own key")
    }

    @Test func aKeyOthersCouldReadIsMadePrivate() throws {
        let directory = try TemporaryDirectory("docsync-device-key")
        let file = directory.url.appendingPathComponent(DeviceKeyFile.name)
        let created = try DeviceKeyFile.loadOrCreate(in: directory.url, logger: logger)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(try DeviceKeyFile.loadOrCreate(in: directory.url, logger: logger).publicKeys == created.publicKeys)
        #expect(try mode(file) == 0o600)
    }

    @Test func aDamagedKeyIsAnErrorNotANewKey() throws {
        let directory = try TemporaryDirectory("docsync-device-key")
        let file = directory.url.appendingPathComponent(DeviceKeyFile.name)
        try Data(repeating: 1, count: 10).write(to: file)
        let caught = #expect(throws: DeviceKeyError.self) { _ = try DeviceKeyFile.loadOrCreate(in: directory.url, logger: logger) }
        #expect(caught?.description.contains(file.path) == true && caught?.description.contains("move it aside") == true)
        #expect(try Data(contentsOf: file).count == 10, "the damaged file is left as it was")
    }
}
