import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Switching a folder between `mirror` and `on-demand` (SPEC §14): refused while a process
/// has a file of it open (exit 1, saying why); otherwise its files move by rename — the same
/// inodes, nothing fetched — and a folder that becomes a mirror downloads what was not local.
extension OnDemandMountSystemTests {
    @Test func switchingModesMovesNoContentAndIsRefusedWhileFilesAreOpen() async throws {
        let local: [String: Data] = ["kept.bin": seededBytes(2_000_000, seed: 70), "dir/small.txt": Data("small\n".utf8)]
        for (path, data) in local { try pair.alphaWrites(data, to: path) }
        // gamma starts as a mirror and becomes on demand, then a mirror again (same state, same socket).
        let mirror = try DaemonProcess(name: "gamma", base: pair.base.url, backend: alpha.backend)
        let onDemand = try DaemonProcess(name: "gamma", base: pair.base.url, backend: alpha.backend, extraArguments: ["--mode", "on-demand"], socket: mirror.socket)
        try await closing({
            await mirror.stop()
            await onDemand.stop()
            await onDemand.unmountLeftover()
            await pair.close()
        }) {
            try alpha.start()
            try mirror.start()
            let listening = await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: alpha.socket) }
            try #require(listening, "alpha's control socket")
            #expect(try await alpha.waitSettled())
            let synced = await eventually(timeout: .seconds(60)) { facts(mirror.folder) == facts(alpha.folder) }
            try #require(synced, "gamma (mirror) did not get alpha's files:\n\(mirror.logTextWithoutRequests().suffix(3000))")
            let inodeBefore = try #require(lstatus(mirror.file("kept.bin").path)).st_ino
            await mirror.stop()

            // A process holding a file open: the switch is refused, saying why.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/bin/sleep")
            holder.arguments = ["600"]
            let held = try FileHandle(forReadingFrom: mirror.file("dir/small.txt"))
            holder.standardInput = held
            try holder.run()
            try held.close()  // the child's copy is the one open
            defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
            let openSeen = await eventually(timeout: .seconds(10)) {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(holder.processIdentifier)/fd/0")) == mirror.file("dir/small.txt").path
            }
            try #require(openSeen)
            try onDemand.start()
            let exited = await eventually(timeout: .seconds(30)) { !onDemand.isRunning }
            try #require(exited, "docsyncd kept running with a file of the folder open")
            #expect(await onDemand.stop() == 1)
            #expect(onDemand.logText().contains("cannot become on-demand while files in it are open (processes \(holder.processIdentifier) (sleep)"),
                    "\(onDemand.logText().suffix(2000))")
            #expect(!onDemand.isMounted)
            #expect(lstatus(mirror.file("kept.bin").path)?.st_ino == inodeBefore, "nothing moved while refused")
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()

            // Closed: the folder becomes on demand, its files renamed into the cache, local and unpinned.
            try onDemand.start()
            try #require(await onDemand.waitMounted(), "not mounted:\n\(onDemand.logTextWithoutRequests().suffix(3000))")
            #expect(lstatus(onDemand.contentDirectory.appendingPathComponent("kept.bin").path)?.st_ino == inodeBefore, "moved by rename")
            #expect(facts(onDemand.folder) == facts(alpha.folder), "\(difference(facts(onDemand.folder), facts(alpha.folder)))")
            #expect(docsyncStatus(onDemand.file("kept.bin").path) == "local")
            #expect(extendedAttribute("user.docsync.pinned", of: onDemand.file("kept.bin").path) == "0", "moved in unpinned")
            #expect(try await onDemand.waitSettled())
            #expect(walk(onDemand.partialDirectory).isEmpty, "nothing was fetched")

            // A file alpha adds now is not local on gamma; back to a mirror, it is downloaded.
            try pair.alphaWrites(seededBytes(1_500_000, seed: 71), to: "added-later.bin")
            let shown = await eventually(timeout: .seconds(60)) { lstatus(onDemand.file("added-later.bin").path)?.st_size == 1_500_000 }
            try #require(shown, "\(onDemand.logTextWithoutRequests().suffix(3000))")
            #expect(docsyncStatus(onDemand.file("added-later.bin").path) == "remote")
            #expect(try await onDemand.waitSettled())
            #expect(await onDemand.stop() == 0)
            #expect(!onDemand.isMounted)

            try mirror.start()
            let mirrored = await eventually(timeout: .seconds(60)) { facts(mirror.folder) == facts(alpha.folder) }
            #expect(mirrored, "gamma (mirror again) differs from alpha:\n\(difference(facts(mirror.folder), facts(alpha.folder)))\n\(mirror.logTextWithoutRequests().suffix(3000))")
            #expect(lstatus(mirror.file("kept.bin").path)?.st_ino == inodeBefore, "moved back by rename")
            #expect(!FileManager.default.fileExists(atPath: mirror.contentDirectory.path), "the content directory is gone")
            #expect(!mirror.isMounted)
            #expect(try await mirror.waitSettled())
        }
    }
}
