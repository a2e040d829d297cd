import AsyncHTTPClient
import NIOCore

/// The HTTP client `S3Client` uses unless it is given one: one per process, never shut
/// down (like `HTTPClient.shared`), with settings for an object store rather than a browser's.
///
/// What callers may rely on:
/// - Connections are kept and reused: many requests one after another take one
///   connection, and requests at once take at most `connectionsPerHost` per endpoint (more
///   wait for one to be free) — measured by `S3ConnectionReuseTests`.
/// - An idle connection is closed by this side after `idleTimeout`, before a store closes
///   it: OpenStack Swift's proxy closes one idle for 60 s (`client_timeout`), and a request
///   sent just as the store closes its connection would fail. (`HTTPClient.shared` keeps
///   idle connections 10 minutes, so the store always closed them, and could race a request.)
/// - Redirects are not followed (a redirect from S3 names another region or endpoint, which
///   the request's signature does not cover), and bodies are never decompressed: an object's
///   bytes, and a range of them, are returned exactly as stored.
enum S3HTTPClient {
    /// How long a connection may stay idle in the pool.
    static let idleTimeout: TimeAmount = .seconds(20)
    /// Connections kept to one endpoint: room for two downloads' ranged GETs at once
    /// (the scale-out store reads 8 ranges of a download in parallel) besides uploads.
    static let connectionsPerHost = 16

    static var configuration: HTTPClient.Configuration {
        HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10)),
            connectionPool: HTTPClient.Configuration.ConnectionPool(idleTimeout: idleTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost),
            decompression: .disabled
        )
    }

    /// The process's client with `configuration`.
    static let shared = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}
