import DocSyncCore
import DocSyncScaleOut
import DocSyncServer
import DocSyncStorage
import Foundation
import Testing

/// A fresh, empty docsync-server store for one case of the server-store suite, with another
/// instance of the same storage (a second `docsync-server` process, or after a restart).
public struct ServerStoreFixture: Sendable {
    public let store: any ServerStore
    /// Another instance of the same storage, as another server process would open it.
    public let openAnotherInstance: @Sendable () async throws -> any ServerStore
    /// What an administrator of the storage can do behind the server's back, for a user:
    /// damage a stored chunk, compact every tombstone however young, collect garbage now.
    public let corruptChunk: @Sendable (_ user: String, SHA256Digest) async throws -> Void
    public let compactAllTombstones: @Sendable (_ user: String) async throws -> Void
    public let collectGarbage: @Sendable (_ user: String) async throws -> Void
    /// Releases what the fixture holds (instances, a database, a bucket); called once a case
    /// is over, pass or fail.
    public let close: @Sendable () async -> Void
}

/// Makes a fresh `ServerStoreFixture` per call, whose users' storage keeps and collects by
/// `settings` (its schedule never runs during a case). One per kind of store.
public protocol ServerStoreFixtureFactory: Sendable {
    func makeFixture(settings: StoreSettings) async throws -> ServerStoreFixture
}

/// The one-machine store: `users.sqlite` and a `LocalBackend` per user in a temporary data directory.
public struct EmbeddedServerStoreFactory: ServerStoreFixtureFactory {
    public init() {}

    public func makeFixture(settings: StoreSettings) async throws -> ServerStoreFixture {
        let directory = try TemporaryDirectory("docsync-server-store")
        let url = directory.url
        let store = try EmbeddedServerStore(dataDirectory: url, settings: settings)
        return ServerStoreFixture(
            store: store,
            openAnotherInstance: { _ = directory; return try EmbeddedServerStore(dataDirectory: url, settings: settings) },
            corruptChunk: { user, digest in try corruptStoredChunk(digest, in: try store.backends.backend(for: user)) },
            compactAllTombstones: { user in try store.backends.backend(for: user).compactTombstones(olderThan: -1) },
            collectGarbage: { user in try await collectFully(try store.backends.backend(for: user)) },
            close: {})
    }
}

/// The scale-out store on a fresh database and bucket of the services `make test` starts.
public struct ScaleOutServerStoreFactory: ServerStoreFixtureFactory {
    public init() {}

    public func makeFixture(settings: StoreSettings) async throws -> ServerStoreFixture {
        let storage = try await ScaleOutTestStorage.make(settings: settings)
        do {
            let scaleOut = try await storage.open()
            let store = ScaleOutServerStore(store: scaleOut)
            @Sendable func backend(_ user: String) async throws -> ScaleOutBackend {
                scaleOut.backend(account: try #require(try await scaleOut.accountID(named: user)))
            }
            return ServerStoreFixture(
                store: store,
                openAnotherInstance: { ScaleOutServerStore(store: try await storage.open()) },
                corruptChunk: { user, digest in try await corrupt(digest, of: try await backend(user), in: storage) },
                compactAllTombstones: { _ in try await ScaleOutCollector(store: scaleOut).compactTombstones(olderThan: -1) },
                collectGarbage: { _ in try await collectFully(scaleOut) },
                close: { await storage.close() })
        } catch {
            await storage.close()
            throw error
        }
    }
}
