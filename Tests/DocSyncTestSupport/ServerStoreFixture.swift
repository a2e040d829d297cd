import DocSyncCore
import DocSyncScaleOut
import DocSyncServer
import DocSyncStorage
import Foundation

/// A fresh, empty docsync-server store for one case of the server-store suite, with another
/// instance of the same storage (a second `docsync-server` process, or after a restart).
public struct ServerStoreFixture: Sendable {
    public let store: any ServerStore
    /// Another instance of the same storage, as another server process would open it.
    public let openAnotherInstance: @Sendable () async throws -> any ServerStore
    /// Releases what the fixture holds (instances, a database, a bucket); called once a case
    /// is over, pass or fail.
    public let close: @Sendable () async -> Void

    public init(store: any ServerStore, openAnotherInstance: @escaping @Sendable () async throws -> any ServerStore,
                close: @escaping @Sendable () async -> Void = {}) {
        self.store = store
        self.openAnotherInstance = openAnotherInstance
        self.close = close
    }
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
        return ServerStoreFixture(store: store, openAnotherInstance: { _ = directory; return try EmbeddedServerStore(dataDirectory: url, settings: settings) })
    }
}

/// The scale-out store on a fresh database and bucket of the services `make test` starts.
public struct ScaleOutServerStoreFactory: ServerStoreFixtureFactory {
    public init() {}

    public func makeFixture(settings: StoreSettings) async throws -> ServerStoreFixture {
        let storage = try await ScaleOutTestStorage.make(settings: settings)
        do {
            let store = ScaleOutServerStore(store: try await storage.open())
            return ServerStoreFixture(store: store, openAnotherInstance: { ScaleOutServerStore(store: try await storage.open()) },
                                      close: { await storage.close() })
        } catch {
            await storage.close()
            throw error
        }
    }
}
