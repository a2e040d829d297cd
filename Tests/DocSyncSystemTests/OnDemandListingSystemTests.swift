import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Listing an on-demand folder reads no content (SPEC §14), counted at docsync-server: over
/// 10,000 files not local, `ls -lR`, `stat` of each, `find -printf` and `du --apparent-size`
/// make no chunk request; reading one file makes some (so the count is real).
@Suite(.serialized, .enabled(if: fuseAvailable, "needs /dev/fuse"))
struct OnDemandListingSystemTests {
    @Test func listingTenThousandRemoteFilesFetchesNothingFromTheServer() async throws {
        let base = try TemporaryDirectory("docsync-mount-listing")
        let server = try await ServerProcess(dataDirectory: base.url.appendingPathComponent("server"), extraArguments: ["--log-level", "debug"])
        let token = base.url.appendingPathComponent("token")
        try Data((try await server.addUser("me") + "\n").utf8).write(to: token)
        let alpha = try DaemonProcess(name: "alpha", base: base.url, backend: server.url, extraArguments: ["--token-file", token.path])
        let beta = try DaemonProcess(name: "beta", base: base.url, backend: server.url, extraArguments: ["--token-file", token.path, "--mode", "on-demand"])
        for directory in 0 ..< 100 {
            let folder = alpha.file(String(format: "d%03d", directory))
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for index in 0 ..< 100 { try Data("file \(index) of \(directory)\n".utf8).write(to: folder.appendingPathComponent("f\(index).txt")) }
        }
        /// The chunk reads the server answered so far (its debug log has a line per request).
        func chunkReads() -> Int {
            let log = (try? String(contentsOf: server.dataDirectory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            return log.split(separator: "\n").filter { $0.contains("/v1/chunks/download") || ($0.contains("GET") && $0.contains("/v1/chunks/")) }.count
        }
        try await closing({
            await beta.stop()
            await alpha.stop()
            await beta.unmountLeftover()
            _ = try? await server.stop()
        }) {
            try alpha.start()
            try beta.start()
            try #require(await beta.waitMounted())
            let shownAll = await eventually(timeout: .seconds(240), pollEvery: .milliseconds(500)) {
                walk(beta.folder).values.filter { $0.st_mode & S_IFMT == S_IFREG }.count == 10_000
            }
            try #require(shownAll, "beta shows \(walk(beta.folder).count) items\n\(beta.logTextWithoutRequests().suffix(2000))")
            #expect(try await beta.waitSettled(timeout: 120))
            let before = chunkReads()

            let home = base.url.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            for command in ["ls -lR . > /dev/null", "find . -printf '%s %m %t %p\\n' > /dev/null", "du -s --apparent-size ."] {
                let result = try await sh(command, in: beta.folder, home: home)
                #expect(result.status == 0, "\(command): \(result.errors)")
            }
            let sizes = walk(beta.folder).filter { $0.value.st_mode & S_IFMT == S_IFREG }.map { Int($0.value.st_size) }
            #expect(sizes.count == 10_000 && sizes.allSatisfy { $0 > 0 }, "every file shows its size")
            #expect(chunkReads() == before, "listing asked the server for \(chunkReads() - before) chunk reads")
            #expect(walk(beta.partialDirectory).isEmpty, "nothing was fetched into the partial cache")

            // The count is real: reading one file asks the server.
            #expect(FileManager.default.contents(atPath: beta.file("d042/f7.txt").path) == Data("file 7 of 42\n".utf8))
            #expect(chunkReads() > before, "a read asks the server for its chunk")
        }
    }
}
