import DocSyncCore
import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Where the scale-out store's PostgreSQL database is: a `postgres://USER:PASSWORD@HOST:PORT/DB`
/// URL (`postgresql://` too). The password may instead come from the environment
/// (`PGPASSWORD`) or a file, so that a configuration file need not hold it. TLS is used when
/// the URL says `?sslmode=require`; without it the connection is plain (a database on the
/// same host or a private network).
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var requiresTLS: Bool

    public init(host: String, port: Int = 5432, user: String, password: String?, database: String, requiresTLS: Bool = false) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.requiresTLS = requiresTLS
    }

    /// Parses `url`; `password` is used when the URL has none. Throws `invalidArguments`
    /// naming what is wrong.
    public init(url text: String, password fallback: String? = nil) throws(SyncError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw SyncError(.invalidArguments, "\(Self.redacted(text)) is not a postgres:// URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SyncError(.invalidArguments, "\(Self.redacted(text)) names no host; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let user = url.user, !user.isEmpty else {
            throw SyncError(.invalidArguments, "\(Self.redacted(text)) names no user; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw SyncError(.invalidArguments, "\(Self.redacted(text)) names no database; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let mode = url.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        guard ["disable", "require"].contains(mode) else {
            throw SyncError(.invalidArguments, "sslmode=\(mode) in \(Self.redacted(text)) is not supported; use sslmode=require or sslmode=disable")
        }
        self.init(host: host, port: url.port ?? 5432, user: user.removingPercentEncoding ?? user,
                  password: url.password.map { $0.removingPercentEncoding ?? $0 } ?? fallback,
                  database: database.removingPercentEncoding ?? database, requiresTLS: mode == "require")
    }

    /// The URL with the password left out, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// The URL with the password, as `[storage] records` and `--records` take it (for
    /// configuration a program writes; `description` is for messages and logs).
    public var url: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        if requiresTLS { components.queryItems = [URLQueryItem(name: "sslmode", value: "require")] }
        return components.string ?? description
    }

    /// Runs one statement on a connection of its own, outside any store: administration,
    /// such as `CREATE DATABASE`, which cannot run in a transaction.
    public func executeAlone(_ sql: String, logger: Logger) async throws {
        let connection = try await connect(logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Opens one connection of its own, outside any pool; the caller closes it. For what
    /// runs before a store's pool does (the schema's migration) or apart from it
    /// (administration). Gives up after 5 s without an answer.
    public func connect(logger: Logger) async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database,
                                                             tls: requiresTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
        configuration.options.connectTimeout = .seconds(5)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    /// The same server and credentials, another database.
    public func with(database: String) -> PostgresLocation {
        var copy = self
        copy.database = database
        return copy
    }

    var clientConfiguration: PostgresClient.Configuration {
        PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database,
                                     tls: requiresTLS ? .require(.makeClientConfiguration()) : .disable)
    }

    /// `text` with any password replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? "the database URL"
    }
}
