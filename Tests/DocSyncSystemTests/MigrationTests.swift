import DocSyncCore
import DocSyncHTTP
import DocSyncScaleOut
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// `docsync-server migrate`: a one-machine server with two daemons attached moves onto a
/// scale-out store, and the daemons go on through the new server where they were: no
/// duplicate, no deletion, no content uploaded again, Recently Deleted kept.
@Suite("Migrating a server onto the scale-out store", .serialized)
struct MigrationTests {
    @Test func daemonsGoOnAfterTheirServerMovesToPostgreSQLAndS3() async throws {
        let storage = try await ScaleOutTestStorage.make()
        do {
            try await migrate(into: storage)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }

    private func migrate(into storage: ScaleOutTestStorage) async throws {
        let data = try TemporaryDirectory("docsync-server-data")
        let embedded = try await ServerProcess(dataDirectory: data.url)
        let pair = try await DevicePair(server: embedded, user: "ana")
        try pair.startBoth()
        let a = pair.a, b = pair.b
        try "kept\n".write(to: a.file("kept.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(at: a.file("docs"), withIntermediateDirectories: false)
        try Data((0 ..< 2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: a.file("docs/large.bin"))
        try "first draft\n".write(to: a.file("docs/draft.txt"), atomically: false, encoding: .utf8)
        try "to delete\n".write(to: a.file("doomed.txt"), atomically: false, encoding: .utf8)
        await pair.converge("before the move")
        try overwrite(b.file("docs/draft.txt"), "second draft\n")
        try FileManager.default.removeItem(at: b.file("doomed.txt"))
        await pair.converge("an edit and a deletion before the move", also: { !FileManager.default.fileExists(atPath: a.file("doomed.txt").path) })
        #expect(try await a.waitSettled())
        #expect(try await b.waitSettled())
        await pair.stopBoth()
        let before = try await LocalBackend(directory: embedded.userDirectory("ana")).usage()
        #expect(try await embedded.stop() == 0)

        let result = try await runProcess(builtProduct("docsync-server"), ["migrate", "--from", data.url.path] + storage.serverArguments,
                                          environment: storage.serverEnvironment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("migrated 1 users"), "\(result.output)")
        let store = try await storage.open()
        let account = try #require(try await store.accountID(named: "ana"))
        let migrated = try await store.backend(account: account).usage()
        #expect(migrated.chunkCount == before.chunkCount && migrated.chunkBytes == before.chunkBytes && migrated.recordCount == before.recordCount)

        // The new server on the old address; the daemons keep their tokens, state and folders.
        let scaleOut = try await ServerProcess(dataDirectory: data.url.appendingPathComponent("instance"), listen: "127.0.0.1:\(embedded.port)",
                                               storeArguments: storage.serverArguments, environment: storage.serverEnvironment)
        try pair.startBoth()
        try "after the move\n".write(to: b.file("after.txt"), atomically: false, encoding: .utf8)
        await pair.converge("after the move", also: { contents(a.file("after.txt")) == "after the move\n" })
        #expect(Set(syncedNames(a.folder)) == ["kept.txt", "docs", "after.txt"], "no duplicate, no deletion")
        #expect(Set(syncedNames(a.file("docs"))) == ["large.bin", "draft.txt"])
        #expect(contents(a.file("docs/draft.txt")) == "second draft\n")
        #expect(try await a.waitSettled())
        #expect(try await b.waitSettled())
        let after = try await store.backend(account: account).usage()
        #expect(after.chunkCount == before.chunkCount + 1, "only the new file's chunk was uploaded")

        // Recently Deleted and the kept version came along.
        let token = try String(contentsOf: pair.base.url.appendingPathComponent("alpha.token"), encoding: .utf8).trimmingCharacters(in: .newlines)
        let client = try HTTPBackend(url: scaleOut.url, token: token)
        let deleted = try await client.listDeleted(in: ZoneID("Docs"), since: nil)
        #expect(deleted.map(\.record.path.string) == ["doomed.txt"])
        await pair.stopBoth()
        #expect(try await scaleOut.stop() == 0)
    }
}
