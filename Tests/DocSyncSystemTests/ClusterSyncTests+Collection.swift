import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

extension ClusterSyncTests {
    /// `docsync-server gc --user NAME` on the scale-out store, while instances run: that
    /// user's storage is collected and nobody else's, as on the embedded store; without
    /// `--user`, everyone's.
    @Test func gcOfOneUserCollectsThatUserOnly() async throws {
        let cluster = try await Cluster.start()
        do {
            let ana = try HTTPBackend(url: cluster.first.url, token: try await cluster.first.addUser("ana"))
            let bob = try HTTPBackend(url: cluster.second.url, token: try await cluster.second.addUser("bob"))
            // A chunk each that no record names: garbage once the grace period (0 here) is over.
            let anas = Data("ana's chunk nothing names".utf8), bobs = Data("bob's chunk nothing names".utf8)
            try await ana.uploadChunks([ChunkUpload(digest: SHA256Digest(hashing: anas), bytes: anas)])
            try await bob.uploadChunks([ChunkUpload(digest: SHA256Digest(hashing: bobs), bytes: bobs)])

            func gc(_ arguments: [String]) async throws -> String {
                let result = try await runProcess(builtProduct("docsync-server"), ["gc", "--gc-grace", "0"] + arguments + cluster.storage.serverArguments,
                                                  environment: cluster.storage.serverEnvironment)
                #expect(result.status == 0, "\(result.errors)")
                return result.output
            }
            let one = try await gc(["--user", "ana"])
            #expect(one.hasPrefix("ana: ") && one.split(separator: "\n").count == 1, "one line, for ana: \(one)")
            #expect(try await ana.missingChunks([SHA256Digest(hashing: anas)]).count == 1, "ana's garbage is collected")
            #expect(try await bob.missingChunks([SHA256Digest(hashing: bobs)]).isEmpty, "bob's is not: only ana was named")

            let unknown = try await runProcess(builtProduct("docsync-server"), ["gc", "--user", "carol"] + cluster.storage.serverArguments,
                                               environment: cluster.storage.serverEnvironment)
            #expect(unknown.status == 2 && unknown.errors.contains("no user"), "\(unknown.errors)")

            let everyone = try await gc([])
            #expect(everyone.hasPrefix("all users: "), "\(everyone)")
            #expect(try await bob.missingChunks([SHA256Digest(hashing: bobs)]).count == 1, "without --user, everyone's")
            await ana.shutdown()
            await bob.shutdown()
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }
}
