import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import ServiceLifecycle

/// A service of the server's group that collects each user's garbage (expired deleted
/// records and versions, unreferenced chunks, sparse packs) once `interval` has passed since
/// that store's last collection — by this server, `docsync-server gc` or anyone else —
/// looking at least hourly. Users are collected one after another; a store another
/// collector is working on is left for the next round. `interval` 0 turns it off. Ends
/// when the server shuts down.
struct CollectionService: Service {
    let users: UserStore
    let backends: UserBackends
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
            await collectDueUsers()
        }
    }

    /// Collects every user whose store is due.
    func collectDueUsers() async {
        let names: [String]
        do { names = try users.users().map(\.name) } catch {
            logger.error("cannot list users to collect", metadata: ["error": "\(error)"])
            return
        }
        for user in names where !Task.isShuttingDownGracefully && backends.hasStore(user) {
            do {
                let backend = try backends.backend(for: user)
                if let last = try backend.lastCollection(), Date().timeIntervalSince(last) < interval { continue }
                let report = try await backend.collectGarbage()
                logger.info("collected", metadata: ["user": "\(user)", "summary": "\(report.summary)"])
            } catch {
                logger.error("collection failed", metadata: ["user": "\(user)", "error": "\(error)"])
            }
        }
    }
}
