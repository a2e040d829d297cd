import ServiceLifecycle

/// A service of the server's group that, every `interval`, frees the database caches of the
/// users whose storage no request has used for that long (`ServerStore.releaseIdle`).
/// Ends when the server shuts down.
struct IdleStorageService: Service {
    let store: any ServerStore
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return  // shutting down
            }
            store.releaseIdle(for: interval)
        }
    }
}
