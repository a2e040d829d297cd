import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status events` against a real daemon (SPEC §15): a folder held and back shows as
/// state changes, and the numbering goes on across a restart.
struct EventStreamSystemTests {
    @Test func aHeldFolderShowsAsEventsAndIdsGoOnAcrossARestart() async throws {
        let base = try TemporaryDirectory("docsync-events")
        let device = try DaemonProcess(name: "alpha", base: base.url, backend: base.url.appendingPathComponent("backend"))
        try Data("hello\n".utf8).write(to: device.file("a.txt"))
        try await closing({ await device.stop() }) {
            try device.start()
            let listening = await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: device.socket) }
            try #require(listening)
            #expect(try await device.waitSettled())
            let away = base.url.appendingPathComponent("away")
            try FileManager.default.moveItem(at: device.folder, to: away)
            let heldSeen = await eventually(timeout: .seconds(30)) {
                (try? await self.events(device, since: 0))?.contains { $0.kind == .folderState && $0.message.contains("→ held") } ?? false
            }
            #expect(heldSeen, "no held event:\n\(device.logTextWithoutRequests().suffix(2000))")
            try FileManager.default.moveItem(at: away, to: device.folder)
            let backSeen = await eventually(timeout: .seconds(30)) {
                (try? await self.events(device, since: 0))?.contains { $0.kind == .folderState && $0.message.hasPrefix("held → ") } ?? false
            }
            #expect(backSeen)
            let before = try await events(device, since: 0)
            #expect(before.first?.kind == .started)
            #expect(zip(before, before.dropFirst()).allSatisfy { $0.id < $1.id }, "ids increase")
            let last = try #require(before.last?.id)

            #expect(await device.stop() == 0)
            try device.start()
            let restarted = await eventually(timeout: .seconds(30)) {
                (try? await self.events(device, since: last))?.contains { $0.kind == .started } ?? false
            }
            try #require(restarted)
            let after = try await events(device, since: last)
            #expect(after.first?.kind == .stopped && after.allSatisfy { $0.id > last }, "\(after.map { "\($0.id) \($0.kind)" })")
        }
    }

    private func events(_ device: DaemonProcess, since: Int64) async throws -> [DaemonEvent] {
        let result = try await device.docsStatus(["events", "--since", "\(since)", "--json"])
        guard result.status == 0 else { throw PosixError(0, "docs-status events: \(result.errors)") }
        let decoder = ControlFraming.makeDecoder()
        return try result.output.split(separator: "\n").map { try decoder.decode(DaemonEvent.self, from: Data($0.utf8)) }
    }
}

/// `docs-status pause` and `resume` against real daemons (SPEC §15): nothing is sent while
/// paused, across a restart too; `wait` exits 5; resuming sends what changed.
struct PauseSystemTests {
    @Test func aPausedFolderSendsNothingAcrossARestartUntilResumed() async throws {
        let base = try TemporaryDirectory("docsync-pause")
        let backend = base.url.appendingPathComponent("backend")
        let alpha = try DaemonProcess(name: "alpha", base: base.url, backend: backend)
        let beta = try DaemonProcess(name: "beta", base: base.url, backend: backend)
        try await closing({ await alpha.stop(); await beta.stop() }) {
            try alpha.start()
            try beta.start()
            let listening = await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: alpha.socket) }
            try #require(listening)
            #expect(try await alpha.waitSettled())
            let paused = try await alpha.docsStatus(["pause", alpha.folder.path])
            #expect(paused.status == 0 && paused.output.contains("paused until 'docs-status resume'"), "\(paused)")
            try Data("written while paused\n".utf8).write(to: alpha.file("while-paused.txt"))
            let wait = try await alpha.docsStatus(["wait", "--timeout", "5"])
            #expect(wait.status == 5 && wait.errors.contains("paused"), "\(wait)")

            #expect(await alpha.stop() == 0)
            try alpha.start()
            let stillPaused = await eventually(timeout: .seconds(30)) { (try? await alpha.status())?.folders.first?.state == .paused }
            #expect(stillPaused, "the pause is kept across a restart")
            #expect(try await beta.waitSettled())
            #expect(!FileManager.default.fileExists(atPath: beta.file("while-paused.txt").path), "nothing was sent while paused")

            let resumed = try await alpha.docsStatus(["resume"])
            #expect(resumed.status == 0, "\(resumed)")
            let arrived = await eventually(timeout: .seconds(30)) { FileManager.default.fileExists(atPath: beta.file("while-paused.txt").path) }
            #expect(arrived, "resuming sends what changed:\n\(alpha.logTextWithoutRequests().suffix(2000))")
            #expect(try await alpha.waitSettled())
        }
    }
}
