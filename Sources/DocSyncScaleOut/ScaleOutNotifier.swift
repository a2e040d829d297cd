import DocSyncCore
import DocSyncStorage
import Logging
import PostgresNIO
import Synchronization

/// Change notifications across instances: a commit that changes a zone sends
/// `NOTIFY docsync_changes, 'ACCOUNT ZONE'` inside its transaction (so it is delivered only
/// if the commit happens), and every instance LISTENs on one connection of its own and
/// hands each notification to the streams of that account.
///
/// Whenever listening begins — the first time, and again after the connection broke (it is
/// opened again after a second, then longer) — every stream already open is told that each
/// of its account's zones may have changed, since notifications sent before were not heard.
final class ScaleOutNotifier: Sendable {
    static let channel = "docsync_changes"

    private struct State {
        /// Each account's streams, by id: a notification goes to its account's only.
        var subscribers: [Int64: [UInt64: AsyncStream<ChangeNotification>.Continuation]] = [:]
        var nextID: UInt64 = 0
        var listening = false

        /// Hands `notification` to every stream of `account`.
        func yield(_ notification: ChangeNotification, to account: Int64) {
            for continuation in subscribers[account, default: [:]].values { continuation.yield(notification) }
        }

        /// Forgets every stream and returns them, to be finished outside the lock (a
        /// stream's termination handler takes the lock to forget itself).
        mutating func takeAll() -> [AsyncStream<ChangeNotification>.Continuation] {
            defer { subscribers = [:] }
            return subscribers.values.flatMap(\.values)
        }
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// A stream of `account`'s change notifications, until the caller stops iterating or
    /// the notifier is shut down.
    func stream(for account: Int64) -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeNotification.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[account, default: [:]][id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers[account]?.removeValue(forKey: id)
                if state.subscribers[account]?.isEmpty == true { state.subscribers.removeValue(forKey: account) }
            }
        }
        return stream
    }

    /// Whether the listening connection is up (for `/readyz`).
    var isListening: Bool { state.withLock { $0.listening } }

    /// Listens until cancelled, reconnecting when the connection breaks.
    func run(_ client: PostgresClient) async {
        var delay = Duration.seconds(1)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        state.withLock { $0.listening = true }
                        // A stream opened before now (a device that reached this instance
                        // while it started or reconnected) may have missed a commit.
                        await announceEverything(client)
                        delay = .seconds(1)
                        for try await notification in notifications { deliver(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("the change notifications' connection to the database broke; reconnecting",
                               metadata: ["error": "\(String(reflecting: error))", "retryIn": "\(delay)"])
            }
            state.withLock { $0.listening = false }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
        state.withLock { $0.listening = false }
        finishAll()
    }

    /// Ends every stream (a graceful drain: devices reconnect elsewhere).
    func finishAll() {
        for continuation in state.withLock({ $0.takeAll() }) { continuation.finish() }
    }

    /// The payload a commit sends for a change of `zone` in `account`.
    static func payload(account: Int64, zone: ZoneID) -> String { "\(account) \(zone.name)" }

    private func deliver(_ payload: String) {
        guard let space = payload.firstIndex(of: " "), let account = Int64(payload[..<space]) else { return }
        let zone = ZoneID(String(payload[payload.index(after: space)...]))
        let notification = ChangeNotification(zones: [zone])
        state.withLock { $0.yield(notification, to: account) }
    }

    /// Tells every stream that each zone of its account may have changed.
    private func announceEverything(_ client: PostgresClient) async {
        let accounts = state.withLock { Array($0.subscribers.keys) }
        for account in accounts {
            var zones = Set<ZoneID>()
            do {
                let rows = try await client.query("SELECT name FROM zone WHERE account = \(account)", logger: logger)
                for try await name in rows.decode(String.self) { zones.insert(ZoneID(name)) }
            } catch {
                continue
            }
            guard !zones.isEmpty else { continue }
            state.withLock { $0.yield(ChangeNotification(zones: zones), to: account) }
        }
    }
}
