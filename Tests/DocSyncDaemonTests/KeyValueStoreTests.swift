@testable import DocSyncDaemon
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Logging
import Testing

/// A device's key-value store on disk and against a real embedded backend (SPEC §12).
@Suite struct KeyValueStoreTests {
    static let id = KeyValueStoreID("org.example.editor")
    static let theme = KeyValueKey("theme")

    static func open(_ directory: URL, device: String, account: String = "alice", backend: any StorageBackend) throws -> KeyValueStore {
        try KeyValueStore(id: id, directory: directory, account: account, backend: backend, device: device, logger: Logger(label: "test"))
    }

    @Test func aWriteIsKeptAcrossARestartSentAfterItAndItsChangesAreNumberedAcrossRestarts() async throws {
        let base = try TemporaryDirectory("docsync-kv-store")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let laptopState = base.url.appendingPathComponent("laptop"), deskState = base.url.appendingPathComponent("desk")

        // Written before any sync, then the daemon stops: the write is on disk.
        try await Self.open(laptopState, device: "laptop", backend: backend).write(.string("dark"), to: Self.theme)
        let laptop = try Self.open(laptopState, device: "laptop", backend: backend)
        #expect(await laptop.value(of: Self.theme) == .string("dark"))
        try await laptop.syncOnce()

        let desk = try Self.open(deskState, device: "desk", backend: backend)
        try await desk.syncOnce()
        #expect(await desk.value(of: Self.theme) == .string("dark"))
        try await laptop.write(.string("light"), to: Self.theme)
        try await laptop.syncOnce()
        try await desk.syncOnce()

        // The desk's changes from elsewhere, replayed after a restart, numbered 1, 2.
        let reopened = try Self.open(deskState, device: "desk", backend: backend)
        let (start, stream) = try await reopened.watch(after: 0)
        #expect(start == 0)
        var replayed: [KeyValueChange] = []
        for await change in stream {
            replayed.append(change)
            if replayed.count == 2 { break }
        }
        #expect(replayed.map(\.sequence) == [1, 2])
        #expect(replayed.map(\.reason) == [.serverChange, .serverChange])
        #expect(replayed.allSatisfy { $0.keys == ["theme"] })
        #expect(await reopened.value(of: Self.theme) == .string("light"))

        // Another account: the values go at once, with an announcement numbered after the others.
        let switched = try Self.open(deskState, device: "desk", account: "bob", backend: backend)
        #expect(await switched.values().isEmpty)
        let (_, afterSwitch) = try await switched.watch(after: 2)
        for await change in afterSwitch {
            #expect(change.sequence == 3 && change.reason == .accountChange && change.keys == ["theme"])
            break
        }
    }

    @Test func aWriteOverALimitIsRefusedAndNothingIsStored() async throws {
        let base = try TemporaryDirectory("docsync-kv-limit")
        let backend = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        let store = try Self.open(base.url.appendingPathComponent("laptop"), device: "laptop", backend: backend)
        let huge = JSONValue.string(String(repeating: "x", count: KeyValueLimits.maximumValueBytes))
        await #expect(throws: SyncError.self) { try await store.write(huge, to: Self.theme) }
        #expect(await store.values().isEmpty)
        let reopened = try Self.open(base.url.appendingPathComponent("laptop"), device: "laptop", backend: backend)
        #expect(await reopened.values().isEmpty, "nothing was kept on disk either")
    }
}
