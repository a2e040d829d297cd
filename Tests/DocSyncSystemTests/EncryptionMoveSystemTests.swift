import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Turning encryption on for a folder that already syncs on three devices (SPEC §13), with
/// real daemons on the embedded backend: the device that runs `encryption enable` uploads
/// the folder sealed into its encrypted zone and carries Recently Deleted there; the server
/// then purges every plaintext record and chunk (nothing of the files is left in the store's
/// files); a device running meanwhile and one offline during the move follow the redirect
/// once approved, keep the files they have (the same inodes: nothing downloaded again) and
/// upload nothing in the clear.
@Suite(.serialized) struct EncryptionMoveSystemTests {
    /// The inode of each of `paths` under `daemon`'s folder.
    static func inodes(_ daemon: DaemonProcess, _ paths: some Sequence<String>) -> [String: Int] {
        var found: [String: Int] = [:]
        for path in paths {
            found[path] = (try? FileManager.default.attributesOfItem(atPath: daemon.file(path).path)[.systemFileNumber] as? Int) ?? nil
        }
        return found
    }

    /// Each of `texts` found in a file under `directory`, as "TEXT in FILE".
    static func find(_ texts: [String], in directory: URL) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard let bytes = FileManager.default.contents(atPath: url.path) else { continue }
            for text in texts where bytes.range(of: Data(text.utf8)) != nil { found.append("\(text) in \(url.lastPathComponent)") }
        }
        return found
    }

    /// Approves `device` from `laptop` once it shows its code, and waits until it has settled.
    static func approve(_ device: DaemonProcess, from laptop: DaemonProcess, name: String) async throws {
        var code: String?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            code = await EncryptionSystemTests.polledEncryption(device)?.approvalCode
            return code != nil
        }, "\(name) awaits approval: \(device.logText().suffix(2000))")
        let approved = try await laptop.docsStatus(["devices", "approve", name, "--fingerprint", code ?? ""])
        #expect(approved.status == 0, "\(approved)")
        let settled = try await eventually(timeout: .seconds(120), pollEvery: .milliseconds(200)) { try await device.waitSettled(timeout: 5) }
        if !settled {
            let state = await EncryptionSystemTests.polledEncryption(device)
            let status = try? await device.docsStatus(["status"])
            let log = String(device.logTextWithoutRequests().suffix(6000))
            Issue.record(Comment(rawValue: "\(name), approved, did not follow into the encrypted zone and settle; encryption: \(String(describing: state)); "
                                 + "status: \(status?.output ?? "none")\nits log: \(log)"))
        }
    }

    @Test func aFolderThatSyncsMovesIntoItsEncryptedZoneAndEveryDeviceFollows() async throws {
        let base = try TemporaryDirectory("docsync-e2ee-move")
        let backend = base.url.appendingPathComponent("backend")
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        let laptop = try DaemonProcess(name: "laptop", base: base.url, backend: backend)
        let desk = try DaemonProcess(name: "desk", base: base.url, backend: backend)
        let phone = try DaemonProcess(name: "phone", base: base.url, backend: backend)
        let files = EncryptionLeakTests.files
        for daemon in [laptop, desk, phone] { try daemon.start() }
        for (path, text) in files {
            let url = laptop.file(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let goneText = "deleted before the move: otter-lantern receipts\n"
        try Data(goneText.utf8).write(to: laptop.file("Taxes/old draft.txt"))
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { try await laptop.waitSettled(timeout: 5) })
        try FileManager.default.removeItem(at: laptop.file("Taxes/old draft.txt"))
        for daemon in [desk, phone] {
            #expect(try await eventually(timeout: .seconds(120), pollEvery: .milliseconds(200)) {
                files.allSatisfy { path, text in FileManager.default.contents(atPath: daemon.file(path).path) == Data(text.utf8) }
                    && !FileManager.default.fileExists(atPath: daemon.file("Taxes/old draft.txt").path)
            }, "the plain folder syncs first: \(daemon.logText().suffix(2000))")
            #expect(try await daemon.waitSettled())
        }
        #expect(!EncryptionLeakTests.search(backend).isEmpty, "before the move the store holds the files in the clear")
        _ = await phone.stop()  // offline during the move
        let deskInodes = Self.inodes(desk, files.keys), phoneInodes = Self.inodes(phone, files.keys)

        // The laptop turns encryption on: the folder moves; `wait` returns once it is done.
        let enabled = try await EncryptionSystemTests.encryption(laptop, ["enable"])
        #expect(enabled.state == .on && enabled.recoveryKey != nil, "\(enabled)")
        #expect(try await eventually(timeout: .seconds(120), pollEvery: .milliseconds(200)) { try await laptop.waitSettled(timeout: 5) },
                "the move finishes: \(laptop.logText().suffix(3000))")
        let after = try await EncryptionSystemTests.encryption(laptop)
        #expect(after.waitingFolders == nil && after.plainFolders == nil, "nothing waits or stays plain: \(after)")
        #expect(laptop.logText().contains("its plain zone is a redirect now"))
        let leaked = EncryptionLeakTests.search(backend) + Self.find(["old draft", goneText], in: backend)
        #expect(leaked.isEmpty, "after the move the store's files (SQLite, WAL, packs) hold: \(leaked)")

        // Recently Deleted came along, sealed, and opens on the laptop.
        let deleted = try await laptop.docsStatus(["deleted"])
        #expect(deleted.status == 0 && deleted.output.contains("old draft.txt"), "\(deleted)")

        // The desk, running during the move, is told the zone moved; once approved it joins
        // the encrypted zone with the files it has.
        try await Self.approve(desk, from: laptop, name: "desk")
        #expect(Self.inodes(desk, files.keys) == deskInodes, "the desk keeps its files as they are: nothing downloaded again")
        #expect(files.allSatisfy { path, text in FileManager.default.contents(atPath: desk.file(path).path) == Data(text.utf8) })
        try Data("written after the move".utf8).write(to: desk.file("Diary/after.md"))
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            FileManager.default.contents(atPath: laptop.file("Diary/after.md").path) == Data("written after the move".utf8)
        }, "the desk's new file reaches the laptop through the encrypted zone")

        // The phone, offline during the move, follows the redirect when it comes back.
        try phone.start()
        try await Self.approve(phone, from: laptop, name: "phone")
        #expect(Self.inodes(phone, files.keys) == phoneInodes, "the phone keeps its files as they are: nothing downloaded again")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            FileManager.default.contents(atPath: phone.file("Diary/after.md").path) == Data("written after the move".utf8)
        })
        for daemon in [laptop, desk, phone] {
            let conflicts = try await daemon.docsStatus(["--json", "conflicts"])
            let listed = try JSONSerialization.jsonObject(with: Data(conflicts.output.utf8)) as? [Any]
            #expect(conflicts.status == 0 && listed?.isEmpty == true, "no device made conflict copies: \(conflicts)")
        }
        let recovered = try await laptop.docsStatus(["recover", laptop.file("Taxes/old draft.txt").path])
        #expect(recovered.status == 0, "\(recovered)")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            FileManager.default.contents(atPath: phone.file("Taxes/old draft.txt").path) == Data(goneText.utf8)
        }, "a file recovered from the carried Recently Deleted reaches every device")
        let leakedLater = EncryptionLeakTests.search(backend) + Self.find(["old draft", goneText, "after.md", "written after the move"], in: backend)
        #expect(leakedLater.isEmpty, "no device uploaded anything in the clear: \(leakedLater)")
        for daemon in [laptop, desk, phone] { _ = await daemon.stop() }
    }
}
