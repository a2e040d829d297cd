import DocSyncCore
import DocSyncHTTP
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// docsync-server: the API of `WireRoute` over Hummingbird, for the users of one store
/// (`ServerStore`: the embedded one of a data directory, or the scale-out one that many
/// instances share). `run()` serves until SIGTERM or SIGINT, then stops gracefully (open
/// notification streams end, requests in progress finish) and returns.
///
/// Besides `/v1`, three routes answer without a token: `/healthz` (the process serves),
/// `/readyz` (its store answers: a load balancer sends requests only to a ready instance)
/// and `/metrics` (`ServerMetrics`, for Prometheus).
public struct SyncServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any ServerStore
    public let metrics: ServerMetrics
    /// Set from the shutdown signal on (`/readyz` answers 503).
    public let drain = DrainState()
    let rateLimiter: any RequestAdmission
    let logger: Logger

    public init(configuration: ServerConfiguration, store: any ServerStore, metrics: ServerMetrics = ServerMetrics(),
                logger: Logger = Logger(label: "docsync.server")) {
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
        self.rateLimiter = store.rateLimiter(ratePerSecond: configuration.rateLimit)
        self.logger = logger
    }

    /// A server on the store `configuration` names (`ServerConfiguration.openStore`).
    public static func open(configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
                            logger: Logger = Logger(label: "docsync.server")) async throws(SyncError) -> SyncServer {
        SyncServer(configuration: configuration, store: try await configuration.openStore(logger: logger), metrics: metrics, logger: logger)
    }

    /// The router of every route under `/v1`, behind authentication; every error, an
    /// unknown route's too, is answered with a `SyncError` body. A method a route does not
    /// have is answered 405 with `Allow` (`MethodNotAllowedMiddleware`), a path no route
    /// has 404.
    public func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let routes = RouteTable()
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: TrafficMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware(routes: routes))
        HealthRoutes(store: store, metrics: metrics, drain: drain).register(on: router)
        let api = router.group("v1")
            .add(middleware: AuthenticationMiddleware(store: store, rateLimiter: rateLimiter, trustedProxies: configuration.trustedProxies))
        let quotas = AccountQuotas(store: store)
        let records = RecordRoutes(store: store, quotas: quotas)
        // The caller's own database, and the zones others share with it (SPEC §11): the same
        // routes, the storage and the permission decided per request by `ZoneGate`.
        let shared = api.group("shared/{\(ZoneGate.ownerParameter)}")
        for (database, isShared) in [(api, false), (shared, true)] {
            records.register(on: database, shared: isShared)
            RecentlyDeletedRoutes(records: records).register(on: database)
            ChunkRoutes(store: store, quotas: quotas).register(on: database)
            NotificationRoute(store: store).register(on: database)
        }
        ShareRoutes(store: store).register(on: api)
        // What the router serves, for the 405s: read once every route is registered.
        for route in router.routes { routes.add(route.path, route.method) }
        return router
    }

    /// Serves until SIGTERM or SIGINT. `onListening` gets the URL once connections are
    /// accepted (with the real port when the configuration asked for port 0).
    public func run(onListening: @escaping @Sendable (String) -> Void) async throws {
        let listen = configuration.listen
        let scheme = configuration.usesTLS ? "https" : "http"
        let server: HTTPServerBuilder
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            server = try .tls(.http1(), tlsConfiguration: try Self.tlsConfiguration(certificate: certificate, key: key))
        } else {
            server = .http1()
        }
        let logger = self.logger
        let app = Application(
            router: router(),
            server: server,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "docsync-server"),
            services: [IdleStorageService(store: store, interval: .seconds(60)),
                       CollectionService(store: store, interval: configuration.storeSettings.collectionInterval, logger: logger)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? listen.port
                let url = "\(scheme)://\(listen.urlHost):\(port)"
                logger.info("listening", metadata: ["url": "\(url)"])
                onListening(url)
            },
            logger: logger
        )
        // The drain runs before the HTTP server's own graceful shutdown: a group shuts its
        // services down last to first, each once the one after it has returned.
        let group = ServiceGroup(
            services: [app, DrainService(state: drain, delay: configuration.drainDelay, logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger
        )
        do {
            try await group.run()
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
        logger.info("stopped")
    }

    static func tlsConfiguration(certificate: URL, key: URL) throws(ServerConfigurationError) -> TLSConfiguration {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate.path).map { NIOSSLCertificateSource.certificate($0) }
            guard !chain.isEmpty else { throw ServerConfigurationError("\(certificate.path) holds no certificate") }
            let privateKey = try NIOSSLPrivateKey(file: key.path, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
        } catch let error as ServerConfigurationError {
            throw error
        } catch {
            throw ServerConfigurationError("cannot load the TLS certificate \(certificate.path) or key \(key.path) (\(error)); give PEM files")
        }
    }
}
