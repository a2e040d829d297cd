import DocSyncCore
import Foundation
import Logging
import ServiceLifecycle

/// Desktop notifications (SPEC §15) as a service of the daemon's `ServiceGroup`: every
/// `interval` it takes the folders' statuses, asks `NotificationPlanner` what started (or
/// grew) since the last look, and sends that through a `DesktopNotifier`.
///
/// With `notifications = false`, or without a session bus (`DBUS_SESSION_BUS_ADDRESS` unset,
/// or a bus that cannot be reached when the service starts), it does nothing but wait for the
/// group's shutdown, after one debug log line. A notification no server shows (none on the
/// bus) is logged at debug level and not sent again.
public struct NotificationService: Service, CustomStringConvertible {
    public let enabled: Bool
    /// The session bus's address, `nil` when there is none.
    public let busAddress: String?
    public let interval: Duration
    /// The folders' statuses now.
    let statuses: @Sendable () -> [FolderStatus]
    let logger: Logger

    public init(enabled: Bool, busAddress: String?, interval: Duration = .seconds(1), logger: Logger,
                statuses: @escaping @Sendable () -> [FolderStatus]) {
        self.enabled = enabled
        self.busAddress = busAddress
        self.interval = interval
        self.logger = logger
        self.statuses = statuses
    }

    /// The daemon's: the folders' statuses as the event recorder last took them (the index
    /// is counted once per look, for both), the bus of this process's environment.
    init(configuration: DaemonConfiguration, latest: LatestFolderStatuses, logger: Logger) {
        self.init(enabled: configuration.notifications, busAddress: DesktopNotifier.sessionBusAddress(), logger: logger) { latest.current }
    }

    /// How the service group's log names it.
    public var description: String { "NotificationService" }

    public func run() async throws {
        guard enabled else {
            logger.debug("desktop notifications are off (notifications = false)")
            return await idle()
        }
        guard let busAddress else {
            logger.debug("no desktop notifications: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
            return await idle()
        }
        let notifier = DesktopNotifier(address: busAddress)
        if let reason = await notifier.connect() {
            notifier.close()
            logger.debug("no desktop notifications: \(reason)")
            return await idle()
        }
        logger.debug("desktop notifications on the session bus", metadata: ["address": "\(busAddress)"])
        await cancelWhenGracefulShutdown { await watch(notifier) }
        notifier.close()
    }

    /// Until the group shuts down: a service that returns early would stop the daemon.
    private func idle() async {
        try? await gracefulShutdown()
    }

    /// Looks every `interval` until cancelled.
    private func watch(_ notifier: DesktopNotifier) async {
        var previous: [FolderStatus] = []
        var ongoing: Set<String> = []
        // The ids the server gave the notifications of situations still going on.
        var shown: [String: UInt32] = [:]
        while !Task.isCancelled {
            let current = statuses()
            let now = Set(NotificationPlanner.situations(in: current).map(\.key))
            for key in ongoing.subtracting(now).sorted() {
                logger.debug("situation over: notified again if it starts again", metadata: ["situation": "\(key)"])
            }
            for notification in NotificationPlanner.plan(previous: previous, current: current) {
                let replacing = notification.replacesEarlier ? shown[notification.key] ?? 0 : 0
                let delivery = await notifier.send(notification, replacing: replacing)
                let metadata: Logger.Metadata = ["situation": "\(notification.key)", "summary": "\(notification.summary)"]
                switch delivery {
                case .shown(let id):
                    shown[notification.key] = id
                    logger.info("desktop notification shown", metadata: metadata)
                case .unanswered(let error):
                    logger.debug("desktop notification not shown: \(error)", metadata: metadata)
                case .notSent(let reason):
                    logger.debug("desktop notification not sent: \(reason)", metadata: metadata)
                }
            }
            shown = shown.filter { now.contains($0.key) }
            ongoing = now
            previous = current
            try? await Task.sleep(for: interval)
        }
    }
}
