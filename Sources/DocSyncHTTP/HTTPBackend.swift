import AsyncHTTPClient
import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The client of `docsync-server` (`http(s)://host:port`): every `StorageBackend` call as
/// one or a few requests of the API described by `WireRoute`, over one `HTTPClient` whose
/// connections are reused.
///
/// Errors are the server's own `SyncError`s, rebuilt exactly from the JSON of each error
/// response; a server that cannot be reached is `networkUnavailable`, a broken connection
/// `networkFailure`. Chunks travel in framed batches of about `Options.chunkBatchSize`
/// bytes, `Options.chunkTransferParallelism` at a time, and are checked against their
/// digests on arrival. `changeNotifications()` keeps a server-sent-event stream open and
/// reconnects by itself.
///
/// Call `shutdown()` when done; a backend dropped without it closes its connections in the
/// background, and a process that exits with one still open does not crash.
public final class HTTPBackend: StorageBackend {
    /// The server's base URL, without a trailing slash.
    public let baseURL: URL
    /// The account whose shared zones this backend reaches (`WireRoute.shared`), or `nil`
    /// for the token's own.
    public let owner: String?
    public let options: Options
    let client: HTTPClient
    let authorization: String
    /// `host:port` for messages.
    let serverName: String
    let logger = Logger(label: "docsync.http.client")
    let state = Mutex(ClientState())
    private let sentBytes = Atomic<Int>(0)
    private let receivedBytes = Atomic<Int>(0)

    struct ClientState {
        var isShutDown = false
        var nextSubscription = 0
        var subscriptions: [Int: Task<Void, Never>] = [:]
    }

    /// A client of the server at `url` (`http://host:port` or `https://host:port`, with an
    /// optional path prefix) using the bearer `token` (from `docsync-server user add`). With
    /// `owner`, its zones, chunks and notifications are those `owner` shares with the token's
    /// account (SPEC §11); sharing's own calls (`share(of:)`, `shares()`, …) need none.
    ///
    /// Throws `invalidArguments` when the URL is not an http(s) URL with a host, the token is
    /// empty or has spaces or control characters, or the trusted certificate file cannot be read.
    public init(url: URL, token: String, owner: String? = nil, options: Options = .init()) throws(SyncError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw SyncError(.invalidArguments, "\(url.absoluteString) is not a docsync-server address; write http://host:port or https://host:port")
        }
        guard url.query == nil, url.fragment == nil else {
            throw SyncError(.invalidArguments, "\(url.absoluteString) has a query or fragment; write http(s)://host:port")
        }
        let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw SyncError(.invalidArguments, "the token is empty or has spaces or control characters; paste the one line `docsync-server user add` printed")
        }
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let baseURL = URL(string: base) else {
            throw SyncError(.invalidArguments, "\(url.absoluteString) is not a valid URL")
        }
        self.baseURL = baseURL
        self.owner = owner
        self.options = options
        self.authorization = "Bearer \(token)"
        self.serverName = url.port.map { "\(host):\($0)" } ?? host

        var configuration = HTTPClient.Configuration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.shutdownTimeout = Self.tlsShutdownTimeout
        if let file = options.trustedCertificateFile {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file.path))
            } catch {
                throw SyncError(.invalidArguments, "cannot read the trusted certificates in \(file.path) (\(error)); give a PEM file")
            }
        }
        configuration.tlsConfiguration = tls
        configuration.timeout = .init(connect: Self.timeAmount(options.connectTimeout), read: Self.timeAmount(options.readTimeout))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(8, options.chunkTransferParallelism + 2))
        // A refused connection fails the call at once (networkUnavailable); the caller's retry
        // policy decides when to try again, rather than the pool retrying until the timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Another client of the same server with the same token and options, on the zones
    /// `owner` shares with this account (`owner`). It has connections of its own; shut it
    /// down on its own.
    public func reaching(owner: String) throws(SyncError) -> HTTPBackend {
        try HTTPBackend(url: baseURL, token: String(authorization.dropFirst("Bearer ".count)), owner: owner, options: options)
    }

    deinit {
        let wasShutDown = state.withLock { state in
            for task in state.subscriptions.values { task.cancel() }
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        if !wasShutDown {
            // Closes the connections in the background; the client keeps itself alive until done.
            client.shutdown { _ in }
        }
    }

    /// How long closing a TLS connection waits for the server's `close_notify` after sending
    /// ours before it closes the socket anyway (NIOSSL's default is 5 s). A server streaming
    /// a response — the push stream — takes our `close_notify` as the end of the request
    /// side only (`docsync-server`, like any server allowing half-closure, goes on writing)
    /// and never answers it, so ending a stream, and every stop of docsyncd, waited the whole
    /// 5 s. Nothing is lost by not waiting: we close because we want nothing more.
    static let tlsShutdownTimeout: TimeAmount = .milliseconds(100)

    /// Ends every notification stream and closes every connection, promptly (within about
    /// `tlsShutdownTimeout` over TLS). Calls made afterwards fail with `internalError`. Safe
    /// to call more than once.
    public func shutdown() async {
        let tasks: [Task<Void, Never>]? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            defer { state.subscriptions = [:] }
            return Array(state.subscriptions.values)
        }
        guard let tasks else { return }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        do {
            try await client.shutdown()
        } catch {
            logger.debug("closing the HTTP client", metadata: ["error": "\(error)"])
        }
    }

    /// Bytes of request bodies sent so far (chunks, JSON), not counting headers.
    public var bytesSent: Int { sentBytes.load(ordering: .relaxed) }
    /// Bytes of response bodies received so far, not counting headers.
    public var bytesReceived: Int { receivedBytes.load(ordering: .relaxed) }

    func countSent(_ count: Int) { sentBytes.add(count, ordering: .relaxed) }
    func countReceived(_ count: Int) { receivedBytes.add(count, ordering: .relaxed) }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
