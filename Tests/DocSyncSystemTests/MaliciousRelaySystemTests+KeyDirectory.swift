import DocSyncControl
import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// The malicious relay against the account's key directory (SPEC §13): shown as if the account
/// were plain, and with a new device's public key substituted.
extension MaliciousRelaySystemTests {
    /// The key directory as the server itself holds it (read past any relay).
    static func keyDirectory(_ accounts: ShareCommandSystemTests.Accounts, _ user: String) async throws -> KeyDirectory {
        let token = try String(contentsOf: accounts.tokenFiles[user]!, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let backend = try HTTPBackend(url: accounts.server.url, token: token)
        return try await closing({ await backend.shutdown() }, after: {
            let page = try await backend.fetchChanges(in: KeyValueStoreID(KeyDirectory.storeName).zone, since: nil, limit: 1_000)
            var values: [String: JSONValue] = [:]
            for record in page.changed { if let key = record.keyValueKey, let value = record.jsonValue { values[key.name] = value } }
            return KeyDirectory(values: values)
        })
    }

    /// `docs-status encryption` of `daemon`, `nil` while it does not answer.
    static func encryption(_ daemon: DaemonProcess) async -> EncryptionStatus? { await EncryptionSystemTests.polledEncryption(daemon) }

    @Test func aDeviceThatSawTheAccountEncryptedNeverTakesItForPlain() async throws {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice"], "docsync-relay-plain")
        let deskRelay = try await TamperingRelay.start(upstream: accounts.server.url)
        let spareRelay = try await TamperingRelay.start(upstream: accounts.server.url)
        let laptop = try accounts.daemon("alice", device: "laptop")
        let desk = try Self.daemon(accounts, "alice", device: "desk", through: deskRelay)
        let spare = try Self.daemon(accounts, "alice", device: "spare", through: spareRelay)
        var files = ["heron-almanac.txt": "the heron almanac, spring\n"]
        try await EncryptionLeakTests.syncEncrypted(laptop, desk, files: files)
        // The spare sees the account encrypted and waits for approval (it keeps the account's
        // public keys as it saw them), then stops.
        try spare.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { await Self.encryption(spare)?.state == .awaitingApproval })
        _ = await spare.stop()

        // From now on both relays serve the key directory empty: an account never encrypted.
        deskRelay.arm(.hideKeyDirectory)
        spareRelay.arm(.hideKeyDirectory)
        // The trusted desk reads the directory again when it changes (a new recovery key).
        #expect(try await laptop.docsStatus(["encryption", "recovery-key", "--new"]).status == 0)
        #expect(try await eventually(timeout: .seconds(90), pollEvery: .milliseconds(200)) { deskRelay.tampered > 0 },
                "the desk read the directory through the relay again")
        #expect(await Self.encryption(desk)?.state == .on, "the desk still takes the account for encrypted")
        files["kingfisher-secret.txt"] = "the kingfisher's secret, written on the desk\n"
        try Self.write(desk, "kingfisher-secret.txt", files["kingfisher-secret.txt"]!)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            Self.read(laptop, "kingfisher-secret.txt") == files["kingfisher-secret.txt"]
        }, "what the desk writes still syncs, sealed")
        #expect(deskRelay.exchanges.contains { $0.target == WireRoute.uploadBatch && !$0.body.isEmpty }, "the desk's upload passed the relay (and is searched)")

        // The spare starts again with a file of its own: it still waits for approval and sends nothing.
        files["wren-diary.txt"] = "the wren's diary, kept on the spare\n"
        try Self.write(spare, "wren-diary.txt", files["wren-diary.txt"]!)
        try spare.start()
        // Its start, then its look every 2 s while it waits.
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { spareRelay.tampered >= 2 })
        // Its first answer (the control socket may not answer at once on a loaded machine).
        var standing: EncryptionStatus?
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            standing = await Self.encryption(spare)
            return standing != nil
        })
        #expect(standing?.state == .awaitingApproval, "the spare does not take the account for plain: \(String(describing: standing))")
        #expect(try await spare.docsStatus(["wait", "--timeout", "5"]).status == 5)
        let sent = spareRelay.exchanges.filter { $0.method != "GET" && !$0.target.contains(KeyDirectory.storeName) }
        #expect(sent.isEmpty, "the spare sends nothing but its own announcement: \(sent.map { "\($0.method) \($0.target)" })")
        #expect(Self.read(laptop, "wren-diary.txt") == nil)

        for daemon in [laptop, desk, spare] { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
        for relay in [deskRelay, spareRelay] { await relay.stop() }
        let found = Self.leaks(of: files, server: accounts.data.url, relays: [deskRelay, spareRelay])
        #expect(found.isEmpty, "plaintext reached the server or the relays: \(found)")
        // The search finds what is there.
        #expect(!EncryptionLeakTests.search(spare.folder, for: EncryptionLeakTests.needles(of: files)).isEmpty)
    }

    @Test func aNewDevicesKeySubstitutedInTheDirectoryIsNotApproved() async throws {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice"], "docsync-relay-keys")
        let laptopRelay = try await TamperingRelay.start(upstream: accounts.server.url)
        let laptop = try Self.daemon(accounts, "alice", device: "laptop", through: laptopRelay)
        let desk = try accounts.daemon("alice", device: "desk")
        try laptop.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await laptop.waitSettled(timeout: 5) })
        let enabled = try await laptop.docsStatus(["encryption", "enable"])
        #expect(enabled.status == 0, "\(enabled)")
        try desk.start()
        var code: String?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            code = await Self.encryption(desk)?.approvalCode
            return code != nil
        })
        let deskCode = try #require(code)

        // The laptop is shown the desk's announcement with the keys of an impostor, under the
        // desk's name: it lists the code of those keys.
        let impostor = EncryptionKeyPair()
        laptopRelay.arm(.substituteNewDevices(impostor: impostor.publicKeys, name: "desk"))
        var listed: DeviceEntry?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            guard let result = try? await laptop.docsStatus(["devices", "--json"]), result.status == 0 else { return false }
            listed = try? ControlFraming.makeDecoder().decode(EncryptionStatus.self, from: Data(result.output.utf8)).devices?.first { $0.name == "desk" }
            return listed?.id == DeviceID(impostor.publicKeys).text
        }, "the laptop lists the substituted device: \(String(describing: listed))")
        #expect(listed?.approvalCode != deskCode && listed?.trusted == false, "the codes differ")

        // The person types the code the desk shows: refused, nothing is trusted.
        let refused = try await laptop.docsStatus(["devices", "approve", "desk", "--fingerprint", deskCode])
        #expect(refused.status == 1 && refused.errors.contains("does not match"), "\(refused)")
        let directory = try await Self.keyDirectory(accounts, "alice")
        #expect(directory.trustedIDs.count == 1, "only the laptop is trusted: \(directory.trustedIDs)")
        #expect(!directory.trustedIDs.contains(DeviceID(impostor.publicKeys)))
        #expect(await Self.encryption(desk)?.state == .awaitingApproval)

        // The same code approves the desk once the server stops substituting: what was refused
        // was the substitution.
        laptopRelay.arm(nil)
        let approved = try await laptop.docsStatus(["devices", "approve", "desk", "--fingerprint", deskCode])
        #expect(approved.status == 0, "\(approved)")
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { await Self.encryption(desk)?.state == .on })

        for daemon in [laptop, desk] { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
        await laptopRelay.stop()
    }
}
