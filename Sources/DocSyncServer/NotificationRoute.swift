import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /v1/notifications`: the user's changes as server-sent events (`ServerSentEvent`).
///
/// The stream subscribes to the user's storage before it lists the zones, so a change
/// made while the first event is prepared is announced too. It ends when the client goes
/// away or the server shuts down gracefully (the client then reconnects elsewhere or later).
///
/// Under `/v1/shared/{owner}` it carries the changes of the zones the caller accepted from
/// the owner, as they are at each change, and once more the change that ended its part in
/// one (a removal, a stop), so its devices hear of that by push.
struct NotificationRoute: Sendable {
    let store: any ServerStore

    func register(on api: RouterGroup<ServerRequestContext>) {
        api.get("notifications") { _, context in
            let gate = ZoneGate(store: store)
            let caller = try ZoneGate.caller(context), owner = try ZoneGate.owner(context)
            let accepted = try await gate.acceptedZones(caller: caller, owner: owner)
            let notifications: AsyncStream<ChangeNotification>
            if let accepted, accepted.isEmpty {
                // Nothing of the owner's to hear of (nor to tell whether the owner exists).
                notifications = AsyncStream { _ in }
            } else {
                notifications = try await store.backend(for: owner).changeNotifications()
            }
            let zones = try await gate.zones(of: owner, accepted: accepted)
            let logger = context.logger
            logger.debug("notification stream opened", metadata: ["zones": "\(zones.count)"])
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                ServerMetrics.pushStreams.increment()
                defer { ServerMetrics.pushStreams.decrement() }
                let first = ServerSentEvent(name: ServerSentEvent.zonesEvent, notification: ChangeNotification(zones: Set(zones)))
                try await writer.write(ByteBuffer(string: first.encoded))
                let (lines, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
                try await withGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            var heard = accepted
                            for await notification in notifications {
                                var notification = notification
                                if let before = heard {
                                    let now = (try? await gate.acceptedZones(caller: caller, owner: owner)) ?? before
                                    notification.zones.formIntersection(before.union(now))
                                    heard = now
                                    if notification.zones.isEmpty { continue }
                                }
                                sink.yield(ServerSentEvent(name: ServerSentEvent.changeEvent, notification: notification).encoded)
                            }
                            sink.finish()
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: ServerSentEvent.heartbeatInterval)
                                sink.yield(ServerSentEvent.heartbeat)
                            }
                        }
                        for await line in lines {
                            try await writer.write(ByteBuffer(string: line))
                        }
                        group.cancelAll()
                    }
                } onGracefulShutdown: {
                    sink.finish()
                }
                logger.debug("notification stream closed")
                try await writer.finish(nil)
            })
        }
    }
}
