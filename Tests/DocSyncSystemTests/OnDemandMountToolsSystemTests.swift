import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Real programs working inside beta's mount (SPEC §14: "everything a program does on a
/// local disk works"): sqlite3, git, rsync and cp; alpha then has the same result.
extension OnDemandMountSystemTests {
    static let sqlite = URL(fileURLWithPath: "/usr/bin/sqlite3")
    static let git = URL(fileURLWithPath: "/usr/bin/git")
    static let rsync = URL(fileURLWithPath: "/usr/bin/rsync")

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite.path), "sqlite3 is not installed (Debian package sqlite3)"))
    func sqliteCreatesAndUpdatesADatabaseInTheMount() async throws {
        try await pair.run {
            let home = pair.scratch
            let create = try await sh("""
                sqlite3 notes.db "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('one'), ('two');"
                """, in: beta.folder, home: home)
            #expect(create.status == 0, "sqlite3 create: \(create.errors)")
            let update = try await sh("""
                sqlite3 notes.db "BEGIN; UPDATE notes SET body = 'TWO' WHERE id = 2; INSERT INTO notes(body) VALUES ('three'); COMMIT;"
                """, in: beta.folder, home: home)
            #expect(update.status == 0, "sqlite3 update: \(update.errors)")
            let rows = "1|one\n2|TWO\n3|three\n"
            let select = "sqlite3 -readonly notes.db 'SELECT id, body FROM notes ORDER BY id; PRAGMA integrity_check;'"
            let onBeta = try await sh(select, in: beta.folder, home: home)
            #expect(onBeta.output == rows + "ok\n", "beta: \(onBeta)")

            var onAlpha: (status: Int32, output: String, errors: String) = (-1, "", "")
            let same = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) {
                onAlpha = try await sh(select, in: alpha.folder, home: home)
                return onAlpha.output == rows + "ok\n" && syncedNames(alpha.folder) == ["notes.db"]
            }
            #expect(same, "alpha reads \(onAlpha) beside \(syncedNames(alpha.folder))\n\(pair.logs)")
            #expect(syncedNames(beta.folder) == ["notes.db"], "no journal is left on beta")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: git.path), "git is not installed"))
    func gitWorksInTheMountAndAlphaHasTheSameRepository() async throws {
        try await pair.run {
            let home = pair.scratch, repository = beta.file("repo")
            try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: false)
            let script = """
                set -e
                git init -q -b main
                git config user.name Tester && git config user.email tester@example.com
                printf 'one\\n' > a.txt && mkdir docs && printf 'guide\\n' > docs/guide.md
                git add -A && git commit -q -m first
                git branch feature && git checkout -q feature
                printf 'two\\n' > b.txt && git add b.txt && git commit -q -m 'second on feature'
                git checkout -q main
                printf 'three\\n' >> a.txt && git commit -q -am 'third on main'
                git gc -q
                git status --porcelain
                """
            let made = try await sh(script, in: repository, home: home)
            #expect(made.status == 0 && made.output.isEmpty, "git in beta's mount: \(made)")
            let log = "git log --all --oneline --decorate=no"
            let betaLog = try await sh(log, in: repository, home: home)
            #expect(betaLog.status == 0 && betaLog.output.split(separator: "\n").count == 3, "\(betaLog)")
            let fsck = try await sh("git fsck --full --strict", in: repository, home: home)
            #expect(fsck.status == 0, "git fsck in beta's mount: \(fsck)")

            let copy = alpha.file("repo")
            var alphaLog: (status: Int32, output: String, errors: String) = (-1, "", "")
            var alphaStatus: (status: Int32, output: String, errors: String) = (-1, "", "")
            let same = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(250)) {
                alphaLog = try await sh(log, in: copy, home: home)
                guard alphaLog.status == 0, alphaLog.output == betaLog.output else { return false }
                alphaStatus = try await sh("git --no-optional-locks status --porcelain", in: copy, home: home)
                return alphaStatus.status == 0 && alphaStatus.output.isEmpty
            }
            #expect(same, "alpha's repository: log \(alphaLog), status \(alphaStatus)\n\(pair.logs)")
            let alphaFsck = try await sh("git fsck --full --strict", in: copy, home: home)
            #expect(alphaFsck.status == 0, "git fsck on alpha: \(alphaFsck)")
            let branch = try await sh("git rev-parse --abbrev-ref HEAD", in: copy, home: home)
            #expect(branch.output == "main\n")

            // The other way: a commit made on alpha is read by git through beta's mount (its
            // objects and index not local there).
            #expect(try await alpha.waitSettled())
            #expect(try await beta.waitSettled())
            let committed = try await sh("printf 'four\\n' > c.txt && git add c.txt && git commit -q -m 'fourth on alpha' && git gc -q", in: copy, home: home)
            #expect(committed.status == 0, "git on alpha: \(committed)")
            var betaHead: (status: Int32, output: String, errors: String) = (-1, "", "")
            let shown = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(250)) {
                betaHead = try await sh("git log -1 --format=%s", in: repository, home: home)
                return betaHead.output == "fourth on alpha\n"
            }
            #expect(shown, "beta's git log: \(betaHead)\n\(pair.logs)")
            #expect(try await alpha.waitSettled())
            #expect(try await beta.waitSettled())
            let betaStatus = try await sh("git --no-optional-locks status --porcelain && git fsck --full --strict", in: repository, home: home)
            #expect(betaStatus.status == 0 && betaStatus.output.isEmpty, "git status and fsck in beta's mount: \(betaStatus)")
        }
    }

    /// `rsync -a` and `cp -a` of a tree with modes, times, an empty directory and a symlink.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: rsync.path), "rsync is not installed"))
    func rsyncAndCopyOfATreeIntoTheMount() async throws {
        let source = pair.scratch.appendingPathComponent("source")
        for index in 0 ..< 300 {
            let directory = index % 3 == 0 ? "top" : "top/d\(index % 7)/e\(index % 2)"
            let file = source.appendingPathComponent("\(directory)/file\(index).dat")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try seededBytes(index * 97 % 20_000, seed: UInt64(100 + index)).write(to: file)
            #expect(chmod(file.path, [0o644, 0o600, 0o755][index % 3]) == 0)
            let time = timespec(tv_sec: 1_400_000_000 + index * 3_600, tv_nsec: 0)
            #expect(utimensat(AT_FDCWD, file.path, [time, time], 0) == 0)
        }
        try FileManager.default.createDirectory(at: source.appendingPathComponent("top/empty"), withIntermediateDirectories: true)
        #expect(symlink("d1/e0/file1.dat", source.appendingPathComponent("top/link").path) == 0)
        let expected = facts(source, modificationTimes: true)

        try await pair.run {
            let rsync = try await runProcess(Self.rsync, ["-a", source.path + "/", beta.file("rsynced").path])
            #expect(rsync.status == 0, "rsync -a into beta's mount: \(rsync.errors)")
            let copy = try await runProcess(URL(fileURLWithPath: "/bin/cp"), ["-a", source.path, beta.file("copied").path])
            #expect(copy.status == 0, "cp -a into beta's mount: \(copy.errors)")
            for name in ["rsynced", "copied"] {
                let shown = facts(beta.file(name), modificationTimes: true)
                #expect(shown == expected, "beta's \(name):\n\(difference(shown, expected))")
            }
            let reached = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
                facts(alpha.file("rsynced"), modificationTimes: true) == expected && facts(alpha.file("copied"), modificationTimes: true) == expected
            }
            let rsynced = facts(alpha.file("rsynced"), modificationTimes: true), copied = facts(alpha.file("copied"), modificationTimes: true)
            #expect(reached, "alpha's rsynced:\n\(difference(rsynced, expected))\nalpha's copied:\n\(difference(copied, expected))\n\(pair.logs)")
            #expect(syncedNames(alpha.folder).sorted() == ["copied", "rsynced"], "nothing else (no rsync temporary) on alpha")
        }
    }
}
