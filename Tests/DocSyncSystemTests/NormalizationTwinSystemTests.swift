import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4a "Paths are bytes" as a new user meets it: an idle daemon, then `café.txt`
/// written in NFC and in NFD beside it. Both are indexed, listed, stored and reach the
/// other device, over the embedded store and over `docsync-server`.
@Suite("Names that differ only in normalization, with two daemons", .serialized)
struct NormalizationTwinSystemTests {
    typealias Devices = DeletionSafetyTests.Devices
    typealias Backend = DeletionSafetyTests.Backend

    static let nfc = "caf\u{E9}.txt", nfd = "cafe\u{301}.txt"

    static func bytes(_ names: [String]) -> [[UInt8]] {
        names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test(arguments: Backend.allCases)
    func bothFilesSync(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 1)
        let a = devices.a, b = devices.b
        try "composed\n".write(toFile: a.folder.path + "/" + Self.nfc, atomically: false, encoding: .utf8)
        try "decomposed\n".write(toFile: a.folder.path + "/" + Self.nfd, atomically: false, encoding: .utf8)
        let expected = Self.bytes([Devices.name(0), Self.nfc, Self.nfd])
        let arrived = await eventually(timeout: .seconds(60)) { Self.bytes(syncedNames(b.folder)) == expected }
        #expect(arrived, "beta has both files: \(syncedNames(b.folder).map { Array($0.utf8) })\n\(a.logText().suffix(3000))")
        #expect(contents(b.folder.appendingPathComponent(Self.nfc)) == "composed\n")
        #expect(contents(b.folder.appendingPathComponent(Self.nfd)) == "decomposed\n")
        #expect(try await a.waitSettled())
        #expect(try await b.waitSettled())

        for device in [a, b] {
            let listed = try await devices.docsStatus(device, ["--json", "ls", device.folder.path])
            let items = try ControlFraming.makeDecoder().decode([ItemStatus].self, from: Data(listed.output.utf8))
            #expect(Self.bytes(items.map(\.path)) == expected, "\(device.name) lists both: \(listed.output)")
            let folder = try #require(try await device.status()?.folders.first)
            #expect(folder.items == 3 && folder.state == .idle && folder.problems.isEmpty, "\(device.name): \(folder)")
        }
        #expect(Self.bytes(Array(try await devices.pair.records().values)) == expected, "the store holds both records")
        await devices.pair.stopBoth()
    }
}
