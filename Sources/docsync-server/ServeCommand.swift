import ArgumentParser
import DocSyncCommandLine
import DocSyncCore
import DocSyncPlatform
import DocSyncServer
import Foundation
import Logging

/// `docsync-server serve`: runs the server until SIGTERM or SIGINT, then drains (`SyncServer`:
/// `/readyz` answers 503 for `--drain-delay`, then it closes). Prints one line,
/// `listening on http(s)://HOST:PORT`, to stdout once it accepts connections; logs to stderr.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server (the default command).",
        discussion: "Flags override the configuration file. Plain HTTP is served only on a loopback address; elsewhere give --tls-cert and --tls-key."
    )

    @Option(name: .long, help: ArgumentHelp("The data directory: users, tokens and every user's storage.", valueName: "dir"))
    var data: String?

    @OptionGroup var scaleOut: ScaleOutOptions

    @Option(name: .long, help: ArgumentHelp("HOST:PORT to listen on (default 127.0.0.1:8787; port 0 picks a free one).", valueName: "host:port"))
    var listen: String?

    @Option(name: .long, help: ArgumentHelp("A TOML configuration file (keys: data, listen, tls_cert, tls_key, rate_limit, trusted_proxies, drain_delay, deleted_retention, gc_interval, gc_grace; [storage] records, chunks, credentials).", valueName: "file"))
    var config: String?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain: serve HTTPS.", valueName: "pem"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "pem"))
    var tlsKey: String?

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp("Requests per second per device token (default 200, bursts of ten seconds' worth).", valueName: "n"))
    var rateLimit: Double?

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("The address of a load balancer whose X-Forwarded-For names the client (repeatable).", valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("drain-delay"),
            help: ArgumentHelp("After SIGTERM, how long to go on serving with /readyz answering 503 before closing (default 5s on the scale-out store, for the load balancer to take the instance out; 0 on a data directory). A second SIGTERM or SIGINT ends it.",
                               valueName: "duration"))
    var drainDelay: String?

    @OptionGroup var store: StoreOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        ServiceMemory.keepIdleFootprintSmall()
        logging.bootstrap()
        var overrides = ServerConfiguration.Overrides(
            data: data, records: scaleOut.records, chunks: scaleOut.chunks, credentials: scaleOut.s3Credentials, listen: listen,
            tlsCertificate: tlsCertificate, tlsKey: tlsKey, rateLimit: rateLimit, store: store.overrides)
        if !trustedProxies.isEmpty { overrides.trustedProxies = trustedProxies }
        overrides.drainDelay = drainDelay
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: config, overrides: overrides)
        } catch {
            complain("\(error)")
            throw ExitCode(2)
        }
        let server: SyncServer
        do {
            let metrics = ServerMetrics()
            metrics.bootstrap()
            server = try await SyncServer.open(configuration: configuration, metrics: metrics)
        } catch {
            complain(error.message)
            throw ExitCode(error.code == .invalidArguments ? 2 : 1)
        }
        do {
            try await server.run { url in say("listening on \(url)") }
        } catch {
            Logger(label: "docsync.server").critical("docsync-server failed: \(error)")
            throw ExitCode(1)
        }
    }
}
