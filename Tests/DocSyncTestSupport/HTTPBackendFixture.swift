import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation

/// `HTTPBackend`s talking to a real `docsync-server` process on a free loopback port, one
/// server and one user per fixture, with a temporary data directory. The hooks reach the
/// user's `LocalBackend` directory directly, as an administrator on the server would.
public struct HTTPBackendFixtureFactory: BackendFixtureFactory {
    public var options: HTTPBackend.Options

    public init(options: HTTPBackend.Options = HTTPBackend.Options(reconnectInitialDelay: .milliseconds(50), reconnectMaximumDelay: .seconds(1))) {
        self.options = options
    }

    public func makeFixture(settings: StoreSettings) async throws -> BackendFixture {
        let directory = try TemporaryDirectory("docsync-server")
        let flags = Self.flags(for: settings)
        let server = try await ServerProcess(dataDirectory: directory.url.appendingPathComponent("data"), extraArguments: flags)
        let token = try await server.addUser("alice")
        let options = self.options
        let backend = try HTTPBackend(url: server.url, token: token, options: options)
        let userDirectory = server.userDirectory("alice")
        return BackendFixture(
            backend: backend,
            openAnotherClient: { _ = directory; return try HTTPBackend(url: server.url, token: token, options: options) },
            corruptChunk: { digest in try corruptStoredChunk(digest, in: LocalBackend(directory: userDirectory, options: .init(collectsOnSchedule: false))) },
            compactAllTombstones: { try LocalBackend(directory: userDirectory, options: .init(collectsOnSchedule: false)).compactTombstones(olderThan: -1) },
            collectGarbage: { _ = try await server.collectGarbage(user: "alice", extraArguments: flags) }
        )
    }

    /// The flags of `docsync-server serve` and `gc` for `settings`, with the server's own
    /// schedule off (a case collects when it says so).
    public static func flags(for settings: StoreSettings) -> [String] {
        ["--deleted-retention", "\(settings.deletedRetention)", "--gc-grace", "\(settings.collectionGrace)", "--gc-interval", "0"]
    }
}
