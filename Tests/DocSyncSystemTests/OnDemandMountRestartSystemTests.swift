import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Placeholders moved through the mount, the daemon killed under it, and what is left in
/// the mount point while nothing is mounted (SPEC §14).
extension OnDemandMountSystemTests {
    /// Record name → path of every record in the backend's zone, read as another client.
    func records() async throws -> [String: String] {
        let backend = try LocalBackend(directory: pair.base.url.appendingPathComponent("backend"))
        let changes = try await backend.fetchAllChanges(in: ZoneID("Docs"), since: nil)
        return Dictionary(uniqueKeysWithValues: changes.changed.values.map { ($0.id.recordName, $0.path.string) })
    }

    @Test func movingFilesThatAreNotLocalMovesTheirItems() async throws {
        let files: [String: Data] = [
            "single.txt": seededBytes(50_000, seed: 70),
            "docs/a.txt": Data("a\n".utf8),
            "docs/b.bin": seededBytes(200_000, seed: 71),
            "docs/inner/c.txt": Data("c\n".utf8),
            "keep.txt": Data("kept\n".utf8),
        ]
        let reference = pair.scratch.appendingPathComponent("reference")
        for (relative, data) in files {
            try pair.alphaWrites(data, to: relative)
            let copy = reference.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: copy)
        }
        try await pair.run {
            try #require(await pair.waitShownOnBeta(Array(files.keys)), "alpha's files did not show on beta\n\(pair.logs)")
            #expect(try await alpha.waitSettled())
            let before = try await records()

            for root in [reference, beta.folder] {
                try await shell("mkdir moved && mv single.txt moved/renamed.txt && mv docs archive", in: root)
            }
            let expected = facts(reference)
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { facts(alpha.folder) == expected }
            #expect(reached, "alpha's folder after the moves:\n\(difference(facts(alpha.folder), expected))\n\(pair.logs)")
            #expect(try await alpha.waitSettled())
            #expect(try await beta.waitSettled())

            // The same records at their new paths: moved, not deleted and made again.
            let after = try await records()
            let movedTo = ["single.txt": "moved/renamed.txt", "docs": "archive", "docs/a.txt": "archive/a.txt",
                           "docs/b.bin": "archive/b.bin", "docs/inner": "archive/inner", "docs/inner/c.txt": "archive/inner/c.txt"]
            let expectedRecords = before.mapValues { movedTo[$0] ?? $0 }
            #expect(after.filter { $0.value != "moved" } == expectedRecords, "records before \(before), after \(after)")
            #expect(after.values.filter { $0 == "moved" }.count == 1, "the new directory is a record of its own")
            let deleted = try await alpha.docsStatusJSON([DeletedEntry].self, ["deleted"])
            #expect(deleted.isEmpty, "nothing is in Recently Deleted: \(deleted.map(\.path))")

            // Still not local on beta: placeholders in the content directory, nothing fetched.
            for path in ["moved/renamed.txt", "archive/a.txt", "archive/b.bin", "archive/inner/c.txt"] {
                let name = (path as NSString).lastPathComponent, parent = (path as NSString).deletingLastPathComponent
                let placeholder = beta.contentDirectory.appendingPathComponent(parent).appendingPathComponent(".\(name).docsync")
                #expect(lstatus(placeholder.path) != nil, "\(path) is a placeholder in beta's content directory")
                #expect(lstatus(beta.contentDirectory.appendingPathComponent(path).path) == nil, "\(path) was not fetched")
                #expect(docsyncStatus(beta.file(path).path) == "remote", "\(path)")
            }
            #expect(lstatus(beta.contentDirectory.appendingPathComponent("docs").path) == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: beta.partialDirectory.path).isEmpty)
            // And they read as alpha's.
            #expect(FileManager.default.contents(atPath: beta.file("moved/renamed.txt").path) == files["single.txt"])
            #expect(FileManager.default.contents(atPath: beta.file("archive/b.bin").path) == files["docs/b.bin"])
        }
    }

    /// A file that is not local reads as itself right after a rename through the mount
    /// (`mv a b && cat b`), before the engine has taken the move in; so do those in a
    /// directory renamed, and one changed (`chmod`) right after. Several in a row, as a
    /// script would.
    @Test func readingFilesRightAfterMovingThem() async throws {
        let files = (0 ..< 5).map { seededBytes(20_000 + $0, seed: 90 + UInt64($0)) }
        for (index, data) in files.enumerated() { try pair.alphaWrites(data, to: "batch/file\(index).bin") }
        try pair.alphaWrites(Data("in a directory\n".utf8), to: "folder/inside.txt")
        try pair.alphaWrites(Data("mode\n".utf8), to: "batch/mode.txt")
        try await pair.run {
            let paths = files.indices.map { "batch/file\($0).bin" } + ["folder/inside.txt", "batch/mode.txt"]
            try #require(await pair.waitShownOnBeta(paths), "alpha's files did not show on beta\n\(pair.logs)")
            #expect(try await beta.waitSettled())
            var failures: [String] = []
            for (index, data) in files.enumerated() {
                let from = beta.file("batch/file\(index).bin").path, to = beta.file("batch/moved\(index).bin").path
                try #require(rename(from, to) == 0, "rename: errno \(errno)")
                do {
                    let read = try readBytes(to, at: 0, count: data.count)
                    if read != data { failures.append("moved\(index).bin: \(read.count) bytes, not alpha's") }
                } catch {
                    failures.append("moved\(index).bin: \(error)")
                }
            }
            try #require(rename(beta.file("folder").path, beta.file("renamed-folder").path) == 0, "rename: errno \(errno)")
            do {
                let read = try readBytes(beta.file("renamed-folder/inside.txt").path, at: 0, count: 100)
                if read != Data("in a directory\n".utf8) { failures.append("renamed-folder/inside.txt: \(read.count) bytes, not alpha's") }
            } catch {
                failures.append("renamed-folder/inside.txt: \(error)")
            }
            // Changed right after a rename: made local first, under its new name.
            try #require(rename(beta.file("batch/mode.txt").path, beta.file("batch/mode-renamed.txt").path) == 0, "rename: errno \(errno)")
            let changed = chmod(beta.file("batch/mode-renamed.txt").path, 0o600) == 0
            if !changed { failures.append("chmod mode-renamed.txt: errno \(errno)") }
            #expect(failures.isEmpty, "reads and changes right after a rename failed:\n\(failures.joined(separator: "\n"))\n\(pair.logs)")
            // Once the engine has the moves, they read (and alpha has them).
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
                files.indices.allSatisfy { FileManager.default.contents(atPath: alpha.file("batch/moved\($0).bin").path) == files[$0] }
                    && contents(alpha.file("renamed-folder/inside.txt")) == "in a directory\n"
                    && contents(alpha.file("batch/mode-renamed.txt")) == "mode\n"
                    && (!changed || lstatus(alpha.file("batch/mode-renamed.txt").path).map { $0.st_mode & 0o7777 } == 0o600)
            }
            #expect(reached, "alpha has the moved files\n\(pair.logs)")
            #expect(try await beta.waitSettled())
            let readLater = files.indices.filter { FileManager.default.contents(atPath: beta.file("batch/moved\($0).bin").path) != files[$0] }
            #expect(readLater.isEmpty, "not readable on beta even once synced: \(readLater)")
        }
    }

    @Test func aKilledDaemonLeavesENOTCONNAndItsRestartMountsAgainWithEveryFsyncedWrite() async throws {
        try pair.alphaWrites(Data("from alpha\n".utf8), to: "before.txt")
        let written = seededBytes(100_000, seed: 80)
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["before.txt"]), "before.txt did not show on beta\n\(pair.logs)")
            let descriptor = open(beta.file("fsynced.bin").path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0, "create through the mount: errno \(errno)")
            let count = written.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            #expect(count == written.count)
            #expect(fsync(descriptor) == 0, "fsync: errno \(errno)")
            await beta.crash()
            close(descriptor)

            // The dead daemon's mount answers ENOTCONN, never zeros or an empty directory.
            #expect(statErrno(beta.folder.path) == ENOTCONN)
            #expect(statErrno(beta.file("before.txt").path) == ENOTCONN)
            let opened = open(beta.file("before.txt").path, O_RDONLY | O_CLOEXEC), openErrno = errno
            if opened >= 0 { close(opened) }
            #expect(opened == -1 && openErrno == ENOTCONN, "open: errno \(openErrno)")
            #expect(beta.isMounted, "the mount stays until it is cleared")

            try beta.start()
            let mounted = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(20)) {
                beta.folderMountTypes == ["fuse.docsync"] && statErrno(beta.folder.path) == 0
            }
            #expect(mounted, "mounted once again: \(beta.folderMountTypes)\n\(pair.logs)")
            #expect(FileManager.default.contents(atPath: beta.file("fsynced.bin").path) == written, "the fsynced file survived")
            #expect(contents(beta.file("before.txt")) == "from alpha\n")
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
                FileManager.default.contents(atPath: alpha.file("fsynced.bin").path) == written
            }
            #expect(reached, "the fsynced file reaches alpha\n\(pair.logs)")
        }
    }

    /// The same for a folder that never synced anything (an empty one, just mounted): its
    /// dead mount is cleared at start as well, though `stat` of its path fails (ENOTCONN).
    @Test func aKilledDaemonOfAFolderNeverSyncedMountsAgain() async throws {
        try await pair.run {
            await beta.crash()
            #expect(statErrno(beta.folder.path) == ENOTCONN)
            try beta.start()
            let mounted = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(20)) {
                beta.folderMountTypes == ["fuse.docsync"] && statErrno(beta.folder.path) == 0 || !beta.isRunning
            }
            #expect(mounted && beta.isRunning, "beta started again and mounted: running \(beta.isRunning), mounts \(beta.folderMountTypes)\n\(pair.logs)")
            try #require(beta.isRunning)
            try Data("after the restart\n".utf8).write(to: beta.file("after.txt"))
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
                contents(alpha.file("after.txt")) == "after the restart\n"
            }
            #expect(reached, "a file written through the mount again reaches alpha\n\(pair.logs)")
        }
    }

    @Test func whatIsLeftInTheMountPointIsTakenInAtStart() async throws {
        try pair.alphaWrites(Data("from alpha\n".utf8), to: "remote.txt")
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["remote.txt"]), "remote.txt did not show on beta\n\(pair.logs)")
            #expect(try await beta.waitSettled())
            #expect(await beta.stop() == 0)
            #expect(!beta.isMounted, "the mount goes when the daemon stops")

            // Written into the bare mount point while nothing is mounted.
            try Data("left behind\n".utf8).write(to: beta.file("left.txt"))
            try FileManager.default.createDirectory(at: beta.file("left-dir"), withIntermediateDirectories: false)
            try Data("inner\n".utf8).write(to: beta.file("left-dir/inner.txt"))
            try Data("beta's own\n".utf8).write(to: beta.file("remote.txt"))

            try beta.start()
            #expect(await beta.waitMounted(), "\(pair.logs)")
            let shown = await eventually(timeout: .seconds(10), pollEvery: .milliseconds(50)) {
                contents(beta.file("left.txt")) == "left behind\n" && contents(beta.file("left-dir/inner.txt")) == "inner\n"
            }
            #expect(shown, "beta's mount: \(syncedNames(beta.folder))\n\(pair.logs)")
            // A name the folder already has is kept beside it, not lost.
            #expect(contents(beta.file("remote.txt")) == "from alpha\n")
            #expect(contents(beta.file("remote (left in the mount point).txt")) == "beta's own\n", "\(syncedNames(beta.folder))")
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
                contents(alpha.file("left.txt")) == "left behind\n" && contents(alpha.file("left-dir/inner.txt")) == "inner\n"
                    && contents(alpha.file("remote (left in the mount point).txt")) == "beta's own\n"
            }
            #expect(reached, "alpha has \(syncedNames(alpha.folder))\n\(pair.logs)")
            #expect(contents(alpha.file("remote.txt")) == "from alpha\n")
        }
    }
}
