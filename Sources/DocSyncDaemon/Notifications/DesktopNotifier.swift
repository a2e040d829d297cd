import Foundation

/// Sends desktop notifications (SPEC §15) to the freedesktop Notifications service
/// (`org.freedesktop.Notifications`, `Notify` on `/org/freedesktop/Notifications`) on a D-Bus
/// session bus, through libdbus-1.
///
/// What a caller may rely on:
/// - Every D-Bus call runs on one thread of the notifier's own, in order; `send` suspends
///   (holding no thread) for at most about twice `replyTimeout` (registering with the bus,
///   then the call).
/// - A bus that cannot be reached, no notification server on it (the bus answers the call
///   with an error), a server that does not answer in time: each is an outcome, never a
///   thrown error nor the process's end. A lost connection is opened again by the next send.
/// - `close` ends the thread and the connection once the sends queued before it are done;
///   later sends are `.notSent`. Whoever makes a notifier closes it.
public final class DesktopNotifier: Sendable {
    /// What became of one notification.
    public enum Delivery: Sendable, Equatable {
        /// A notification server took it and gave it this id (for `replacing`).
        case shown(id: UInt32)
        /// The bus took the call but no server showed it: the D-Bus error (no one owns the
        /// name, the server failed or did not answer in time).
        case unanswered(String)
        /// Not sent: no bus to send it on (why), or the notifier is closed.
        case notSent(String)
    }

    /// The bus address (`unix:path=/run/user/1000/bus`).
    public let address: String
    /// `app_name` of every notification.
    public let appName: String
    private let bus: BusConnection
    private let thread: JobThread

    public init(address: String, appName: String = "docsync", replyTimeout: Duration = .seconds(2)) {
        self.address = address
        self.appName = appName
        bus = BusConnection(address: address, timeout: replyTimeout)
        thread = JobThread(name: "docsync desktop notifications")
    }

    /// The session bus's address in `environment` (`DBUS_SESSION_BUS_ADDRESS`), `nil` when
    /// it names none.
    public static func sessionBusAddress(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"]?.trimmingCharacters(in: .whitespaces), !address.isEmpty else { return nil }
        return address
    }

    /// Connects to the bus now: `nil` when connected, else why not. `send` connects by itself;
    /// this tells early whether there is a bus at all.
    public func connect() async -> String? {
        await onBusThread(ifClosed: "the notifier is closed") { bus in bus.open() }
    }

    /// Sends `notification`, in place of the one the server showed as `id` (0: a new one).
    public func send(_ notification: DesktopNotification, replacing id: UInt32 = 0) async -> Delivery {
        let appName = self.appName
        return await onBusThread(ifClosed: .notSent("the notifier is closed")) { bus in
            switch bus.notify(appName: appName, replacesID: id, icon: "", summary: notification.summary, body: notification.body,
                              urgency: notification.urgency.rawValue) {
            case .answered(let id): .shown(id: id)
            case .failed(let error): .unanswered(error)
            case .notSent(let reason): .notSent(reason)
            }
        }
    }

    /// Closes the connection and ends the thread after the sends queued before.
    public func close() {
        let bus = self.bus
        thread.finish { bus.close() }
    }

    private func onBusThread<T: Sendable>(ifClosed closed: T, _ body: @escaping @Sendable (BusConnection) -> T) async -> T {
        let bus = self.bus
        return await withCheckedContinuation { continuation in
            let queued = thread.submit { continuation.resume(returning: body(bus)) }
            if !queued { continuation.resume(returning: closed) }
        }
    }
}
