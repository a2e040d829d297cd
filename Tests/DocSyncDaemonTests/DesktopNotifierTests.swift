import DocSyncCore
import DocSyncDaemon
import DocSyncTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// `DesktopNotifier` and `NotificationService` on a real D-Bus bus of the test's own
/// (`PrivateSessionBus`: dbus-daemon with dbus-monitor listening; no notification server, so
/// every `Notify` gets an error reply, which must be taken calmly), and the `notifications` key.
@Suite struct DesktopNotifierTests {
    // MARK: the notifier

    @Test func notifyReachesTheBusWithItsArgumentsAndNoServerIsCalm() async throws {
        let bus = try await PrivateSessionBus.start()
        let notifier = DesktopNotifier(address: bus.address)
        try await closing({ notifier.close() }) {
            #expect(await notifier.connect() == nil)
            let notification = DesktopNotification(key: "folderHeld|Documents|rootMissing", summary: "Documents is held: the folder is missing",
                                                   body: "/home/ada/Documents is missing: nothing is sent or written", urgency: .critical)
            let delivery = await notifier.send(notification, replacing: 7)
            guard case .unanswered(let error) = delivery else {
                Issue.record("no notification server runs on the bus: \(delivery)")
                return
            }
            #expect(error.contains("org.freedesktop.DBus.Error.ServiceUnknown"), "\(error)")
            #expect(await eventually { bus.notifyCalls.count == 1 }, "\(bus.monitorText)")
            #expect(bus.notifyCalls == [ObservedNotify(
                appName: "docsync", replacesID: 7, icon: "", summary: "Documents is held: the folder is missing",
                body: "/home/ada/Documents is missing: nothing is sent or written", urgency: 2, expireTimeout: -1)])

            // The connection is kept: a second notification goes out on it.
            let second = DesktopNotification(key: "conflictCopies|Documents|", summary: "3 conflicts kept as copies in Documents",
                                             body: "Both versions are kept", urgency: .normal)
            #expect(await notifier.send(second) != .notSent("the notifier is closed"))
            #expect(await eventually { bus.notifyCalls.count == 2 }, "\(bus.monitorText)")
            #expect(bus.notifyCalls.last?.summary == "3 conflicts kept as copies in Documents" && bus.notifyCalls.last?.urgency == 1)
        }
    }

    @Test func noBusIsAnOutcomeNotAnError() async throws {
        let directory = try TemporaryDirectory("nobus")
        let notifier = DesktopNotifier(address: "unix:path=\(directory.path)/absent", replyTimeout: .milliseconds(500))
        try await closing({ notifier.close() }) {
            let reason = await notifier.connect()
            #expect(reason?.contains("cannot connect") == true, "\(String(describing: reason))")
            let delivery = await notifier.send(DesktopNotification(key: "k", summary: "s", body: "b", urgency: .low))
            guard case .notSent = delivery else {
                Issue.record("\(delivery)")
                return
            }
        }
        #expect(await notifier.send(DesktopNotification(key: "k", summary: "s", body: "b", urgency: .low)) == .notSent("the notifier is closed"))
        #expect(DesktopNotifier.sessionBusAddress(in: [:]) == nil)
        #expect(DesktopNotifier.sessionBusAddress(in: ["DBUS_SESSION_BUS_ADDRESS": " "]) == nil)
        #expect(DesktopNotifier.sessionBusAddress(in: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"]) == "unix:path=/run/user/1000/bus")
    }

    @Test func aBusThatGoesAwayIsReconnectedByTheNextSend() async throws {
        let first = try await PrivateSessionBus.start()
        let notifier = DesktopNotifier(address: first.address, replyTimeout: .milliseconds(500))
        try await closing({ notifier.close() }) {
            #expect(await notifier.connect() == nil)
            // The bus restarts at the same address: the old connection is lost.
            let second = try await PrivateSessionBus.restarting(first)
            var delivery = await notifier.send(DesktopNotification(key: "k", summary: "after the restart", body: "b", urgency: .normal))
            if case .notSent = delivery {
                // The loss is noticed by the first send; the next one connects again.
                delivery = await notifier.send(DesktopNotification(key: "k", summary: "after the restart", body: "b", urgency: .normal))
            }
            guard case .unanswered = delivery else {
                Issue.record("\(delivery)")
                return
            }
            #expect(await eventually { second.notifyCalls.map(\.summary).contains("after the restart") }, "\(second.monitorText)")
        }
    }

    // MARK: the service

    /// Statuses a test sets, and how many times the service looked at them.
    final class Statuses: Sendable {
        private let state = Mutex<(folders: [FolderStatus], looks: Int)>(([], 0))
        func set(_ folders: [FolderStatus]) { state.withLock { $0.folders = folders } }
        func look() -> [FolderStatus] { state.withLock { $0.looks += 1; return $0.folders } }
        var looks: Int { state.withLock { $0.looks } }

        /// Waits until the service has looked `count` more times (the statuses set are seen).
        func seen(times count: Int = 3) async -> Bool {
            let start = looks
            return await eventually(timeout: .seconds(30)) { looks >= start + count }
        }
    }

    @Test func theServiceNotifiesOncePerSituation() async throws {
        let bus = try await PrivateSessionBus.start()
        let statuses = Statuses()
        let service = NotificationService(enabled: true, busAddress: bus.address, interval: .milliseconds(10),
                                          logger: Logger(label: "test.notifications") { _ in SwiftLogNoOpLogHandler() },
                                          statuses: { statuses.look() })
        let running = Task { try await service.run() }
        try await closing({ running.cancel(); _ = try? await running.value }) {
            let held = NotificationPlannerTests.held(.rootMissing)
            statuses.set([NotificationPlannerTests.folder()])
            #expect(await statuses.seen())
            statuses.set([held])
            #expect(await eventually { bus.notifyCalls.count == 1 }, "\(bus.monitorText)")
            #expect(await statuses.seen(times: 10))
            statuses.set([held, NotificationPlannerTests.folder("Pictures", conflicts: 2)])
            #expect(await eventually { bus.notifyCalls.count == 2 }, "\(bus.monitorText)")
            #expect(await statuses.seen(times: 10))
            // The root is back, then missing again: a new situation.
            statuses.set([NotificationPlannerTests.folder(), NotificationPlannerTests.folder("Pictures", conflicts: 2)])
            #expect(await statuses.seen())
            statuses.set([held, NotificationPlannerTests.folder("Pictures", conflicts: 2)])
            #expect(await eventually { bus.notifyCalls.count == 3 }, "\(bus.monitorText)")
            #expect(await statuses.seen(times: 10))
            #expect(bus.notifyCalls.map(\.summary) == [
                "Documents is held: the folder is missing", "2 conflicts kept as copies in Pictures", "Documents is held: the folder is missing",
            ])
            #expect(bus.notifyCalls.map(\.urgency) == [2, 1, 2])
        }
    }

    @Test(arguments: [false, true])
    func withoutABusOrWhenOffTheServiceWaitsWithOneDebugLine(_ enabled: Bool) async throws {
        let lines = LogLines()
        let directory = try TemporaryDirectory("nobus")
        let statuses = Statuses()
        // Enabled: a bus address that does not answer; off: a bus that would.
        let service = NotificationService(enabled: enabled, busAddress: enabled ? "unix:path=\(directory.path)/absent" : "unix:path=/nowhere",
                                          interval: .milliseconds(10), logger: Logger(label: "test.notifications") { _ in lines },
                                          statuses: { statuses.look() })
        let running = Task { try await service.run() }
        #expect(await eventually { lines.all.count == 1 })
        running.cancel()
        _ = try? await running.value
        #expect(lines.all.count == 1 && lines.all.allSatisfy { $0.level == .debug }, "\(lines.all)")
        #expect(statuses.looks == 0, "nothing is looked at without a bus")

        let unset = LogLines()
        let quiet = NotificationService(enabled: true, busAddress: nil, logger: Logger(label: "test.notifications") { _ in unset },
                                        statuses: { statuses.look() })
        let idle = Task { try await quiet.run() }
        #expect(await eventually { unset.all.count == 1 })
        idle.cancel()
        _ = try? await idle.value
        #expect(unset.all.map(\.message) == ["no desktop notifications: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)"])
    }

    // MARK: the configuration key

    @Test func theNotificationsKey() throws {
        let loader = ConfigurationLoader(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], homeDirectory: "/home/ada",
                                         hostName: "ada-laptop", currentDirectory: "/work")
        let folders = "\n[backend]\nurl = \"file:///srv/docsync\"\n\n[[folders]]\nid = \"Documents\"\npath = \"~/Documents\"\n"
        #expect(try loader.parse(folders, source: "docsync.toml").notifications)
        #expect(try !loader.parse("notifications = false\n" + folders, source: "docsync.toml").notifications)
        #expect(try loader.parse("notifications = true\n" + folders, source: "docsync.toml").notifications)
        do {
            _ = try loader.parse("notifications = \"no\"\n" + folders, source: "docsync.toml")
            Issue.record("a string is not a boolean")
        } catch {
            #expect(error.description == #"docsync.toml:1: notifications: expected true or false, found a string ("no")"#)
        }
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/docsync.example.toml")
        #expect(try loader.load(contentsOf: example.path).notifications)
    }
}

/// A log handler that keeps every line.
final class LogLines: LogHandler, Sendable {
    struct Line: Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        var description: String { "\(level): \(message)" }
    }

    private let lines = Mutex<[Line]>([])
    var all: [Line] { lines.withLock { $0 } }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append(Line(level: event.level, message: "\(event.message)")) }
    }
}
