import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The decisions of a key-value store's local state (SPEC §12), one table row each.
@Suite struct KeyValueStateTests {
    static let store = KeyValueStoreID("org.example.editor")
    static let t = Timestamp(nanosecondsSince1970: 1_000)
    static let token = ChangeToken(opaqueValue: Data([1]))
    static let theme = KeyValueKey("theme"), size = KeyValueKey("size")

    /// A state after `events`, and every announcement on the way.
    static func run(_ events: [KeyValueEvent], from start: KeyValueState = KeyValueState(store: store, account: "alice")) throws -> (KeyValueState, [KeyValueChange]) {
        var state = start, announced: [KeyValueChange] = []
        for event in events {
            let (next, announcements) = try state.applying(event)
            state = next
            announced += announcements
        }
        return (state, announced)
    }

    static func fetched(_ changes: [KeyValueKey: JSONValue?], complete: Bool = false) -> KeyValueEvent {
        .fetched(changes: changes, complete: complete, token: token)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let events: [KeyValueEvent]
        let values: [String: JSONValue]
        let announced: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a local write is seen at once and announced to no one",
            events: [.write(theme, .string("dark"), time: t)], values: ["theme": .string("dark")], announced: []),
        Row(name: "another device's write is a serverChange",
            events: [fetched([:]), fetched([theme: .string("light")])], values: ["theme": .string("light")], announced: ["serverChange theme"]),
        Row(name: "a write before the first fetch to a key the server holds gives way: initialSyncChange",
            events: [.write(theme, .string("dark"), time: t), .write(size, .number(14), time: t), fetched([theme: .string("light")])],
            values: ["theme": .string("light"), "size": .number(14)], announced: ["initialSyncChange theme"]),
        Row(name: "after the first fetch a pending write stays over a fetched change (it is sent later and wins)",
            events: [fetched([:]), .write(theme, .string("dark"), time: t), fetched([theme: .string("light")])],
            values: ["theme": .string("dark")], announced: []),
        Row(name: "a refused write shows the server's value again: quotaViolationChange",
            events: [fetched([theme: .string("light")]), .write(theme, .string("dark"), time: t),
                     .sent(saved: [], refused: [KeyValueSentWrite(key: theme, sequence: 1, value: .string("dark"))])],
            values: ["theme": .string("light")], announced: ["serverChange theme", "quotaViolationChange theme"]),
        Row(name: "an acknowledgement of an older write leaves a newer one pending",
            events: [fetched([:]), .write(theme, .string("dark"), time: t), .write(theme, .string("blue"), time: t),
                     .sent(saved: [KeyValueSentWrite(key: theme, sequence: 1, value: .string("dark"))], refused: [])],
            values: ["theme": .string("blue")], announced: []),
        Row(name: "a complete fetch removes what the server no longer holds",
            events: [fetched([theme: .string("light"), size: .number(1)]), fetched([size: .number(1)], complete: true)],
            values: ["size": .number(1)], announced: ["serverChange size theme", "serverChange theme"]),
        Row(name: "another account replaces every value: accountChange, and its first fetch too",
            events: [fetched([theme: .string("light")]), .write(size, .number(3), time: t), .signedIn(account: "bob"), fetched([theme: .string("green")])],
            values: ["theme": .string("green")], announced: ["serverChange theme", "accountChange size theme", "accountChange theme"]),
        Row(name: "the same account changes nothing",
            events: [fetched([theme: .string("light")]), .signedIn(account: "alice")], values: ["theme": .string("light")], announced: ["serverChange theme"]),
        Row(name: "a removal is a write too",
            events: [fetched([theme: .string("light")]), .write(theme, nil, time: t)], values: [:], announced: ["serverChange theme"]),
        Row(name: "carried into a sealed zone: its first (complete, empty) fetch removes nothing, every value waits to be sent",
            events: [fetched([theme: .string("light"), size: .number(1)]), .rezoned(zone: "~e.sealed", carry: true, time: t),
                     fetched([:], complete: true)],
            values: ["theme": .string("light"), "size": .number(1)], announced: ["serverChange size theme"]),
        Row(name: "following into a sealed zone: what it holds replaces what was here, and what it lacks goes",
            events: [fetched([theme: .string("light"), size: .number(1)]), .rezoned(zone: "~e.sealed", carry: false, time: t),
                     fetched([theme: .string("dark")], complete: true)],
            values: ["theme": .string("dark")], announced: ["serverChange size theme", "serverChange size theme"]),
        Row(name: "following: a write not sent yet gives way to the sealed zone's value of its key, as before a first fetch",
            events: [fetched([:]), .write(theme, .string("mine"), time: t), .write(size, .number(2), time: t),
                     .rezoned(zone: "~e.sealed", carry: false, time: t), fetched([theme: .string("theirs")], complete: true)],
            values: ["theme": .string("theirs"), "size": .number(2)], announced: ["initialSyncChange theme"]),
    ]

    @Test(arguments: rows) func decides(_ row: Row) throws {
        let (state, announced) = try Self.run(row.events)
        #expect(Dictionary(uniqueKeysWithValues: state.values.map { ($0.key.name, $0.value) }) == row.values)
        #expect(announced.map { "\($0.reason.rawValue) \($0.keys.joined(separator: " "))" } == row.announced)
    }

    @Test func movingToAnotherZoneDropsTheTokenAndCarriesOnlyWhenAsked() throws {
        let (plain, _) = try Self.run([Self.fetched([Self.theme: .string("light")])])
        #expect(plain.token == Self.token && plain.zone == nil)
        let (carried, announced) = try Self.run([.rezoned(zone: "~e.sealed", carry: true, time: Self.t)], from: plain)
        #expect(announced.isEmpty && carried.token == nil && carried.zone == "~e.sealed" && carried.hasFetched)
        #expect(carried.outbox.map(\.key) == [Self.theme] && carried.pending[Self.theme]?.modified == Self.t)
        let (again, _) = try Self.run([.rezoned(zone: "~e.sealed", carry: true, time: Self.t)], from: carried)
        #expect(again.outbox.count == 1, "carried again after a restart: one write per key")
        let (followed, _) = try Self.run([.rezoned(zone: "~e.sealed", carry: false, time: Self.t)], from: plain)
        #expect(followed.outbox.isEmpty && !followed.hasFetched && followed.token == nil && followed.values == plain.values)
        let (same, _) = try Self.run([.rezoned(zone: nil, carry: false, time: Self.t)], from: plain)
        #expect(same == plain, "the zone it syncs already changes nothing")
    }

    @Test func nothingIsSentBeforeTheFirstFetch() throws {
        let (before, _) = try Self.run([.write(Self.theme, .string("dark"), time: Self.t)])
        #expect(before.outbox.isEmpty)
        let (after, _) = try Self.run([.write(Self.theme, .string("dark"), time: Self.t), Self.fetched([:])])
        #expect(after.outbox.map(\.key) == [Self.theme])
    }

    @Test func aWriteOverALimitIsRefusedAtOnceChangingNothing() throws {
        var state = KeyValueState(store: Self.store, account: "alice")
        for index in 0 ..< KeyValueLimits.maximumKeys {
            state = try state.applying(.write(KeyValueKey("k\(index)"), .bool(true), time: Self.t)).state
        }
        #expect(throws: SyncError.self) { try state.applying(.write(KeyValueKey("one more"), .bool(true), time: Self.t)) }
        #expect(try state.applying(.write(KeyValueKey("k0"), .bool(false), time: Self.t)).state.values.count == KeyValueLimits.maximumKeys)
        let huge = JSONValue.string(String(repeating: "x", count: KeyValueLimits.maximumValueBytes))
        let empty = KeyValueState(store: Self.store, account: "alice")
        do {
            _ = try empty.applying(.write(Self.theme, huge, time: Self.t))
            Issue.record("a value over 1,000,000 bytes was taken")
        } catch {
            #expect(error.code == .quotaExceeded && error.message.contains("at most 1000000 bytes"), "\(error)")
        }
        #expect(throws: SyncError.self) { try empty.applying(.write(Self.theme, .null, time: Self.t)) }
    }

    /// Two devices write, fetch and send in a random order through a server that keeps the
    /// last write of each key in order of arrival (refusing what breaks a limit); once
    /// both have sent and fetched, both see exactly the server's values, and every write
    /// the server took is there unless a later one replaced it.
    @Test func twoDevicesConvergeOnTheServersOrder() throws {
        let seed = ProcessInfo.processInfo.environment["DOCSYNC_SEED"].flatMap(UInt64.init) ?? 2026
        for round in 0 ..< 200 {
            var random = SeededRandom(seed: seed &+ UInt64(round))
            var server: [KeyValueKey: (JSONValue?, Int)] = [:]  // value (nil: a tombstone), position in the server's order
            var order = 0
            var devices = [KeyValueState(store: Self.store, account: "alice"), KeyValueState(store: Self.store, account: "alice")]
            var seen = [0, 0]  // the server order each device has fetched up to
            let keys = (0 ..< 4).map { KeyValueKey("k\($0)") }
            func fetch(_ device: Int) throws {
                let changes = server.filter { $0.value.1 > seen[device] }.mapValues(\.0)
                devices[device] = try devices[device].applying(.fetched(changes: changes, complete: false, token: Self.token)).state
                seen[device] = order
            }
            func send(_ device: Int) throws {
                var saved: [KeyValueSentWrite] = []
                for (key, write) in devices[device].outbox {
                    order += 1
                    server[key] = (write.value, order)
                    saved.append(KeyValueSentWrite(key: key, sequence: write.sequence, value: write.value))
                }
                devices[device] = try devices[device].applying(.sent(saved: saved, refused: [])).state
            }
            for _ in 0 ..< 30 {
                let device = Int(random.next() % 2)
                switch random.next() % 4 {
                case 0, 1:
                    let key = keys[Int(random.next() % 4)]
                    let value: JSONValue? = random.next() % 5 == 0 ? nil : .number(Double(random.next() % 100))
                    devices[device] = try devices[device].applying(.write(key, value, time: Self.t)).state
                case 2: try fetch(device)
                default: try send(device)
                }
            }
            for device in [0, 1, 0, 1] {
                try fetch(device)
                try send(device)
            }
            for device in [0, 1] { try fetch(device) }
            let expected = server.compactMapValues(\.0)
            #expect(devices[0].values == expected, "seed \(seed &+ UInt64(round)): device 0")
            #expect(devices[1].values == expected, "seed \(seed &+ UInt64(round)): device 1")
            #expect(devices.allSatisfy { $0.pending.isEmpty }, "seed \(seed &+ UInt64(round)): nothing left to send")
        }
    }

    @Test func keysAndStoreIDsAreValidatedAndRoundTripThroughRecordNames() throws {
        for name in ["theme", ".hidden", "..", "a/b", "caf\u{E9}", "cafe\u{301}", "100%", String(repeating: "é", count: 32)] {
            let key = try KeyValueKey(validating: name)
            #expect(RecordID.problem(with: key.recordName) == nil, "\(name) → \(key.recordName)")
            #expect(KeyValueKey(recordName: key.recordName) == key)
        }
        #expect(KeyValueKey("caf\u{E9}") != KeyValueKey("cafe\u{301}"), "keys are bytes")
        #expect(throws: SyncError.self) { try KeyValueKey(validating: String(repeating: "a", count: 65)) }
        #expect(throws: SyncError.self) { try KeyValueKey(validating: "") }
        #expect(KeyValueKey(recordName: "%2e") == nil, "one name per key")
        #expect(throws: SyncError.self) { try KeyValueStoreID(validating: "~x") }
        #expect(throws: SyncError.self) { try KeyValueStoreID(validating: ".x") }
        let id = KeyValueStoreID("org.example.editor")
        #expect(id.zone.name == "~org.example.editor" && id.zone.isKeyValueStore)
        #expect(KeyValueStoreID(zone: id.zone) == id)
        #expect(ZoneID.folderProblem(with: "~org.example.editor") != nil, "no folder id is a store's zone")
        #expect(ZoneID.folderProblem(with: "Documents") == nil)
        #expect(ZoneID.problem(with: "~") != nil && ZoneID.problem(with: "~.x") != nil && ZoneID.problem(with: "a~b") != nil)
    }

    @Test func jsonValuesHaveOneCanonicalText() throws {
        #expect(try JSONValue(parsing: " { \"b\" : [1, 2.5, true, null], \"a\": \"x\\n\" } ").text == "{\"a\":\"x\\n\",\"b\":[1,2.5,true,null]}")
        #expect(try JSONValue(parsing: "14").text == "14")
        #expect(try JSONValue(parsing: "false") == .bool(false))
        #expect(throws: SyncError.self) { try JSONValue(parsing: "dark") }
        #expect(throws: SyncError.self) { try JSONValue(parsing: "{} {}") }
    }
}
