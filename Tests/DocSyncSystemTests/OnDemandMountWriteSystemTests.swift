import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Changes made through beta's mount reach alpha as if made on a local disk, and alpha's
/// changes show through the mount (SPEC §14).
extension OnDemandMountSystemTests {
    /// The files alpha has before beta changes anything: all of them not local on beta.
    static let remoteFiles: [String: Data] = [
        "remote-edit.bin": seededBytes(300_000, seed: 40),
        "remote-chmod.txt": Data("mode me\n".utf8),
        "remote-times.txt": Data("time me\n".utf8),
        "remote-trunc.bin": seededBytes(100_000, seed: 41),
        "remote-delete.txt": Data("delete me\n".utf8),
        "tree/one.txt": Data("one\n".utf8),
        "tree/sub/two.txt": Data("two\n".utf8),
        "from-alpha.txt": Data("first-\n".utf8),
        "remote-saved.txt": Data("saved over\n".utf8),
        "remote-over.txt": Data("moved over a local file\n".utf8),
        "remote-append.txt": Data("a log\n".utf8),
        "remote-replace.txt": Data("replaced whole\n".utf8),
    ]

    /// A modification time set through the mount (2001-09-09).
    static let setTime = timespec(tv_sec: 1_000_000_000, tv_nsec: 123_456_789)

    /// The same changes, made in `root` (beta's mount, or a plain directory for reference):
    /// create, append, truncate, rename, mkdir, symlink, chmod, times, delete, `rm -r`, and a
    /// write in the middle of a file, and renames that replace a file (an editor's save over a
    /// file not local; a file not local moved over a new one).
    static func change(_ root: URL) async throws {
        func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
        func check(_ result: Int32, _ what: String) throws { if result != 0 { throw PosixError(errno, what + " in " + root.path) } }

        // Create, then append.
        let created = open(path("new.txt"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard created >= 0 else { throw PosixError(errno, "create new.txt in \(root.path)") }
        _ = "created\n".withCString { write(created, $0, 8) }
        close(created)
        let appending = open(path("new.txt"), O_WRONLY | O_APPEND | O_CLOEXEC)
        guard appending >= 0 else { throw PosixError(errno, "open new.txt to append") }
        _ = "appended\n".withCString { write(appending, $0, 9) }
        close(appending)
        // Appended to and written over (`>>` and `>`) when not local.
        let shell = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(root.path)' && printf 'one more line\\n' >> remote-append.txt && printf 'new\\n' > remote-replace.txt"])
        guard shell.status == 0 else { throw PosixError(0, ">> and > in \(root.path): \(shell.errors)") }
        // Truncate a new file and one that is not local.
        try Data(repeating: 0x61, count: 1_000).write(to: URL(fileURLWithPath: path("cut.txt")))
        try check(truncate(path("cut.txt"), 10), "truncate cut.txt")
        try check(truncate(path("remote-trunc.bin"), 5_000), "truncate remote-trunc.bin")
        // Rename, mkdir, symlink.
        try check(rename(path("new.txt"), path("renamed.txt")), "rename new.txt")
        try check(mkdir(path("made"), 0o755), "mkdir made")
        try check(mkdir(path("made/deeper"), 0o700), "mkdir made/deeper")
        try check(symlink("../renamed.txt", path("made/link")), "symlink made/link")
        // Modes and times, of a new file and of files not local.
        try check(chmod(path("renamed.txt"), 0o640), "chmod renamed.txt")
        try check(chmod(path("remote-chmod.txt"), 0o600), "chmod remote-chmod.txt")
        try check(utimensat(AT_FDCWD, path("remote-times.txt"), [setTime, setTime], 0), "utimensat remote-times.txt")
        // Delete a file, and a directory with what is in it.
        try check(unlink(path("remote-delete.txt")), "unlink remote-delete.txt")
        let removed = try await runProcess(URL(fileURLWithPath: "/bin/rm"), ["-r", path("tree")])
        guard removed.status == 0 else { throw PosixError(0, "rm -r tree: \(removed.errors)") }
        // Saved as editors do (a new file renamed over the old), over a file not local; and a
        // file not local renamed over a new one.
        try Data("saved by an editor\n".utf8).write(to: URL(fileURLWithPath: path(".remote-saved.txt.swp-new")))
        try check(rename(path(".remote-saved.txt.swp-new"), path("remote-saved.txt")), "rename over remote-saved.txt")
        try Data("a new file to be replaced\n".utf8).write(to: URL(fileURLWithPath: path("local-target.txt")))
        try check(rename(path("remote-over.txt"), path("local-target.txt")), "rename remote-over.txt over local-target.txt")
        // A file not local, edited in place in the middle.
        try writeBytes(Data("EDITED IN PLACE!".utf8), to: path("remote-edit.bin"), at: 150_000)
    }

    @Test func writesThroughTheMountReachAlphaAndAlphasChangesShow() async throws {
        let reference = pair.scratch.appendingPathComponent("reference")
        for (relative, data) in Self.remoteFiles {
            try pair.alphaWrites(data, to: relative)
            let copy = reference.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: copy)
        }
        try await pair.run {
            try #require(await pair.waitShownOnBeta(Array(Self.remoteFiles.keys)), "alpha's files did not show on beta\n\(pair.logs)")
            let notLocal = Self.remoteFiles.keys.sorted().filter { docsyncStatus(beta.file($0).path) != "remote" }
            #expect(notLocal.isEmpty, "not shown as remote on beta: \(notLocal)")
            // Read once through the mount, so a later change must replace what the kernel holds.
            #expect(contents(beta.file("from-alpha.txt")) == "first-\n")

            try await Self.change(reference)
            try await Self.change(beta.folder)
            // link() is refused: one file would be two items with one content.
            let linked = link(beta.file("renamed.txt").path, beta.file("hard.txt").path), linkErrno = errno
            #expect(linked == -1 && linkErrno == EPERM, "link: errno \(linkErrno)")
            #expect(lstatus(beta.file("hard.txt").path) == nil)

            // (Read once the changes are synced: a file not local read right after it was
            // renamed is another case, `readingFilesRightAfterMovingThem`.)
            let expected = facts(reference)
            let reached = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { facts(alpha.folder) == expected }
            #expect(reached, "alpha's folder is what a local disk shows:\n\(difference(facts(alpha.folder), expected))\n\(pair.logs)")
            #expect(try await beta.waitSettled())
            let shownOnBeta = facts(beta.folder)
            #expect(shownOnBeta == expected, "beta's mount shows what a local disk does:\n\(difference(shownOnBeta, expected))")
            // Modification times: the one set, and every file's as beta shows it.
            #expect(lstatus(alpha.file("remote-times.txt").path)?.st_mtim.tv_sec == Self.setTime.tv_sec)
            #expect(lstatus(beta.file("remote-times.txt").path)?.st_mtim.tv_sec == Self.setTime.tv_sec)
            let alphaTimes = facts(alpha.folder, modificationTimes: true), betaTimes = facts(beta.folder, modificationTimes: true)
            #expect(alphaTimes == betaTimes, "modification times differ:\n\(difference(alphaTimes, betaTimes))")
            for path in ["renamed.txt", "cut.txt", "remote-edit.bin", "remote-chmod.txt", "remote-saved.txt"] {
                #expect(docsyncStatus(beta.file(path).path) == "local", "\(path) is local once uploaded")
            }

            // Alpha's edit (same size, so only the time tells) and a new file show through the mount.
            try pair.alphaWrites(Data("second\n".utf8), to: "from-alpha.txt")
            try pair.alphaWrites(Data("new on alpha\n".utf8), to: "alpha-dir/new.txt")
            let shown = await eventually(timeout: .seconds(15), pollEvery: .milliseconds(100)) {
                contents(beta.file("from-alpha.txt")) == "second\n" && contents(beta.file("alpha-dir/new.txt")) == "new on alpha\n"
            }
            #expect(shown, "beta shows \(contents(beta.file("from-alpha.txt")) ?? "nothing") and \(contents(beta.file("alpha-dir/new.txt")) ?? "nothing")\n\(pair.logs)")
        }
    }
}
