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

/// docsync-server: the API of `WireRoute` over Hummingbird, for the users of one data
/// directory. `run()` serves until SIGTERM or SIGINT, then stops gracefully (open
/// notification streams end, requests in progress finish) and returns.
public struct SyncServer: Sendable {
    public let configuration: ServerConfiguration
    public let users: UserStore
    public let backends: UserBackends
    let rateLimiter: RateLimiter
    let logger: Logger

    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "docsync.server")) throws(SyncError) {
        self.configuration = configuration
        self.users = try UserStore(dataDirectory: configuration.dataDirectory)
        self.backends = UserBackends(dataDirectory: configuration.dataDirectory, settings: configuration.storeSettings)
        self.rateLimiter = RateLimiter(ratePerSecond: configuration.rateLimit)
        self.logger = logger
    }

    /// The router of every route under `/v1`, behind authentication; every error, an
    /// unknown route's too, is answered with a `SyncError` body.
    public func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: ErrorMiddleware())
        let api = router.group("v1")
            .add(middleware: AuthenticationMiddleware(users: users, rateLimiter: rateLimiter))
        let quotas = AccountQuotas(users: users)
        let records = RecordRoutes(backends: backends, quotas: quotas)
        records.register(on: api)
        RecentlyDeletedRoutes(records: records).register(on: api)
        ChunkRoutes(backends: backends, quotas: quotas).register(on: api)
        NotificationRoute(backends: backends).register(on: api)
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
            services: [IdleStorageService(backends: backends, interval: .seconds(60)),
                       CollectionService(users: users, backends: backends, interval: configuration.storeSettings.collectionInterval, logger: logger)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? listen.port
                let url = "\(scheme)://\(listen.urlHost):\(port)"
                logger.info("listening", metadata: ["url": "\(url)"])
                onListening(url)
            },
            logger: logger
        )
        try await app.runService()  // graceful shutdown on SIGTERM and SIGINT
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
