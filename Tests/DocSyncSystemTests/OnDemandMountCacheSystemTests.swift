import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// SPEC §14 against docsync-server: the cache limit (pinned and unsent files kept, the rest
/// evicted) and reads with the server unreachable (metadata and local content work, content
/// not local fails with EIO within `fetch_timeout`).
@Suite(.serialized, .enabled(if: fuseAvailable, "needs /dev/fuse"))
struct OnDemandMountCacheSystemTests {
    @Test func theCacheLimitKeepsPinnedAndUnsentFilesAndReadsFailInTimeOffline() async throws {
        let base = try TemporaryDirectory("docsync-mount-cache")
        let server = try await ServerProcess(dataDirectory: base.url.appendingPathComponent("server"))
        var tokens: [URL] = []
        let first = try await server.addUser("me")
        for (index, token) in [first, try await server.userCommand(["token", "me"])].enumerated() {
            let file = base.url.appendingPathComponent("token-\(index)")
            try Data((token + "\n").utf8).write(to: file)
            tokens.append(file)
        }
        let alpha = try DaemonProcess(name: "alpha", base: base.url, backend: server.url, extraArguments: ["--token-file", tokens[0].path])
        let beta = try DaemonProcess(name: "beta", base: base.url, backend: server.url, extraArguments: [
            "--token-file", tokens[1].path, "--mode", "on-demand", "--cache-max-size", "1MB", "--fetch-timeout", "2",
        ])
        try await closing({
            server.signal(SIGCONT)
            await beta.stop()
            await alpha.stop()
            await beta.unmountLeftover()
            _ = try? await server.stop()
        }) {
            try alpha.start()
            try beta.start()
            #expect(await beta.waitMounted())
            let contents = (1...4).map { seededBytes(600_000, seed: UInt64($0)) }
            for (index, data) in contents.enumerated() { try data.write(to: alpha.file("f\(index + 1).bin")) }
            try Data("a small note\n".utf8).write(to: alpha.file("note.txt"))
            #expect(await eventually(timeout: .seconds(60)) {
                (1...4).allSatisfy { lstatus(beta.file("f\($0).bin").path)?.st_size == 600_000 } && lstatus(beta.file("note.txt").path) != nil
            })
            #expect(try await alpha.waitSettled())
            #expect(try await beta.waitSettled())

            // f1 pinned; f2 and f3 downloaded (which pins), then unpinned: 1.8 MB local, over 1 MB.
            #expect(try await beta.docsStatus(["pin", beta.file("f1.bin").path]).status == 0)
            #expect(try await beta.docsStatus(["download", beta.file("f2.bin").path, beta.file("f3.bin").path]).status == 0)
            #expect(try await beta.docsStatus(["unpin", beta.file("f2.bin").path, beta.file("f3.bin").path]).status == 0)
            #expect(docsyncStatus(beta.file("f1.bin").path) == "local")
            // The cache keeper evicts the unpinned ones; the pinned one stays.
            #expect(await eventually(timeout: .seconds(30)) {
                docsyncStatus(beta.file("f2.bin").path) == "remote" && docsyncStatus(beta.file("f3.bin").path) == "remote"
            }, "beta's log:\n\(beta.logTextWithoutRequests().suffix(3000))")
            #expect(docsyncStatus(beta.file("f1.bin").path) == "local")
            #expect(try readBytes(beta.file("f2.bin").path, at: 0, count: 600_000) == contents[1], "an evicted file reads again")

            // The server stops answering (its connections hang).
            let refusalsBefore = beta.logTextWithoutRequests().components(separatedBy: "nothing in it can be evicted").count
            server.signal(SIGSTOP)
            // Written now: it cannot be sent, so it is never evicted, whatever the limit.
            let draft = seededBytes(700_000, seed: 9)
            try draft.write(to: beta.file("draft.bin"))
            // Metadata and local content keep working.
            #expect(lstatus(beta.file("f4.bin").path)?.st_size == 600_000)
            #expect(try FileManager.default.contentsOfDirectory(atPath: beta.folder.path).contains("note.txt"))
            #expect(try readBytes(beta.file("f1.bin").path, at: 0, count: 600_000) == contents[0])
            // Content that is not local fails with EIO within fetch_timeout (2 s), not forever.
            let started = ContinuousClock.now
            var failure: PosixError?
            do { _ = try readBytes(beta.file("f4.bin").path, at: 0, count: 4096) } catch let error as PosixError { failure = error }
            let waited = ContinuousClock.now - started
            #expect(failure?.code == EIO, "\(String(describing: failure))")
            #expect(waited < .seconds(6), "the read failed after \(waited)")
            // Two more rounds of the keeper over the limit with the draft unsent: it stays.
            #expect(await eventually(timeout: .seconds(20)) {
                beta.logTextWithoutRequests().components(separatedBy: "nothing in it can be evicted").count >= refusalsBefore + 2
            }, "beta's log:\n\(beta.logTextWithoutRequests().suffix(3000))")
            #expect(try Data(contentsOf: beta.file("draft.bin")) == draft)
            #expect(FileManager.default.fileExists(atPath: beta.contentDirectory.appendingPathComponent("draft.bin").path))
            #expect(docsyncStatus(beta.file("f1.bin").path) == "local")

            // Back: the draft is sent and the file not local reads.
            server.signal(SIGCONT)
            #expect(await eventually(timeout: .seconds(60)) { (try? Data(contentsOf: alpha.file("draft.bin"))) == draft })
            #expect(try readBytes(beta.file("f4.bin").path, at: 0, count: 600_000) == contents[3])
        }
    }
}
