import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Turning end-to-end encryption on and bringing devices in (SPEC §13), with real daemons
/// on the embedded backend: the recovery key shown once, a new device awaiting approval
/// (`wait` exits 5) until a trusted device approves it with the code both show, a wrong
/// code refused, the recovery key trusting a device, a removed device decrypting nothing
/// written after its removal, the key directory closed to programs.
@Suite(.serialized) struct EncryptionSystemTests {
    static func encryption(_ daemon: DaemonProcess, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> EncryptionStatus {
        try await daemon.docsStatusJSON(EncryptionStatus.self, ["encryption"] + arguments, sourceLocation: sourceLocation)
    }

    /// The encryption status while the daemon may not answer yet (`nil` then).
    static func polledEncryption(_ daemon: DaemonProcess) async -> EncryptionStatus? {
        guard let result = try? await daemon.docsStatus(["encryption", "--json"]), result.status == 0 else { return nil }
        return try? ControlFraming.makeDecoder().decode(EncryptionStatus.self, from: Data(result.output.utf8))
    }

    @Test func devicesJoinAnEncryptedAccountByApprovalOrTheRecoveryKey() async throws {
        let base = try TemporaryDirectory("docsync-e2ee-join")
        let backend = base.url.appendingPathComponent("backend")
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        let laptop = try DaemonProcess(name: "laptop", base: base.url, backend: backend)
        try laptop.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await laptop.waitSettled() })
        #expect(try await Self.encryption(laptop).state == .off)
        try Data("written before".utf8).write(to: laptop.file("before.txt"))
        #expect(try await laptop.waitSettled())

        // The folder syncs already: turning encryption on moves it (EncryptionMoveSystemTests).
        let enabled = try await Self.encryption(laptop, ["enable"])
        #expect(enabled.state == .on)
        let recoveryKey = try #require(enabled.recoveryKey, "enable shows the recovery key")
        #expect(try RecoveryKey(text: recoveryKey).text == recoveryKey)
        #expect(try await Self.encryption(laptop).recoveryKey == nil, "shown once")
        let again = try await laptop.docsStatus(["encryption", "enable"])
        #expect(again.status == 1 && again.errors.contains("already on"), "\(again)")
        // The account key is the laptop's alone, mode 600.
        let accountKey = laptop.stateDirectory.appendingPathComponent("account-key")
        #expect((try FileManager.default.attributesOfItem(atPath: accountKey.path)[.posixPermissions] as? Int) == 0o600)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { try await laptop.waitSettled(timeout: 5) },
                "the laptop's folder starts again in its encrypted zone: \(laptop.logText().suffix(2000))")
        try Data("sealed".utf8).write(to: laptop.file("secret.txt"))
        #expect(try await laptop.waitSettled())

        // A new device waits for approval: it shows a code, wait exits 5, it uploads nothing.
        let desk = try DaemonProcess(name: "desk", base: base.url, backend: backend)
        try Data("desk's own".utf8).write(to: desk.file("desk.txt"))
        try desk.start()
        var waiting: EncryptionStatus?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            waiting = await Self.polledEncryption(desk)
            return waiting?.state == .awaitingApproval
        }, "the desk awaits approval: \(String(describing: waiting))")
        let code = try #require(waiting?.approvalCode)
        #expect(waiting?.message?.contains("docs-status devices approve desk --fingerprint") == true)
        let wait = try await desk.docsStatus(["wait", "--timeout", "10"])
        #expect(wait.status == 5, "wait exits 5 while the device awaits approval: \(wait)")
        let overview = try await desk.docsStatus([])
        #expect(overview.output.contains("encryption: awaiting approval") && overview.output.contains(code), "\(overview.output)")

        // The laptop lists it with the same code; a wrong code approves nothing.
        var listed: EncryptionStatus?
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) {
            listed = try? await laptop.docsStatusJSON(EncryptionStatus.self, ["devices"])
            return listed?.devices?.contains { $0.name == "desk" } == true
        })
        let deskEntry = try #require(listed?.devices?.first { $0.name == "desk" })
        #expect(!deskEntry.trusted && deskEntry.approvalCode == code, "both devices show the same code")
        #expect(listed?.devices?.first { $0.name == "laptop" }?.trusted == true)
        let wrong = try await laptop.docsStatus(["devices", "approve", "desk", "--fingerprint", "1111 2222 3333 4444"])
        #expect(wrong.status == 1 && wrong.errors.contains("does not match"), "\(wrong)")
        #expect(try await Self.encryption(desk).state == .awaitingApproval)
        let unknown = try await laptop.docsStatus(["devices", "approve", "nobody", "--fingerprint", code])
        #expect(unknown.status == 4, "\(unknown)")

        let approved = try await laptop.docsStatus(["devices", "approve", "desk", "--fingerprint", code.replacingOccurrences(of: " ", with: "-")])
        #expect(approved.status == 0, "\(approved)")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { try await desk.waitSettled(timeout: 5) },
                "the desk, approved, starts its folder and settles: \(desk.logText().suffix(3000))")
        #expect(try await Self.encryption(desk).state == .on)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            (try? String(contentsOf: desk.file("secret.txt"), encoding: .utf8)) == "sealed"
        }, "the laptop's file reaches the desk")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            (try? String(contentsOf: laptop.file("desk.txt"), encoding: .utf8)) == "desk's own"
        }, "the desk's file reaches the laptop")

        // A third device enters the recovery key (a wrong one first).
        let spare = try DaemonProcess(name: "spare", base: base.url, backend: backend)
        try spare.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { await Self.polledEncryption(spare)?.state == .awaitingApproval })
        let typo = try await spare.docsStatus(["encryption", "recover", String(recoveryKey.dropLast()) + (recoveryKey.last == "a" ? "b" : "a")])
        #expect(typo.status == 1 && typo.errors.contains("typo"), "\(typo)")
        let otherKey = try await spare.docsStatus(["encryption", "recover", RecoveryKey().text])
        #expect(otherKey.status == 1, "a recovery key of no account opens nothing: \(otherKey)")
        let recovered = try await Self.encryption(spare, ["recover", recoveryKey])
        #expect(recovered.state == .on)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            (try? String(contentsOf: spare.file("secret.txt"), encoding: .utf8)) == "sealed"
        }, "the recovered device gets the folder")
        // Every device is listed as trusted now, by the laptop too.
        let all = try await laptop.docsStatusJSON(EncryptionStatus.self, ["devices"])
        #expect(Set(all.devices?.filter(\.trusted).map(\.name) ?? []) == ["laptop", "desk", "spare"])

        // The desk is removed: it keeps every old key, yet nothing written since opens for it;
        // it says so (wait exits 5) and deletes nothing. The spare follows by itself.
        let removed = try await laptop.docsStatus(["devices", "remove", "desk"])
        #expect(removed.status == 0, "\(removed)")
        #expect(try await laptop.docsStatus(["devices", "remove", "laptop"]).status == 1, "a device cannot remove itself")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            await Self.polledEncryption(desk)?.state == .cannotDecrypt
        }, "the removed desk cannot decrypt: \(desk.logText().suffix(2000))")
        #expect(try await desk.docsStatus(["wait", "--timeout", "10"]).status == 5)
        try Data("after the removal".utf8).write(to: laptop.file("later.txt"))
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            (try? String(contentsOf: spare.file("later.txt"), encoding: .utf8)) == "after the removal"
        }, "the spare, still trusted, gets what the laptop writes after the removal")
        #expect(!FileManager.default.fileExists(atPath: desk.file("later.txt").path), "the removed desk does not")
        #expect(FileManager.default.fileExists(atPath: desk.file("secret.txt").path), "and deletes nothing it has")
        let generations = try await laptop.docsStatusJSON(EncryptionStatus.self, ["devices"])
        #expect(Set(generations.devices?.map(\.name) ?? []) == ["laptop", "spare"])

        // Programs cannot touch the key directory through the key-value calls.
        let kv = try await laptop.docsStatus(["kv", "list", "--store", KeyDirectory.storeName])
        #expect(kv.status != 0 && kv.errors.contains("reserved"), "\(kv)")
        for daemon in [laptop, desk, spare] { _ = await daemon.stop() }
    }
}
