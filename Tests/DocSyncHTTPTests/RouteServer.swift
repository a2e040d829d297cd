import DocSyncCore
import DocSyncHTTP
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing

/// The stores docsync-server's routes are tested on: every route test runs on each.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case embedded
    case scaleOut

    var testDescription: String { rawValue }

    var factory: any ServerStoreFixtureFactory {
        switch self {
        case .embedded: EmbeddedServerStoreFactory()
        case .scaleOut: ScaleOutServerStoreFactory()
        }
    }
}

/// docsync-server's routes (`SyncServer.router()`) served in this process on a loopback
/// port, over a fresh store of one kind: what a real socket shows (HTTP clients, streamed
/// bodies, `HTTPBackend`) without a process of its own.
struct RouteServer: Sendable {
    let url: URL
    let fixture: ServerStoreFixture
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    var store: any ServerStore { fixture.store }

    /// Creates a user and returns its first token.
    func addUser(_ name: String, device: String? = nil) async throws -> String {
        try await store.addUser(name, device: device)
    }

    /// Starts serving a fresh store of `kind`, keeping and collecting by `settings` (its
    /// schedule off: a test collects when it says so).
    static func start(_ kind: StoreKind, settings: StoreSettings = StoreSettings(collectionInterval: 0)) async throws -> RouteServer {
        let fixture = try await kind.factory.makeFixture(settings: settings)
        let configuration = ServerConfiguration(dataDirectory: nil, listen: ListenAddress(host: "127.0.0.1", port: 0), storeSettings: settings)
        let server = SyncServer(configuration: configuration, store: fixture.store)
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: server.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "docsync-server"),
                              onServerRunning: { channel in
                                  port.yield(channel.localAddress?.port ?? 0)
                                  port.finish()
                              })
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "test.route-server")))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            await fixture.close()
            throw RouteServerError.notListening
        }
        return RouteServer(url: URL(string: "http://127.0.0.1:\(bound)")!, fixture: fixture, group: group, running: running)
    }

    /// Stops serving (requests under way finish, push streams end) and releases the store.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        await fixture.close()
    }

    /// Runs `body` with a server on a fresh store of `kind`, then stops both, whatever `body` did.
    static func with<T: Sendable>(
        _ kind: StoreKind, settings: StoreSettings = StoreSettings(collectionInterval: 0),
        _ body: @Sendable (RouteServer) async throws -> T
    ) async throws -> T {
        let server = try await start(kind, settings: settings)
        return try await closing(server.stop) { try await body(server) }
    }
}

enum RouteServerError: Error {
    case notListening
}

/// `HTTPBackend`s of one user talking to docsync-server's routes served in this process over
/// a store of `kind`: the backend conformance suite through HTTP on every server store.
struct ServedBackendFixtureFactory: BackendFixtureFactory {
    let kind: StoreKind

    func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        var settings = settings
        settings.collectionInterval = 0
        let server = try await RouteServer.start(kind, settings: settings)
        do {
            let token = try await server.addUser("alice")
            let options = HTTPBackend.Options(reconnectInitialDelay: .milliseconds(50), reconnectMaximumDelay: .seconds(1))
            let backend = try HTTPBackend(url: server.url, token: token, options: options)
            let fixture = server.fixture
            return BackendFixture(
                backend: backend,
                openAnotherClient: { try HTTPBackend(url: server.url, token: token, options: options) },
                corruptChunk: { digest in try await fixture.corruptChunk("alice", digest) },
                compactAllTombstones: { try await fixture.compactAllTombstones("alice") },
                collectGarbage: { try await fixture.collectGarbage("alice") },
                close: {
                    await backend.shutdown()
                    await server.stop()
                })
        } catch {
            await server.stop()
            throw error
        }
    }
}
