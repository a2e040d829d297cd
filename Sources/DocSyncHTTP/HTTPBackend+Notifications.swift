import AsyncHTTPClient
import DocSyncCore
import DocSyncStorage
import Foundation
import Logging
import NIOCore

/// The push stream: `GET /v1/notifications` kept open, reconnected with backoff.
extension HTTPBackend {
    /// Yields the zones of every change the server announces, within milliseconds.
    ///
    /// On each (re)connection it first yields every zone the server names, together with
    /// any zone heard of before that the server no longer has (deleted meanwhile), so that
    /// nothing that happened while disconnected is missed. A lost connection is retried
    /// after `Options.reconnectInitialDelay`, doubling with jitter up to
    /// `Options.reconnectMaximumDelay`. The stream ends when the consumer stops iterating
    /// or the backend is shut down.
    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        changeNotifications(onReconnect: {})
    }

    /// `changeNotifications()`, calling `onReconnect` each time the stream was lost (or could
    /// not be opened) and is about to be tried again — never for the first connection, never
    /// once the consumer stopped. For a consumer's metrics (push reconnects).
    public func changeNotifications(onReconnect: @escaping @Sendable () -> Void) -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotification.self, bufferingPolicy: .bufferingNewest(256))
        let subscription = NotificationSubscription(
            client: client, url: url(WireRoute.notifications), authorization: authorization, serverName: serverName,
            policy: RetryPolicy(initialDelay: options.reconnectInitialDelay, maximumDelay: options.reconnectMaximumDelay),
            logger: logger, countReceived: { [weak self] in self?.countReceived($0) }, reconnecting: onReconnect)
        let id: Int? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            let id = state.nextSubscription
            state.nextSubscription += 1
            state.subscriptions[id] = Task { await subscription.run(continuation) }
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            let task = self?.state.withLock { $0.subscriptions.removeValue(forKey: id) }
            task?.cancel()
        }
        return stream
    }
}

/// One consumer's notification stream: connects, reads events, reconnects.
struct NotificationSubscription: Sendable {
    let client: HTTPClient
    let url: String
    let authorization: String
    let serverName: String
    let policy: RetryPolicy
    let logger: Logger
    let countReceived: @Sendable (Int) -> Void
    /// Told of each reconnection about to be tried.
    let reconnecting: @Sendable () -> Void

    func run(_ continuation: AsyncStream<ChangeNotification>.Continuation) async {
        defer { continuation.finish() }
        var knownZones = Set<ZoneID>()
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            do {
                try await readOneConnection(continuation, knownZones: &knownZones, connected: { failures = 0 })
                logger.debug("notification stream ended; reconnecting", metadata: ["server": "\(serverName)"])
            } catch {
                if Task.isCancelled { return }
                logger.debug("notification stream failed; reconnecting",
                              metadata: ["server": "\(serverName)", "error": "\(HTTPTransportError.map(error, "notifications", server: serverName))"])
            }
            failures += 1
            if Task.isCancelled { return }
            reconnecting()
            let delay = policy.delay(attempt: failures, retryAfter: nil, using: &random)
            do { try await Task.sleep(for: delay) } catch { return }
        }
    }

    private func readOneConnection(
        _ continuation: AsyncStream<ChangeNotification>.Continuation, knownZones: inout Set<ZoneID>,
        connected: () -> Void
    ) async throws {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await client.execute(request, deadline: .distantFuture)
        let status = Int(response.status.code)
        guard status == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw HTTPBackend.error(status: status, headers: response.headers, body: body, context: "open the notification stream")
        }
        var parser = ServerSentEventParser()
        for try await buffer in response.body {
            countReceived(buffer.readableBytes)
            for event in parser.consume(buffer.readableBytesView) {
                let notification = try event.notification()
                switch event.name {
                case ServerSentEvent.zonesEvent:
                    connected()
                    let named = notification.zones.union(knownZones)
                    knownZones = notification.zones
                    if !named.isEmpty { continuation.yield(ChangeNotification(zones: named)) }
                case ServerSentEvent.changeEvent:
                    knownZones.formUnion(notification.zones)
                    if !notification.zones.isEmpty { continuation.yield(notification) }
                default:
                    continue
                }
            }
        }
    }
}
