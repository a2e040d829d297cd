import DocSyncCore
import DocSyncStorage

/// The subscribers of a `MemoryBackend`'s change notifications.
struct MemoryBackendNotifier {
    var subscribers: [UInt64: AsyncStream<ChangeNotification>.Continuation] = [:]
    var nextID: UInt64 = 0
}

extension MemoryBackend {
    /// A stream per subscriber, told after every change that moved a zone (a save, deletion
    /// or recovery, a zone created or deleted, the store forgotten), once the change is in
    /// place. A subscriber that does not keep up gets one notification naming every zone
    /// it has not heard about yet, never more than one waiting: memory stays bounded and
    /// no change goes unannounced.
    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotification.self, bufferingPolicy: .bufferingNewest(1))
        let id = notifier.withLock { notifier in
            let id = notifier.nextID
            notifier.nextID += 1
            notifier.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.notifier.withLock { notifier in _ = notifier.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber that `zones` changed, merging it with the notification a
    /// subscriber has not taken yet.
    func announce(_ zones: Set<ZoneID>) {
        guard !zones.isEmpty else { return }
        let note = ChangeNotification(zones: zones)
        notifier.withLock { notifier in
            for continuation in notifier.subscribers.values {
                // The one waiting notification was displaced by this one: send their union instead.
                if case .dropped(let unread) = continuation.yield(note) {
                    continuation.yield(ChangeNotification(zones: unread.zones.union(zones)))
                }
            }
        }
    }

    /// Ends every subscriber's stream (the backend is going away).
    func finishNotifications() {
        let continuations = notifier.withLock { notifier in
            defer { notifier.subscribers = [:] }
            return Array(notifier.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
