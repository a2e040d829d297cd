import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The server-store suite against the embedded store of one machine.
@Suite struct EmbeddedServerStoreConformanceTests {
    @Test(arguments: ServerStoreCase.allCases)
    func conforms(_ check: ServerStoreCase) async throws { try await check.run(with: EmbeddedServerStoreFactory()) }

    @Test func tokensAreStoredOnlyAsHashes() async throws {
        let directory = try TemporaryDirectory()
        let store = try EmbeddedServerStore(dataDirectory: directory.url, settings: StoreSettings())
        let token = try await store.addUser("alice", device: "laptop")
        let file = try Data(contentsOf: directory.url.appendingPathComponent("users.sqlite"))
            + ((try? Data(contentsOf: directory.url.appendingPathComponent("users.sqlite-wal"))) ?? Data())
        #expect(file.range(of: Data(token.utf8)) == nil, "the token itself is not stored")
        #expect(file.range(of: Data(AccessToken.hash(token).utf8)) != nil, "its hash is")
    }
}
