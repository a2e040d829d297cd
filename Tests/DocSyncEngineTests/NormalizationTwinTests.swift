import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4a "Paths are bytes" on two in-process devices over the embedded store: files whose
/// names differ only in Unicode normalization (NFC `caf\u{E9}.txt`, NFD `cafe\u{301}.txt`)
/// are two items everywhere — created, edited, renamed into each other and deleted apart.
@Suite("SPEC §4a: names that differ only in normalization are two files")
struct NormalizationTwinTests {
    static let nfc = "caf\u{E9}.txt", nfd = "cafe\u{301}.txt"

    let base: TemporaryDirectory
    let backend: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-normalization")
        backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    /// The names in `device`'s folder root as bytes, sorted (compared without folding).
    static func nameBytes(_ device: EngineDevice) -> [[UInt8]] {
        device.names().map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    static func bytes(_ names: [String]) -> [[UInt8]] {
        names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The store's live records' paths as bytes, sorted.
    func storedPaths() async throws -> [[UInt8]] {
        try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil).changed.values.map { Array($0.path.string.utf8) }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test func bothFilesSyncAndStaySeparate() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && b.engine.isSettled })
        try a.write(Self.nfc, "composed\n")
        try a.write(Self.nfd, "decomposed\n")
        #expect(await eventually(timeout: .seconds(60)) {
            b.read(Self.nfc) == "composed\n" && b.read(Self.nfd) == "decomposed\n" && a.engine.isSettled && b.engine.isSettled
        }, "beta has both: \(Self.nameBytes(b))")
        #expect(a.status.items == 2 && b.status.items == 2, "alpha \(a.status.items), beta \(b.status.items)")
        #expect(a.status.problems.isEmpty && b.status.problems.isEmpty)
        #expect(try await storedPaths() == Self.bytes([Self.nfc, Self.nfd]))
        #expect(Self.nameBytes(b) == Self.bytes([Self.nfc, Self.nfd]))

        // Edited apart.
        try b.write(Self.nfd, "decomposed, edited on beta\n")
        #expect(await eventually(timeout: .seconds(60)) { a.read(Self.nfd) == "decomposed, edited on beta\n" && a.engine.isSettled && b.engine.isSettled })
        #expect(a.read(Self.nfc) == "composed\n")

        // Deleted apart.
        try FileManager.default.removeItem(atPath: a.folder.path + "/" + Self.nfc)
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { Self.nameBytes(b) == Self.bytes([Self.nfd]) && a.engine.isSettled && b.engine.isSettled },
                "beta keeps only the other one: \(Self.nameBytes(b))")
        #expect(b.read(Self.nfd) == "decomposed, edited on beta\n")
        #expect(try await storedPaths() == Self.bytes([Self.nfd]))

        // Renamed from one form to the other: a rename, not nothing.
        try FileManager.default.moveItem(atPath: b.folder.path + "/" + Self.nfd, toPath: b.folder.path + "/" + Self.nfc)
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { Self.nameBytes(a) == Self.bytes([Self.nfc]) && a.engine.isSettled && b.engine.isSettled },
                "alpha follows the rename: \(Self.nameBytes(a))")
        #expect(a.read(Self.nfc) == "decomposed, edited on beta\n")
        #expect(try await storedPaths() == Self.bytes([Self.nfc]))
    }

    @Test func foldersWhoseNamesDifferOnlyInNormalizationHoldTheirOwnFiles() async throws {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: backend)
        let b = try EngineDevice(name: "beta", base: base.url, backend: backend)
        let composed = "r\u{E9}sum\u{E9}s", decomposed = "re\u{301}sume\u{301}s"
        for (folder, text) in [(composed, "in the composed folder\n"), (decomposed, "in the decomposed folder\n")] {
            try FileManager.default.createDirectory(atPath: a.folder.path + "/" + folder, withIntermediateDirectories: false)
            try text.write(toFile: a.folder.path + "/" + folder + "/cv.txt", atomically: false, encoding: .utf8)
        }
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) {
            b.read(composed + "/cv.txt") == "in the composed folder\n" && b.read(decomposed + "/cv.txt") == "in the decomposed folder\n"
                && a.engine.isSettled && b.engine.isSettled
        }, "beta has both folders: \(Self.nameBytes(b))")
        #expect(a.status.items == 4 && b.status.items == 4, "alpha \(a.status.items), beta \(b.status.items)")

        // One folder deleted: the other keeps its file.
        try FileManager.default.removeItem(atPath: b.folder.path + "/" + composed)
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { Self.nameBytes(a) == Self.bytes([decomposed]) && a.engine.isSettled && b.engine.isSettled },
                "alpha keeps the other folder: \(Self.nameBytes(a))")
        #expect(a.read(decomposed + "/cv.txt") == "in the decomposed folder\n")
        #expect(a.status.items == 2)
    }
}
