import Logging
import ServiceLifecycle
import UnixSignals

/// The first phase of the server's graceful shutdown. Placed after the HTTP server in the
/// service group, it is the first told to shut down (a group shuts its services down in
/// reverse order, each after the one before has returned): it marks the server as
/// draining (`DrainState`: `/readyz` answers 503) and returns after `delay`, while the
/// server goes on accepting and answering requests. Only then is the HTTP server shut
/// down: it stops accepting, ends the push streams and finishes the requests in flight.
///
/// The delay gives a load balancer the time to see `/readyz` fail and take the instance
/// out, so no request of its is refused meanwhile; 0 goes straight to the second phase.
/// A second SIGTERM or SIGINT (a person pressing Ctrl-C again) or the group's
/// cancellation cuts the delay short.
struct DrainService: Service {
    let state: DrainState
    let delay: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled before any shutdown: nothing to drain
        }
        state.begin()
        guard delay > .zero else { return }
        // Trapped now, after the signal that began the drain: the next one ends the wait.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        logger.info("draining: /readyz answers 503; still serving until the delay is over (a second SIGTERM or SIGINT stops now)",
                    metadata: ["delay": "\(delay)"])
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await Task.sleep(for: delay)) != nil }
            group.addTask {
                for await _ in signals { return false }
                return true
            }
            if await group.next() == false, !Task.isCancelled {
                logger.info("a second signal: the drain delay ends now")
            }
            group.cancelAll()
        }
    }
}
