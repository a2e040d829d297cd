import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The status page and `/metrics` as a service of the daemon's group (SPEC §15).
///
/// Listens where `web_listen` says until the group shuts down. A listener that cannot start
/// (the port taken, by another user's daemon or any program) never stops the daemon: the page
/// is off, `WebPageState` says why (status, `docs-status web`), and the service waits for the
/// group's end like the others.
struct WebService: Service {
    let page: WebPageState
    let routes: WebRoutes
    let logger: Logger

    func run() async throws {
        guard case .loopback(let host, let port) = page.listen else {
            try? await gracefulShutdown()
            return
        }
        let page = self.page, logger = self.logger
        let app = Application(
            router: routes.router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "docsyncd"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                page.current = .listening(port: bound)
                logger.info("status page listening", metadata: ["url": "\(page.address ?? "")"])
            },
            logger: logger
        )
        do {
            try await app.run()
        } catch {
            let reason = Self.reason(error, listen: page.listen)
            page.current = .off(reason)
            logger.warning("the status page is off; syncing goes on", metadata: ["listen": "\(page.listen)", "reason": "\(reason)"])
            try? await gracefulShutdown()
        }
    }

    /// Why the page could not listen, for a person.
    static func reason(_ error: any Error, listen: WebListen) -> String {
        if let failure = error as? IOError, failure.errnoCode == EADDRINUSE {
            return "off: \(listen) is taken by another program (another user's docsyncd?); set web_listen to a free port, or \"off\""
        }
        if let failure = error as? IOError, failure.errnoCode == EADDRNOTAVAIL {
            return "off: this machine has no address for \(listen); set web_listen to \"127.0.0.1:PORT\""
        }
        return "off: cannot listen on \(listen): \(error)"
    }
}
