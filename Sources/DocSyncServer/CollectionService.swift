import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle

/// A service of the server's group that collects garbage (expired deleted records and
/// versions, unreferenced chunks, sparse packs) once `interval` has passed since the last
/// collection — by this server, `docsync-server gc`, another instance or anyone else —
/// looking at least hourly (`ServerStore.collectDue`). `interval` 0 turns it off. Ends when
/// the server shuts down.
struct CollectionService: Service {
    let store: any ServerStore
    let interval: TimeInterval
    let logger: Logger

    func run() async throws {
        guard interval > 0 else {
            try? await gracefulShutdown()  // a service that ends early would end the server
            return
        }
        let pause = Duration.seconds(min(interval, 3600))
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            } catch {
                return  // shutting down
            }
            await store.collectDue(interval: interval, logger: logger)
        }
    }
}
