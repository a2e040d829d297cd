import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §15's desktop notifications from a real `docsyncd`: its session bus is a private one
/// (`PrivateSessionBus`, dbus-monitor listening, no notification server), named by
/// `DBUS_SESSION_BUS_ADDRESS` in the daemon's environment alone.
@Suite struct DesktopNotificationSystemTests {
    /// A `DaemonProcess`'s daemon, started with `environment` added to this process's.
    final class NotifyingDaemon: @unchecked Sendable {
        let device: DaemonProcess
        private let process = Process()
        private let exit: ProcessExit

        init(_ device: DaemonProcess, environment: [String: String]) throws {
            self.device = device
            process.executableURL = builtProduct("docsyncd")
            process.arguments = device.arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            _ = FileManager.default.createFile(atPath: device.log.path, contents: nil)
            let log = try FileHandle(forWritingTo: device.log)
            process.standardOutput = log
            process.standardError = log
            exit = ProcessExit(of: process)
            try process.run()
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        var isRunning: Bool { process.isRunning }

        /// SIGTERM, then waits for the exit (SIGKILL after 20 s); returns the exit status.
        func stop() async -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            if await !eventually(timeout: .seconds(20), { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
            await exit.ended()
            return process.terminationStatus
        }

        func state() async -> FolderState? {
            try? await device.status()?.folders.first?.state
        }
    }

    /// A folder whose root goes missing after its first sync is one notification however
    /// long it stays held; back and missing again, one more. No notification server answers
    /// on the bus, and the daemon takes that calmly.
    @Test func aHeldFolderIsNotifiedOncePerTimeItIsHeld() async throws {
        let bus = try await PrivateSessionBus.start()
        let base = try TemporaryDirectory("docsync-notify")
        let device = try DaemonProcess(name: "alpha", base: base.url, backend: URL(fileURLWithPath: base.url.appendingPathComponent("backend").path))
        for number in 0..<5 { try "file \(number)\n".write(to: device.file("f\(number).txt"), atomically: false, encoding: .utf8) }
        let daemon = try NotifyingDaemon(device, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let exitStatus = try await closing({ _ = await daemon.stop() }) { () async throws -> Int32 in
            #expect(await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { (try? await device.waitSettled()) == true },
                    "the daemon answers once it is up: \(device.logTextWithoutRequests())")
            #expect(bus.notifyCalls.isEmpty, "nothing needs a person after the first sync: \(bus.notifyCalls)")

            // The root moved away: held.
            let away = base.url.appendingPathComponent("away")
            try FileManager.default.moveItem(at: device.folder, to: away)
            #expect(await eventually(timeout: .seconds(30)) { await daemon.state() == .held })
            #expect(await eventually(timeout: .seconds(30)) { bus.notifyCalls.count == 1 }, "\(bus.monitorText)\n\(device.logTextWithoutRequests())")
            // Still held a few seconds on (a look every second): not notified again.
            #expect(await !eventually(timeout: .seconds(3)) { bus.notifyCalls.count > 1 }, "\(bus.notifyCalls)")

            // Back, then missing again: a new situation.
            try FileManager.default.moveItem(at: away, to: device.folder)
            #expect(await eventually(timeout: .seconds(30)) { await daemon.state().map { $0 != .held } ?? false })
            #expect(try await device.waitSettled())
            // The daemon looks every second: once it has seen the folder back, the situation is over.
            #expect(await eventually(timeout: .seconds(30)) { device.logText().contains("situation over") }, "\(device.logTextWithoutRequests())")
            #expect(bus.notifyCalls.count == 1, "a folder that is back is not notified: \(bus.notifyCalls)")
            // The root is looked at once a second: moved away before it is watched again, the
            // daemon would not notice (nothing wakes the engine).
            #expect(await eventually(timeout: .seconds(30)) { device.logText().contains("watching the folder's root again") })
            try FileManager.default.moveItem(at: device.folder, to: away)
            #expect(await eventually(timeout: .seconds(30)) { await daemon.state() == .held })
            #expect(await eventually(timeout: .seconds(30)) { bus.notifyCalls.count == 2 }, "\(bus.monitorText)\n\(device.logTextWithoutRequests())")
            #expect(await !eventually(timeout: .seconds(3)) { bus.notifyCalls.count > 2 }, "\(bus.notifyCalls)")
            #expect(daemon.isRunning, "no notification server on the bus is no failure")
            return await daemon.stop()
        }
        #expect(exitStatus == 0, "\(device.logTextWithoutRequests())")

        let expected = ObservedNotify(appName: "docsync", replacesID: 0, icon: "", summary: "Docs is held: the folder is missing",
                                      body: FolderHold.Reason.rootMissing.explanation(root: device.folder.path, items: 5),
                                      urgency: 2, expireTimeout: -1)
        #expect(bus.notifyCalls == [expected, expected])
        #expect(device.logText().contains("desktop notification not shown: org.freedesktop.DBus.Error.ServiceUnknown"))
    }
}
