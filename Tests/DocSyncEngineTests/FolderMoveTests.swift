import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// A folder whose name is not ASCII moves with its items, on the device that moved it and on
/// the others, as any folder does: the same records, at their new paths.
@Suite("A folder named beyond ASCII moves with its items")
struct FolderMoveTests {
    let base: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-folder-move")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    /// A folder's move rewrites the paths of its items in the index: counted in bytes where
    /// SQLite counts characters, a name longer in bytes than in characters cut the items'
    /// paths wrong (`résumés/cv.txt` became `CVsv.txt`), and their records were deleted and
    /// made anew.
    @Test(arguments: ["r\u{E9}sum\u{E9}s", "re\u{301}sume\u{301}s"])
    func aFolderWithANameBeyondASCIIMovesWithItsItems(_ name: String) async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        try FileManager.default.createDirectory(atPath: a.folder.path + "/" + name + "/sub", withIntermediateDirectories: true)
        try "cv\n".write(toFile: a.folder.path + "/" + name + "/cv.txt", atomically: false, encoding: .utf8)
        try "letter\n".write(toFile: a.folder.path + "/" + name + "/sub/letter.txt", atomically: false, encoding: .utf8)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.read(name + "/sub/letter.txt") == "letter\n" && a.engine.isSettled && b.engine.isSettled })
        let before = try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed

        // Moved on alpha (its index follows the move); beta applies the folder's move.
        try FileManager.default.moveItem(atPath: a.folder.path + "/" + name, toPath: a.folder.path + "/CVs")
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.read("CVs/sub/letter.txt") == "letter\n" && a.engine.isSettled && b.engine.isSettled })
        for device in [a, b] {
            #expect(try device.engine.item(at: RelativePath("CVs/cv.txt")) != nil, "\(device.name) indexes the moved file where it is")
            #expect(try device.engine.item(at: RelativePath("CVs/sub/letter.txt")) != nil)
            #expect(device.status.items == 4 && device.status.pendingUploads == 0, "\(device.name): \(device.status)")
        }
        // Moved again on beta: alpha's index follows a remote folder move too.
        try FileManager.default.moveItem(atPath: b.folder.path + "/CVs", toPath: b.folder.path + "/" + name)
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { a.read(name + "/sub/letter.txt") == "letter\n" && a.engine.isSettled && b.engine.isSettled })
        let after = try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed
        #expect(Set(after.keys) == Set(before.keys), "the same records, moved: none deleted and made anew")
        #expect(try await backend.listDeleted(in: ZoneID("Docs"), since: nil).isEmpty)
    }
}
