import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Recently Deleted (SPEC §4a) with two real daemons on both backends: what one device
/// deleted is listed and recovered from the other — a file, a folder with its contents,
/// everything since a time — after the deleting device's own version store is gone; and a
/// device whose change token expired does not bring back what was deleted meanwhile.
@Suite("Recently Deleted with two daemons", .serialized)
struct RecentlyDeletedTests {
    typealias Devices = DeletionSafetyTests.Devices
    typealias Backend = DeletionSafetyTests.Backend

    @Test(arguments: Backend.allCases)
    func whatOneDeviceDeletedIsRecoveredFromTheOther(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 3)
        let a = devices.a, b = devices.b
        try FileManager.default.createDirectory(at: a.file("trip"), withIntermediateDirectories: false)
        for number in 1...3 { try "photo \(number)\n".write(to: a.file("trip/p\(number).jpg"), atomically: false, encoding: .utf8) }
        await devices.pair.converge("a folder of three files", also: { FileManager.default.fileExists(atPath: b.file("trip/p3.jpg").path) })
        try await shell("rm -rf trip \(Devices.name(0)) \(Devices.name(1))", in: a.folder)
        await devices.pair.converge("deleted on alpha", also: { !FileManager.default.fileExists(atPath: b.file("trip").path) })
        #expect(try await a.waitSettled())
        // No device's version store keeps them (beta's held what the deletions took from its
        // folder): the backend alone does.
        for device in [a, b] { try? FileManager.default.removeItem(at: device.stateDirectory.appendingPathComponent("folders/Docs/versions")) }
        #expect(!FileManager.default.fileExists(atPath: b.stateDirectory.appendingPathComponent("folders/Docs/versions").path))

        let listed = try await devices.docsStatus(b, ["deleted", "--json"])
        #expect(listed.status == 0, "\(listed.errors)")
        let entries = try ControlFraming.makeDecoder().decode([DeletedEntry].self, from: Data(listed.output.utf8))
        #expect(Set(entries.map(\.path)) == ["trip", "trip/p1.jpg", "trip/p2.jpg", "trip/p3.jpg", Devices.name(0), Devices.name(1)])
        #expect(entries.allSatisfy { $0.deletedBy == "alpha" }, "\(entries)")
        let human = try await devices.docsStatus(b, ["deleted", "--where", "name LIKE '*.jpg' AND deletedBy == 'alpha'"])
        #expect(human.output.contains("Docs/trip/p2.jpg") && !human.output.contains(Devices.name(0)), "\(human.output)")

        // A file, by its path on this device.
        let file = try await devices.docsStatus(b, ["recover", b.file(Devices.name(0)).path])
        #expect(file.status == 0, "\(file.output)\(file.errors)")
        await devices.pair.converge("a file recovered", also: { contents(a.file(Devices.name(0))) == "file 0\n" })
        // A folder, with what was deleted with it.
        let folder = try await devices.docsStatus(b, ["--json", "recover", b.file("trip").path])
        let outcomes = try ControlFraming.makeDecoder().decode([ActionOutcome].self, from: Data(folder.output.utf8))
        #expect(Set(outcomes.map(\.path)) == ["trip", "trip/p1.jpg", "trip/p2.jpg", "trip/p3.jpg"] && outcomes.allSatisfy(\.done), "\(folder.output)")
        await devices.pair.converge("a folder recovered", also: { contents(a.file("trip/p2.jpg")) == "photo 2\n" })
        // Everything since a time: only what is left.
        try "a new file here\n".write(to: b.file(Devices.name(1)), atomically: false, encoding: .utf8)
        await devices.pair.converge("a new file where a deleted one was", also: { contents(a.file(Devices.name(1))) == "a new file here\n" })
        let since = try await devices.docsStatus(b, ["recover", "--since", "1h"])
        #expect(since.status == 0, "\(since.output)\(since.errors)")
        #expect(since.output.contains("its path is taken"), "\(since.output)")
        await devices.pair.converge("the rest recovered beside the new file", also: {
            syncedNames(a.folder).contains { ConflictName.originalName(of: $0) == Devices.name(1) }
        })
        let copy = try #require(syncedNames(a.folder).first { ConflictName.originalName(of: $0) == Devices.name(1) })
        #expect(contents(a.file(copy)) == "file 1\n")
        #expect(contents(a.file(Devices.name(1))) == "a new file here\n")
        let left = try await devices.docsStatus(b, ["deleted", "--json"])
        #expect(try ControlFraming.makeDecoder().decode([DeletedEntry].self, from: Data(left.output.utf8)).isEmpty, "recovered items leave Recently Deleted")
        await devices.pair.stopBoth()
    }

    @Test func aRefetchAfterCompactionKeepsWhatWasDeletedElsewhereDeleted() async throws {
        let devices = try await Devices.start(.embedded, files: 10)
        await devices.b.stop()
        for number in 0..<3 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        #expect(await eventually { (try? await devices.pair.records().count) == 7 })
        #expect(try await devices.a.waitSettled())
        // Tombstones compacted away: beta's token has expired, and it fetches everything again.
        try LocalBackend(directory: devices.pair.backendDirectory).compactTombstones(olderThan: 0)
        try devices.b.start()
        await devices.pair.converge("beta refetched", also: { syncedNames(devices.b.folder).count == 7 })
        #expect(try await devices.b.waitSettled())
        #expect(try await devices.pair.records().count == 7, "nothing deleted came back")
        #expect(devices.b.logText().contains("change token expired"), "beta did refetch")
        let kept = try await devices.docsStatus(devices.b, ["--json", "versions", devices.b.file(Devices.name(0)).path])
        #expect(try ControlFraming.makeDecoder().decode([VersionEntry].self, from: Data(kept.output.utf8)).first?.reason == "deleted",
                "beta keeps its copy in the version store: \(kept.output)")
        await devices.pair.stopBoth()
    }

    @Test(arguments: Backend.allCases)
    func purgingEmptiesRecentlyDeleted(_ backend: Backend) async throws {
        let devices = try await Devices.start(backend, files: 4)
        for number in 0..<3 { try FileManager.default.removeItem(at: devices.a.file(Devices.name(number))) }
        await devices.pair.converge("deleted", also: { syncedNames(devices.b.folder).count == 1 })
        let one = try await devices.docsStatus(devices.b, ["deleted", "--purge", devices.b.file(Devices.name(0)).path])
        #expect(one.status == 0, "\(one.output)\(one.errors)")
        let after = try await devices.docsStatus(devices.a, ["deleted", "--json"])
        #expect(try Set(ControlFraming.makeDecoder().decode([DeletedEntry].self, from: Data(after.output.utf8)).map(\.path))
            == [Devices.name(1), Devices.name(2)])
        let all = try await devices.docsStatus(devices.a, ["deleted", "--purge", "--all"])
        #expect(all.status == 0, "\(all.output)\(all.errors)")
        let none = try await devices.docsStatus(devices.b, ["deleted"])
        #expect(none.output.contains("nothing in Recently Deleted"))
        // A purged item cannot come back, and says so: no such item (exit 4), purged.
        let gone = try await devices.docsStatus(devices.b, ["recover", devices.b.file(Devices.name(1)).path])
        #expect(gone.status == 4 && gone.errors.contains("purged"), "\(gone.status): \(gone.output)\(gone.errors)")
        let goneJSON = try await devices.docsStatus(devices.b, ["--json", "recover", devices.b.file(Devices.name(1)).path])
        #expect(goneJSON.status == 4 && goneJSON.output.contains("\"notFound\""), "\(goneJSON.output)")
        // On the device that deleted it (which kept no copy): no such item either.
        let purgedHere = try await devices.docsStatus(devices.a, ["recover", devices.a.file(Devices.name(2)).path])
        #expect(purgedHere.status == 4 && purgedHere.errors.contains("Recently Deleted"), "\(purgedHere.status): \(purgedHere.output)\(purgedHere.errors)")
        // Never there at all.
        let never = try await devices.docsStatus(devices.b, ["recover", devices.b.file("never-existed.txt").path])
        #expect(never.status == 4 && never.errors.contains("no such item"), "\(never.status): \(never.output)\(never.errors)")
        // Not deleted: it lives in the folder.
        let alive = try await devices.docsStatus(devices.b, ["recover", devices.b.file(Devices.name(3)).path])
        #expect(alive.status == 4 && alive.errors.contains("not deleted"), "\(alive.status): \(alive.output)\(alive.errors)")
        // A named path that matches nothing fails the call: nothing else named is recovered.
        try FileManager.default.removeItem(at: devices.a.file(Devices.name(3)))
        await devices.pair.converge("the last file deleted", also: { syncedNames(devices.b.folder).isEmpty })
        let mixed = try await devices.docsStatus(devices.b, ["recover", devices.b.file(Devices.name(3)).path, devices.b.file("never-existed.txt").path])
        #expect(mixed.status == 4, "\(mixed.output)\(mixed.errors)")
        let still = try await devices.docsStatus(devices.b, ["deleted", "--json"])
        #expect(try ControlFraming.makeDecoder().decode([DeletedEntry].self, from: Data(still.output.utf8)).map(\.path) == [Devices.name(3)])
        // A time that matches nothing is nothing to do, as before.
        let later = try await devices.docsStatus(devices.b, ["recover", "--since", "2099-01-01"])
        #expect(later.status == 0 && later.output.contains("nothing to do"), "\(later.status): \(later.output)\(later.errors)")
        await devices.pair.stopBoth()
    }
}

/// SPEC §4a and §8: an account over its quota on `docsync-server` shows as full on the
/// daemon, keeps everything local, and resumes by itself once a purge frees space.
@Suite("Quotas with two daemons", .serialized)
struct QuotaSystemTests {
    @Test func aQuotaReachedIsFreedByAPurgeAndSyncResumes() async throws {
        let data = try TemporaryDirectory("docsync-server-data")
        // No grace for unreferenced chunks: a purge frees their space at once.
        let server = try await ServerProcess(dataDirectory: data.url, extraArguments: ["--gc-grace", "0s"])
        let pair = try await DevicePair(server: server, user: "ana")
        let a = pair.a, b = pair.b
        func random(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8.random(in: 0...255) }) }
        try random(400_000).write(to: a.file("old.bin"))
        try pair.startBoth()
        await pair.converge("the first file", also: { FileManager.default.fileExists(atPath: b.file("old.bin").path) })
        _ = try await ServerProcess.userCommand(["quota", "ana", "600KB"], dataDirectory: data.url)

        try random(300_000).write(to: a.file("new.bin"))
        #expect(await eventually { (try? await a.status())?.account.hasPrefix("storage full (") == true }, "alpha shows the account full")
        #expect(try await a.status()?.folders.first?.message?.contains("everything is kept on this device") == true)
        #expect(FileManager.default.fileExists(atPath: a.file("new.bin").path))
        #expect(!FileManager.default.fileExists(atPath: b.file("new.bin").path))

        // Beta deletes the old file; purging it from Recently Deleted frees its space.
        try FileManager.default.removeItem(at: b.file("old.bin"))
        #expect(await eventually { !FileManager.default.fileExists(atPath: a.file("old.bin").path) })
        let purge = try await runProcess(builtProduct("docs-status"), ["deleted", "--purge", "--all", "--socket", b.socket])
        #expect(purge.status == 0, "\(purge.output)\(purge.errors)")
        await pair.converge(timeout: .seconds(90), "resumed once space was freed",
                            also: { FileManager.default.fileExists(atPath: b.file("new.bin").path) })
        #expect(try await a.status()?.account == "signed in")
        await pair.stopBoth()
    }
}
