import ServiceLifecycle

/// A service of the server's group that, every `interval`, frees the database caches of the
/// users whose storage no request has used for that long (`UserBackends.releaseIdle`).
/// Ends when the server shuts down.
struct IdleStorageService: Service {
    let backends: UserBackends
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return  // shutting down
            }
            backends.releaseIdle(for: interval)
        }
    }
}
