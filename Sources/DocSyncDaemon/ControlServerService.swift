import DocSyncControl
import ServiceLifecycle

/// The control socket as a service of the daemon's `ServiceGroup`.
///
/// Runs the `ControlServer` until the group shuts down (gracefully or by cancellation); then
/// the server stops answering, cancels calls in flight and removes its socket file. Create
/// the server before starting the group, so that "another daemon is running" stops the
/// daemon before anything else starts.
public struct ControlServerService: Service {
    public let server: ControlServer

    public init(server: ControlServer) {
        self.server = server
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await server.run()
        }
    }
}
