import DocSyncCore
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
    let store: any ServerStore

    /// Creates a user and returns its first token.
    func addUser(_ name: String, device: String? = nil) async throws -> String {
        try await store.addUser(name, device: device)
    }

    /// Runs `body` with a server on a fresh store of `kind` (keeping and collecting by
    /// `settings`), then stops both, whatever `body` did.
    static func with<T: Sendable>(
        _ kind: StoreKind, settings: StoreSettings = StoreSettings(collectionInterval: 0),
        _ body: @Sendable (RouteServer) async throws -> T
    ) async throws -> T {
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
        do {
            var iterator = ports.makeAsyncIterator()
            guard let bound = await iterator.next(), bound > 0 else { throw RouteServerError.notListening }
            let value = try await body(RouteServer(url: URL(string: "http://127.0.0.1:\(bound)")!, store: fixture.store))
            await group.triggerGracefulShutdown()
            try await running.value
            await fixture.close()
            return value
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            await fixture.close()
            throw error
        }
    }
}

enum RouteServerError: Error {
    case notListening
}
