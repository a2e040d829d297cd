import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4 on two in-process devices: edits against deletes, the four policies, and the
/// version store that keeps every losing or deleted version.
@Suite("SPEC §4: nothing is ever lost")
struct ConflictTests {
    let base: TemporaryDirectory
    let local: LocalBackend
    let faulty: FaultInjectingBackend

    init() throws {
        base = try TemporaryDirectory("docsync-conflicts")
        local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        faulty = FaultInjectingBackend(wrapping: local)
    }

    /// Alpha goes through the fault injector (so it can be kept from hearing of beta's
    /// changes), beta talks to the backend directly. Both start with `shared.txt`.
    func devices(policy: ConflictPolicy = .keepBoth) async throws -> (EngineDevice, EngineDevice) {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: faulty, policy: policy)
        let b = try EngineDevice(name: "beta", base: base.url, backend: local, policy: policy)
        try a.write("shared.txt", "base\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("shared.txt") == "base\n" && a.engine.isSettled })
        return (a, b)
    }

    /// Keeps alpha from hearing of beta's changes until the plan is reset.
    func blindAlpha(_ a: EngineDevice) async {
        #expect(await a.cutOffFromFetching(through: faulty), "alpha tried to fetch and was refused")
    }

    @Test func remoteEditAgainstLocalDeleteBringsTheFileBack() async throws {
        let (a, b) = try await devices()
        await blindAlpha(a)
        try b.write("shared.txt", "edited on beta\n")
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        try FileManager.default.removeItem(at: a.file("shared.txt"))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.read("shared.txt") == "edited on beta\n" })
        faulty.setPlan(.none)
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && b.read("shared.txt") == "edited on beta\n" })
    }

    /// Deleted and made anew on beta while alpha did not hear of it: alpha then fetches the new
    /// record and the old one's deletion together, and the file is replaced — no conflict
    /// copy of the deleted version (it goes to the version store).
    @Test func aFileReplacedElsewhereIsReplacedNotKeptAsAConflict() async throws {
        let (a, b) = try await devices()
        await blindAlpha(a)
        try FileManager.default.removeItem(at: b.file("shared.txt"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled && b.status.items == 0 })
        try b.write("shared.txt", "made anew on beta\n")
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled && b.status.items == 1 })
        faulty.setPlan(.none)
        a.engine.noteRemoteChange()
        #expect(await eventually(timeout: .seconds(60)) { a.read("shared.txt") == "made anew on beta\n" && a.engine.isSettled && b.engine.isSettled })
        #expect(a.names() == ["shared.txt"] && b.names() == ["shared.txt"], "no conflict copy")
        #expect(a.status.conflicts == 0)
        #expect(a.keepsVersion("base\n"), "the replaced version is kept")
    }

    @Test func localEditAgainstRemoteDeleteBringsTheFileBack() async throws {
        let (a, b) = try await devices()
        await blindAlpha(a)
        try FileManager.default.removeItem(at: b.file("shared.txt"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        try a.write("shared.txt", "edited on alpha\n")
        #expect(await eventually(timeout: .seconds(60)) { b.read("shared.txt") == "edited on alpha\n" })
        faulty.setPlan(.none)
        #expect(await eventually(timeout: .seconds(60)) { sameTrees(a, b) && a.engine.isSettled })
        #expect(a.read("shared.txt") == "edited on alpha\n")
    }

    @Test func aRemoteDeleteMovesTheFileToTheVersionStore() async throws {
        let (a, b) = try await devices()
        try b.write("keepsake.txt", "precious\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read("keepsake.txt") == "precious\n" })
        try FileManager.default.removeItem(at: b.file("keepsake.txt"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.read("keepsake.txt") == nil })
        #expect(a.keepsVersion("precious\n"))
    }

    @Test func aRemoteEditKeepsTheReplacedVersion() async throws {
        let (a, b) = try await devices()
        try b.write("shared.txt", "second\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read("shared.txt") == "second\n" })
        #expect(a.keepsVersion("base\n"))
    }

    /// Beta edits first; alpha, not hearing of it, edits later (so alpha's is the newest).
    func editBoth(_ a: EngineDevice, _ b: EngineDevice) async throws {
        await blindAlpha(a)
        try b.write("shared.txt", "beta's older edit\n")
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        try "alpha's newer edit\n".write(to: a.file("shared.txt"), atomically: false, encoding: .utf8)
        let later = timespec(tv_sec: Int(Date().timeIntervalSince1970) + 60, tv_nsec: 0)
        var times = [later, later]
        #expect(utimensat(AT_FDCWD, a.file("shared.txt").path, &times, 0) == 0)
        a.rescan()
        faulty.setPlan(.none)
    }

    @Test func remoteWinsKeepsTheLocalVersionInTheStore() async throws {
        let (a, b) = try await devices(policy: .remoteWins)
        try await editBoth(a, b)
        #expect(await eventually(timeout: .seconds(60)) { a.read("shared.txt") == "beta's older edit\n" && a.engine.isSettled && sameTrees(a, b) })
        #expect(a.names() == ["shared.txt"], "no conflict copy")
        #expect(a.keepsVersion("alpha's newer edit\n"))
        #expect(try a.engine.conflictLog().first?.outcome == .remoteWon)
    }

    @Test func localWinsKeepsTheServerVersionInTheStore() async throws {
        let (a, b) = try await devices(policy: .localWins)
        try await editBoth(a, b)
        #expect(await eventually(timeout: .seconds(60)) { b.read("shared.txt") == "alpha's newer edit\n" && sameTrees(a, b) })
        #expect(a.names() == ["shared.txt"], "no conflict copy")
        #expect(a.keepsVersion("beta's older edit\n"))
        #expect(try a.engine.conflictLog().first?.outcome == .localWon)
    }

    @Test func newestWinsTakesTheLaterModification() async throws {
        let (a, b) = try await devices(policy: .newestWins)
        try await editBoth(a, b)
        #expect(await eventually(timeout: .seconds(60)) { b.read("shared.txt") == "alpha's newer edit\n" && sameTrees(a, b) })
        #expect(b.names() == ["shared.txt"], "no conflict copy")
        #expect(a.keepsVersion("beta's older edit\n"))
    }

    @Test func keepBothMarksTheItemUntilTheCopyIsRemoved() async throws {
        let (a, b) = try await devices()
        try await editBoth(a, b)
        #expect(await eventually(timeout: .seconds(60)) { b.names().count == 2 && sameTrees(a, b) })
        #expect(await eventually(timeout: .seconds(60)) { a.status.conflicts == 1 && b.status.conflicts == 1 })
        let copy = try #require(a.names().first { $0 != "shared.txt" })
        #expect(ConflictName.isConflictCopy(copy))
        try FileManager.default.removeItem(at: a.file(copy))
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.names() == ["shared.txt"] && a.status.conflicts == 0 && b.status.conflicts == 0 })
    }
}

/// A file already on disk that this device's index does not know (as after a crash between
/// renaming a download into place and recording it) is adopted when the server's record for
/// the same content arrives: one record, no conflict copy.
@Suite("Adopting identical files")
struct AdoptionTests {
    @Test func aKnownFileTheIndexMissedIsAdoptedNotDuplicated() async throws {
        let base = try TemporaryDirectory("docsync-adopt")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        try a.write("report.txt", String(repeating: "same content\n", count: 400))
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && a.status.items == 1 })
        // Beta's folder holds the same file before beta's engine ever ran.
        let betaFolder = base.url.appendingPathComponent("beta-folder")
        try FileManager.default.createDirectory(at: betaFolder, withIntermediateDirectories: true)
        try String(repeating: "same content\n", count: 400).write(to: betaFolder.appendingPathComponent("report.txt"), atomically: false, encoding: .utf8)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled && b.status.items == 1 && b.status.problems.isEmpty })
        #expect(b.names() == ["report.txt"], "no conflict copy")
        #expect(try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed.count == 1, "one record")
    }
}
