import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Key-value stores (SPEC §12) between real daemons: two devices of one account through a
/// docsync-server (offline writes to the same and to different keys, the limits, each
/// reason `kv watch` prints), and two on the embedded `file://` backend.
@Suite(.serialized) struct KeyValueSystemTests {
    static let store = KeyValueStoreID("org.example.editor")

    /// A value through the control socket, as a program would call it.
    static func call(_ request: ControlRequest, on daemon: DaemonProcess) async throws -> ControlResponse {
        try await ControlClient(socketPath: daemon.socket).send(request, timeout: .seconds(30))
    }

    static func get(_ key: String, on daemon: DaemonProcess, store: KeyValueStoreID = store) async throws -> JSONValue? {
        guard case .keyValue(_, _, let value) = try await call(.keyValueGet(store: store, key: KeyValueKey(key)), on: daemon) else { return nil }
        return value
    }

    static func set(_ key: String, _ value: JSONValue, on daemon: DaemonProcess, store: KeyValueStoreID = store) async throws -> ControlResponse {
        try await call(.keyValueSet(store: store, key: KeyValueKey(key), value: value), on: daemon)
    }

    static func list(on daemon: DaemonProcess, store: KeyValueStoreID = store) async throws -> [String: JSONValue] {
        guard case .keyValues(_, let values) = try await call(.keyValueList(store: store), on: daemon) else { return [:] }
        return values
    }

    /// Two devices of alice's on a server (and the server's accounts), started and settled.
    static func devices(_ name: String) async throws -> (ShareCommandSystemTests.Accounts, DaemonProcess, DaemonProcess) {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice", "bob"], name)
        let laptop = try accounts.daemon("alice", device: "laptop"), desk = try accounts.daemon("alice", device: "desk")
        for daemon in [laptop, desk] {
            try daemon.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() }, "\(daemon.name) started")
        }
        return (accounts, laptop, desk)
    }

    /// Stops the server: every device is offline until `online` starts it again.
    static func offline(_ accounts: ShareCommandSystemTests.Accounts) async throws {
        _ = try await accounts.server.stop()
    }

    /// The server started again on its port, with its data.
    static func online(_ accounts: ShareCommandSystemTests.Accounts) async throws -> ShareCommandSystemTests.Accounts {
        ShareCommandSystemTests.Accounts(
            data: accounts.data, server: try await ServerProcess(dataDirectory: accounts.data.url, listen: "127.0.0.1:\(accounts.server.port)"),
            base: accounts.base, tokenFiles: accounts.tokenFiles)
    }

    @Test func twoDevicesWriteOfflineToTheSameAndToDifferentKeysAndConverge() async throws {
        var (accounts, laptop, desk) = try await Self.devices("docsync-kv-offline")
        // Every watch starts from the first change kept (--since 0): none is missed however late it connects.
        let watch = try KeyValueWatchProcess(store: Self.store, socket: desk.socket, base: accounts.base.url, name: "desk", since: 0)
        defer { _ = watch }

        let set = try await laptop.docsStatus(["kv", "set", "theme", "\"dark\"", "--store", Self.store.name])
        #expect(set.status == 0, "\(set.errors)")
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            try await desk.docsStatus(["kv", "get", "theme", "--store", Self.store.name]).output == "\"dark\"\n"
        }, "the write reaches the other device")
        #expect(try await eventually(timeout: .seconds(10), pollEvery: .milliseconds(100)) { watch.keys(.serverChange).contains("theme") },
                "kv watch prints it as a serverChange: \(watch.changes())")
        let missing = try await desk.docsStatus(["kv", "get", "nothing", "--store", Self.store.name])
        #expect(missing.status == 6 && missing.output.isEmpty, "a missing key exits 6: \(missing)")

        // Both devices write while the server is down: to one key both, and each to its own.
        try await Self.offline(accounts)
        do {
            #expect(try await laptop.docsStatus(["kv", "set", "theme", "\"light\"", "--store", Self.store.name]).status == 0)
            #expect(try await laptop.docsStatus(["kv", "set", "size", "14", "--store", Self.store.name]).status == 0)
            #expect(try await desk.docsStatus(["kv", "set", "theme", "\"blue\"", "--store", Self.store.name]).status == 0)
            #expect(try await desk.docsStatus(["kv", "set", "font", "{\"name\":\"mono\",\"ligatures\":true}", "--store", Self.store.name]).status == 0)
            #expect(try await desk.docsStatus(["kv", "remove", "nothing", "--store", Self.store.name]).status == 0)
            // Offline, each device sees its own writes at once.
            #expect(try await Self.get("theme", on: laptop) == .string("light"))
            #expect(try await Self.get("theme", on: desk) == .string("blue"))
        }
        accounts = try await Self.online(accounts)
        let converged = try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            let (onLaptop, onDesk) = (try await Self.list(on: laptop), try await Self.list(on: desk))
            return onLaptop == onDesk && onLaptop.count == 3
        }
        let values = try await Self.list(on: laptop), deskValues = try await Self.list(on: desk)
        #expect(converged, "both devices hold the same values: \(values) / \(deskValues)")
        #expect(values["size"] == .number(14) && values["font"] == .object(["name": .string("mono"), "ligatures": .bool(true)]))
        #expect(values["theme"] == .string("light") || values["theme"] == .string("blue"), "the last write to reach the server wins: \(values)")
        #expect(try await eventually(timeout: .seconds(10), pollEvery: .milliseconds(100)) { watch.keys(.serverChange).contains("size") },
                "the laptop's own key reaches the desk as a serverChange: \(watch.changes())")
        let listed = try await desk.docsStatus(["kv", "list", "--store", Self.store.name])
        #expect(listed.output.contains("size 14") && listed.output.contains("font {\"ligatures\":true,\"name\":\"mono\"}"), "\(listed.output)")

        #expect(await watch.stop() == 0)
        _ = await laptop.stop()
        _ = await desk.stop()
        _ = try await accounts.server.stop()
    }

    @Test func theLimitsRefuseLocallyAtOnceAndTheServerRefusesWhatTwoOfflineDevicesWroteTogether() async throws {
        var (accounts, laptop, desk) = try await Self.devices("docsync-kv-limits")
        let watches = try [laptop, desk].map { try KeyValueWatchProcess(store: Self.store, socket: $0.socket, base: accounts.base.url, name: $0.name, since: 0) }

        // Over a limit on this device: refused at once, with a clear error, nothing changed.
        let huge = JSONValue.string(String(repeating: "x", count: KeyValueLimits.maximumValueBytes))
        guard case .failure(let code, let message) = try await Self.set("huge", huge, on: laptop) else {
            Issue.record("a value over 1,000,000 bytes was taken")
            return
        }
        #expect(code == "quotaExceeded" && message.contains("at most 1000000 bytes"), "\(message)")
        let long = try await laptop.docsStatus(["kv", "set", String(repeating: "k", count: 65), "1", "--store", Self.store.name])
        #expect(long.status == 2 && long.errors.contains("at most 64 bytes"), "\(long)")
        let notJSON = try await laptop.docsStatus(["kv", "set", "theme", "dark", "--store", Self.store.name])
        #expect(notJSON.status == 2 && notJSON.errors.contains("is not JSON"), "\(notJSON)")

        // Offline, each device writes 600 keys of its own: 1,200 together, over 1,024.
        try await Self.offline(accounts)
        do {
            for (device, prefix) in [(laptop, "laptop"), (desk, "desk")] {
                for index in 0 ..< 600 {
                    let answer = try await Self.set("\(prefix) \(index)", .number(Double(index)), on: device)
                    guard case .keyValue = answer else { Issue.record("\(prefix) \(index): \(answer)"); return }
                }
            }
            #expect(try await Self.list(on: laptop).count == 600)
        }
        accounts = try await Self.online(accounts)
        let settled = try await eventually(timeout: .seconds(90), pollEvery: .milliseconds(250)) {
            let (onLaptop, onDesk) = (try await Self.list(on: laptop), try await Self.list(on: desk))
            return onLaptop.count == KeyValueLimits.maximumKeys && onDesk == onLaptop
        }
        let (laptopCount, deskCount) = (try await Self.list(on: laptop).count, try await Self.list(on: desk).count)
        #expect(settled, "both hold the 1,024 keys the server took: \(laptopCount), \(deskCount)")
        let reverted = watches[0].keys(.quotaViolationChange).union(watches[1].keys(.quotaViolationChange))
        #expect(reverted.count == 1_200 - KeyValueLimits.maximumKeys, "the refused writes are announced: \(reverted.count)")
        #expect(reverted.isDisjoint(with: Set(try await Self.list(on: laptop).keys)), "and are gone")
        // The local limit now holds too: one more key is refused at once by docs-status.
        let oneMore = try await desk.docsStatus(["kv", "set", "one more", "1", "--store", Self.store.name])
        #expect(oneMore.status == 1 && oneMore.errors.contains("at most 1024"), "\(oneMore)")

        for watch in watches { _ = await watch.stop() }
        _ = await laptop.stop()
        _ = await desk.stop()
        _ = try await accounts.server.stop()
    }

    @Test func aNewDevicesEarlyWritesGiveWayAndAnotherAccountReplacesTheValues() async throws {
        var (accounts, laptop, desk) = try await Self.devices("docsync-kv-reasons")
        _ = await desk.stop()
        #expect(try await Self.set("theme", .string("dark"), on: laptop) == .keyValue(store: Self.store, key: KeyValueKey("theme"), value: .string("dark")))
        // The write has reached the server once another device of alice's sees it.
        let probe = try accounts.daemon("alice", device: "probe")
        try probe.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { (try? await Self.get("theme", on: probe)) == .string("dark") })
        _ = await probe.stop()

        // A new device, offline from its start, writes before it ever fetched the store.
        let phone = try accounts.daemon("alice", device: "phone")
        try await Self.offline(accounts)
        do {
            try phone.start()
            #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { (try? await Self.list(on: phone)) != nil })
            #expect(try await Self.set("theme", .string("green"), on: phone) == .keyValue(store: Self.store, key: KeyValueKey("theme"), value: .string("green")))
            #expect(try await Self.set("sound", .bool(false), on: phone) == .keyValue(store: Self.store, key: KeyValueKey("sound"), value: .bool(false)))
        }
        accounts = try await Self.online(accounts)
        // Started after the fact, from the first change kept: the daemon replays it.
        let phoneWatch = try KeyValueWatchProcess(store: Self.store, socket: phone.socket, base: accounts.base.url, name: "phone", since: 0)
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { (try? await Self.get("theme", on: phone)) == .string("dark") },
                "the server's value replaces the early write")
        #expect(try await eventually(timeout: .seconds(10), pollEvery: .milliseconds(100)) { phoneWatch.keys(.initialSyncChange) == ["theme"] },
                "announced as an initialSyncChange of theme alone: \(phoneWatch.changes())")
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(200)) { (try? await Self.get("sound", on: laptop)) == .bool(false) },
                "an early write to a key the server lacked is sent")

        // The laptop's daemon comes back signed in to bob: alice's values give way to bob's.
        let laptopWatch = try KeyValueWatchProcess(store: Self.store, socket: laptop.socket, base: accounts.base.url, name: "laptop", since: 0)
        #expect(try await eventually(timeout: .seconds(10), pollEvery: .milliseconds(50)) { laptopWatch.keys(.serverChange).contains("sound") },
                "the watch is connected: it replayed the phone's write")
        _ = await laptop.stop()
        // The same device (state directory, folder, socket) with bob's token.
        let bobs = try DaemonProcess(name: "laptop", base: accounts.base.url, backend: accounts.server.url,
                                     extraArguments: ["--token-file", accounts.tokenFiles["bob"]!.path], socket: laptop.socket)
        try bobs.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) { laptopWatch.keys(.accountChange).contains("theme") },
                "kv watch waits through the restart and prints accountChange: \(laptopWatch.changes())")
        #expect(try await Self.list(on: bobs).isEmpty, "bob's account holds no values")
        #expect(await laptopWatch.stop() == 0)
        #expect(await phoneWatch.stop() == 0)
        _ = await bobs.stop()
        _ = await phone.stop()
        _ = try await accounts.server.stop()
    }

    @Test func twoDaemonsOnTheEmbeddedBackendShareAStore() async throws {
        let base = try TemporaryDirectory("docsync-kv-file")
        let backend = base.url.appendingPathComponent("backend")
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        let one = try DaemonProcess(name: "one", base: base.url, backend: backend)
        let two = try DaemonProcess(name: "two", base: base.url, backend: backend)
        for daemon in [one, two] {
            try daemon.start()
            #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await daemon.waitSettled() })
        }
        let watch = try KeyValueWatchProcess(store: Self.store, socket: two.socket, base: base.url, name: "two", since: 0)
        #expect(try await one.docsStatus(["--json", "kv", "set", "theme", "[1,2,3]", "--store", Self.store.name]).status == 0)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { try await Self.get("theme", on: two) == .array([.number(1), .number(2), .number(3)]) })
        #expect(try await eventually(timeout: .seconds(10), pollEvery: .milliseconds(100)) { watch.keys(.serverChange) == ["theme"] })
        #expect(try await two.docsStatus(["kv", "remove", "theme", "--store", Self.store.name]).status == 0)
        #expect(try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) { try await Self.get("theme", on: one) == nil })
        #expect(await watch.stop() == 0)
        _ = await one.stop()
        _ = await two.stop()
    }
}
