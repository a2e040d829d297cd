import DocSyncCore
import DocSyncFUSE
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// The on-demand mount as an ordinary user has it (SPEC §14: unprivileged, through the
/// setuid `fusermount3`): both daemons run as the machine's first ordinary user; the mount
/// is that user's, serves them, survives a kill -9 (ENOTCONN, cleared by fusermount3 at the
/// next start) and goes when the daemon stops. Skipped where there is no such user, this
/// process is not root, or that user may not open `/dev/fuse` (`make test` makes it 0666, as
/// a Linux distribution's udev does).
@Suite("on-demand folders mounted by an ordinary user", .serialized,
       .enabled(if: fuseAvailable && UnprivilegedUser.available != nil && access("/dev/fuse", R_OK | W_OK) == 0
                && (lstatus("/dev/fuse").map { $0.st_mode & 0o006 == 0o006 } ?? false),
                "needs root, an ordinary user of this machine and /dev/fuse open to every user"))
struct OnDemandUnprivilegedSystemTests {
    @Test func anOrdinaryUserMountsReadsWritesAndRecovers() async throws {
        let user = try #require(UnprivilegedUser.available)
        let base = try TemporaryDirectory("docsync-user-mount")
        let backend = base.url.appendingPathComponent("backend")
        let alpha = try DaemonProcess(name: "alpha", base: base.url, backend: backend, runAs: user)
        let beta = try DaemonProcess(name: "beta", base: base.url, backend: backend, extraArguments: ["--mode", "on-demand"], runAs: user)
        try Data("from alpha\n".utf8).write(to: alpha.file("hello.txt"))
        try user.own(base.url)
        /// `script` run by /bin/sh as the user (the mount serves its owner alone, root included).
        func asUser(_ script: String) async throws -> (status: Int32, output: String, errors: String) {
            try await runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"), user.setprivArguments + ["/bin/sh", "-c", script], environment: ["LC_ALL": "C"])
        }
        try await closing({
            await alpha.stop()
            await beta.stop()
            await beta.unmountLeftover()
        }) {
            try alpha.start()
            try beta.start()
            try #require(await beta.waitMounted(), "not mounted as \(user.name):\n\(beta.logTextWithoutRequests().suffix(3000))")
            let options = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8).split(separator: "\n")
                .first { $0.contains(" \(beta.folder.path) ") && $0.contains("fuse.docsync") }.map(String.init) ?? ""
            #expect(options.contains("user_id=\(user.uid)"), "the mount is the user's: \(options)")

            let shown = await eventually(timeout: .seconds(60)) {
                (try? await asUser("cat '\(beta.file("hello.txt").path)'"))?.output == "from alpha\n"
            }
            #expect(shown, "the user reads alpha's file through the mount\n\(beta.logTextWithoutRequests().suffix(2000))")
            let wrote = try await asUser("printf 'from beta\\n' > '\(beta.file("reply.txt").path)'")
            #expect(wrote.status == 0, "\(wrote.errors)")
            let arrived = await eventually(timeout: .seconds(60)) { FileManager.default.contents(atPath: alpha.file("reply.txt").path) == Data("from beta\n".utf8) }
            #expect(arrived)
            #expect(try await beta.waitSettled())

            // Killed: the mount answers ENOTCONN; the next start clears it (fusermount3) and mounts again.
            await beta.crash()
            let dead = try await asUser("cat '\(beta.file("hello.txt").path)'")
            #expect(dead.status != 0 && dead.errors.contains("not connected"), "\(dead)")
            try beta.start()
            let back = await eventually(timeout: .seconds(30)) {
                (try? await asUser("cat '\(beta.file("reply.txt").path)'"))?.output == "from beta\n"
            }
            #expect(back, "mounted again after kill -9:\n\(beta.logTextWithoutRequests().suffix(2000))")
            #expect(beta.folderMountTypes == ["fuse.docsync"], "the stale mount was cleared, not stacked: \(beta.folderMountTypes)")

            #expect(await beta.stop() == 0)
            #expect(!beta.isMounted, "fusermount3 unmounted it")
        }
    }
}
