import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Recently Deleted and garbage collection on docsync-server, beyond the conformance suite:
/// the token's device and per-item validation on each store (`RouteServer`), `docsync-server
/// gc` and the server's schedule on a real process.
@Suite struct ServerRecentlyDeletedTests {
    let zone = ZoneID("Documents")

    @Test(arguments: StoreKind.allCases) func aDeletionWithoutADeviceNamesTheTokensDevice(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let laptopToken = try await server.addUser("alice", device: "laptop")
            let unnamedToken = try await server.store.addToken(for: "alice", device: nil)
            let laptop = try HTTPBackend(url: server.url, token: laptopToken)
            let unnamed = try HTTPBackend(url: server.url, token: unnamedToken)
            try await laptop.createZone(zone)
            let a = try await laptop.save(TestRecords.folder(zone, "a")), b = try await laptop.save(TestRecords.folder(zone, "b"))
            let c = try await laptop.save(TestRecords.folder(zone, "c"))
            _ = try await laptop.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: a.id), RecordDeletion(id: b.id, device: "named")]))
            _ = try await unnamed.modifyRecords(RecordBatch(zone: zone, deletions: [RecordDeletion(id: c.id)]))
            let listed = Dictionary(uniqueKeysWithValues: try await unnamed.listDeleted(in: zone, since: nil).map { ($0.record.id, $0.deletedBy) })
            #expect(listed == [a.id: "laptop", b.id: "named", c.id: ""])
            await laptop.shutdown()
            await unnamed.shutdown()
        }
    }

    @Test(arguments: StoreKind.allCases) func eachRecoveryIsCheckedOnItsOwnAndBadRequestsAreRefused(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let alice = try HTTPBackend(url: server.url, token: token)
            try await alice.createZone(zone)
            let records = try await [TestRecords.folder(zone, "a"), TestRecords.folder(zone, "b"), TestRecords.folder(zone, "c")].asyncMap { try await alice.save($0) }
            _ = try await alice.modifyRecords(RecordBatch(zone: zone, deletions: records.map { RecordDeletion(id: $0.id) }))
            let body = try WireCoding.encode(WireBody.Recoveries(recoveries: [
                WireBody.Recovery(device: "d", id: records[0].id, path: "../escape"),
                WireBody.Recovery(device: "two\nlines", id: records[1].id, path: nil),
                WireBody.Recovery(device: "d", id: records[2].id, path: "c (recovered)"),
            ]))
            let answer = try await RawHTTP.send(.POST, server.url, WireRoute.recover(zone), token: token, body: body)
            #expect(answer.status == 200)
            let result = try WireCoding.decode(WireBody.RecoverAnswer.self, from: answer.body)
            #expect(result.saved.map(\.path) == [RelativePath("c (recovered)")])
            #expect(Set(result.failed.map(\.id)) == [records[0].id, records[1].id])
            #expect(result.failed.allSatisfy { $0.error.code == .invalidArguments })

            func status(_ path: String, _ body: Data?) async throws -> Int {
                try await RawHTTP.send(body == nil ? .GET : .POST, server.url, path, token: token, body: body).status
            }
            #expect(try await status(WireRoute.deleted(zone) + "?since=yesterday", nil) == 400)
            #expect(try await status(WireRoute.purge(zone), Data(#"{"all":true,"recordNames":["x"]}"#.utf8)) == 400)
            #expect(try await status(WireRoute.purge(zone), Data(#"{"all":false,"recordNames":["a/b"]}"#.utf8)) == 400)
            let tooMany = try WireCoding.encode(WireBody.Purge(all: false, recordNames: (0 ... WireLimits.recordNamesPerPurge).map { "r\($0)" }))
            #expect(try await status(WireRoute.purge(zone), tooMany) == 413)
            #expect(try await status(WireRoute.deleted(ZoneID("Ghost")), nil) == 404)
            await alice.shutdown()
        }
    }

    @Test func theGCCommandCollectsWhileTheServerRuns() async throws {
        let server = try await TestServer(["--gc-interval", "0"])
        let token = try await server.process.addUser("alice")
        _ = try await server.process.addUser("bob")
        let alice = try HTTPBackend(url: server.url, token: token)
        let orphan = Data(repeating: 42, count: 5_000)
        try await alice.uploadChunk(SHA256Digest(hashing: orphan), bytes: orphan)
        // Within the default grace period (a day) nothing goes; with none, the orphan does.
        let kept = try await server.process.collectGarbage(user: "alice")
        #expect(kept.hasPrefix("alice: removed 0 chunks"), "\(kept)")
        let output = try await server.process.collectGarbage(extraArguments: ["--gc-grace", "0"])
        let lines = output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("alice: removed 1 chunks (5 kB)") && lines[1] == "bob: nothing stored yet", "\(output)")
        #expect(try await alice.missingChunks([SHA256Digest(hashing: orphan)]).count == 1)
        let unknown = try await runProcess(builtProduct("docsync-server"), ["gc", "--user", "carol", "--data", server.process.dataDirectory.path])
        #expect(unknown.status == 2 && unknown.errors.contains("no user"))
        await alice.shutdown()
    }

    @Test func theServerCollectsOnItsSchedule() async throws {
        let server = try await TestServer(["--gc-interval", "1s", "--gc-grace", "0"])
        let token = try await server.process.addUser("alice")
        let alice = try HTTPBackend(url: server.url, token: token)
        let orphan = Data(repeating: 7, count: 3_000)
        try await alice.uploadChunk(SHA256Digest(hashing: orphan), bytes: orphan)
        let collected = try await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            try await alice.missingChunks([SHA256Digest(hashing: orphan)]).count == 1
        }
        #expect(collected, "the server collected the unreferenced chunk on its own")
        #expect(server.process.log.contains("collected"))
        await alice.shutdown()
    }
}
