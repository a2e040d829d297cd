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

    public func makeFixture() async throws -> BackendFixture {
        let directory = try TemporaryDirectory("docsync-server")
        let server = try await ServerProcess(dataDirectory: directory.url.appendingPathComponent("data"))
        let token = try await server.addUser("alice")
        let options = self.options
        let backend = try HTTPBackend(url: server.url, token: token, options: options)
        let userDirectory = server.userDirectory("alice")
        return BackendFixture(
            backend: backend,
            openAnotherClient: { _ = directory; return try HTTPBackend(url: server.url, token: token, options: options) },
            corruptChunk: { digest in try corruptStoredChunk(digest, in: LocalBackend(directory: userDirectory)) },
            compactAllTombstones: { try LocalBackend(directory: userDirectory).compactTombstones(olderThan: -1) }
        )
    }
}
