import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// What docsync-server refuses, on each store (`RouteServer`: its routes in this process),
/// checked with requests sent by hand (`RawHTTP`) as well as through `HTTPBackend`.
@Suite struct ServerSecurityTests {
    let zone = ZoneID("Documents")

    @Test(arguments: StoreKind.allCases) func missingOrWrongTokenIsNotAuthenticated(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            for presented: String? in [nil, "wrong", String(token.dropLast()) + "x"] {
                let answer = try await RawHTTP.send(.GET, server.url, WireRoute.zones, token: presented)
                #expect(answer.status == 401)
                #expect(answer.error?.code == .notAuthenticated)
                #expect(answer.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            let basic = try await RawHTTP.send(.GET, server.url, WireRoute.zones, token: nil, headers: [("Authorization", "Basic YTpi")])
            #expect(basic.status == 401)
            let stranger = try HTTPBackend(url: server.url, token: "not-a-token")
            await expectSyncError(.notAuthenticated) { try await stranger.listZones() }
            await expectSyncError(.notAuthenticated) { try await stranger.uploadChunk(SHA256Digest(hashing: Data("x".utf8)), bytes: Data("x".utf8)) }
            let good = try HTTPBackend(url: server.url, token: token)
            #expect(try await good.listZones().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func unknownRoutesAnswerWithAnErrorBody(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            for (method, path) in [("GET", "/v1/nope"), ("GET", "/"), ("PUT", WireRoute.zones + "/a/b/c")] {
                let answer = try await RawHTTP.send(.init(rawValue: method), server.url, path, token: token)
                #expect(answer.status == 404, "\(method) \(path)")
                #expect(answer.error?.code == .invalidArguments, "\(method) \(path)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aMethodARouteDoesNotHaveIs405WithAllow(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let digest = SHA256Digest(hashing: Data("x".utf8))
            let cases: [(method: String, path: String, allow: String)] = [
                ("PATCH", WireRoute.zone(zone), "DELETE, PUT"),
                ("TRACE", WireRoute.usage, "GET"),
                ("POST", WireRoute.zones, "GET"),
                ("HEAD", WireRoute.notifications, "GET"),
                // A literal segment wins over a parameter, as in the router: not `chunks/{digest}`.
                ("GET", WireRoute.missingChunks, "POST"),
                ("DELETE", WireRoute.chunk(digest), "GET, PUT"),
                ("DELETE", WireRoute.shared(by: "bob", WireRoute.zones), "GET"),
                ("GET", WireRoute.answer(ShareName(owner: "bob", zone: zone), .accept), "POST"),
                ("POST", "/healthz", "GET"),
            ]
            for (method, path, allow) in cases {
                for presented: String? in [token, nil] {
                    let answer = try await RawHTTP.send(.init(rawValue: method), server.url, path, token: presented)
                    #expect(answer.status == 405, "\(method) \(path)")
                    #expect(answer.headers.first(name: "Allow") == allow, "\(method) \(path)")
                    if method != "HEAD" { #expect(answer.error?.code == .invalidArguments, "\(method) \(path)") }
                }
            }
            // The routes themselves still answer their own methods.
            #expect(try await RawHTTP.send(.GET, server.url, WireRoute.chunk(digest), token: token).error?.code == .chunkNotFound)
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.missingChunks, token: token,
                                           body: try RawHTTP.json(WireBody.Digests(digests: [digest]))).status == 200)
        }
    }

    @Test(arguments: StoreKind.allCases) func anOwnerThatCannotBeAnAccountIsInvalid(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            for owner in ["Bob", "bob smith", String(repeating: "b", count: 65), ".bob"] {
                let answer = try await RawHTTP.send(.GET, server.url, WireRoute.shared(by: owner, WireRoute.zones), token: token)
                #expect(answer.status == 400, "\(owner)")
                #expect(answer.error?.code == .invalidArguments, "\(owner)")
            }
            // A name no account has is a share that does not exist, as before: nothing is said of accounts.
            let nobody = try await RawHTTP.send(.GET, server.url, WireRoute.shared(by: "nobody", WireRoute.changes(zone)), token: token)
            #expect(nobody.status == 404)
            #expect(nobody.error?.code == .zoneNotFound)
        }
    }

    @Test(arguments: StoreKind.allCases) func oneUserCannotReachAnotherUsersZonesOrChunks(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let alice = try HTTPBackend(url: server.url, token: try await server.addUser("alice"))
            let bob = try HTTPBackend(url: server.url, token: try await server.addUser("bob"))

            try await alice.createZone(zone)
            let content = Data("alice's secret".utf8)
            let document = try await TestRecords.document(zone, "secret.txt", content: content, on: alice)
            let saved = try await alice.save(document)
            let digest = try #require(document.asset?.entries.first?.digest)

            #expect(try await bob.listZones().isEmpty)
            await expectSyncError(.zoneNotFound) { try await bob.fetchChanges(in: zone, since: nil, limit: 10) }
            await expectSyncError(.zoneNotFound) { try await bob.fetchRecords([saved.id]) }
            await expectSyncError(.chunkNotFound) { try await bob.downloadChunk(digest) }
            await expectSyncError(.chunkNotFound) { try await bob.downloadChunks([digest]) }
            #expect(try await bob.missingChunks([digest]) == [digest])
            #expect(try await bob.usage().chunkCount == 0)
            await expectSyncError(.zoneNotFound) { try await bob.deleteZone(zone) }

            // Bob's zone of the same name is his own; writing it leaves Alice's alone.
            try await bob.createZone(zone)
            var overwrite = saved
            overwrite.changeTag = nil
            overwrite.path = RelativePath("overwritten.txt")
            let result = try await bob.modifyRecords(RecordBatch(zone: zone, saves: [overwrite]))
            #expect(result.failed[overwrite.id]?.code == .chunkNotFound, "Alice's chunks are not Bob's")
            #expect(try await alice.fetchRecords([saved.id])[saved.id]?.path == RelativePath("secret.txt"))
            #expect(try await alice.downloadChunk(digest).count > 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func craftedPathsAndNamesAreInvalidArguments(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let alice = try HTTPBackend(url: server.url, token: token)
            try await alice.createZone(zone)
            let batch = RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "fine")])
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token, body: try RawHTTP.json(batch)).status == 200)

            for path in ["../x", "/etc/passwd", "a/\u{0}b", "a/../../b", "", "a//b"] {
                let body = try RawHTTP.json(batch) { object in
                    var saves = object["saves"] as! [[String: Any]]
                    saves[0]["path"] = path
                    object["saves"] = saves
                }
                let answer = try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token, body: body)
                #expect(answer.status == 400, "path \(path.debugDescription)")
                #expect(answer.error?.code == .invalidArguments, "path \(path.debugDescription): \(answer.error?.description ?? "no error body")")
            }
            let badName = try RawHTTP.json(batch) { object in
                var saves = object["saves"] as! [[String: Any]]
                saves[0]["id"] = ["zone": "Documents", "recordName": "../../etc"]
                object["saves"] = saves
            }
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token, body: badName).error?.code == .invalidArguments)
            let otherZone = try RawHTTP.json(batch) { $0["zone"] = "Elsewhere" }
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token, body: otherZone).error?.code == .invalidArguments)
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token, body: Data("{not json".utf8)).status == 400)

            for segment in ["..%2Fx", "%2Fetc", "a%00b", ".hidden", "%ZZ"] {
                let answer = try await RawHTTP.send(.PUT, server.url, "/v1/zones/\(segment)", token: token)
                #expect(answer.status == 400 && answer.error?.code == .invalidArguments, "zone segment \(segment)")
            }
            let lookup = try await RawHTTP.send(.POST, server.url, WireRoute.lookup(zone), token: token,
                                                body: try RawHTTP.json(WireBody.RecordNames(recordNames: ["a/b"])))
            #expect(lookup.error?.code == .invalidArguments)
            for digest in ["abc", String(repeating: "A", count: 64), String(repeating: "g", count: 64), String(repeating: "0", count: 65)] {
                let answer = try await RawHTTP.send(.GET, server.url, "/v1/chunks/\(digest)", token: token)
                #expect(answer.status == 400 && answer.error?.code == .invalidArguments, "digest \(digest)")
            }
            let badToken = try await RawHTTP.send(.GET, server.url, WireRoute.changes(zone) + "?since=%2B%2B", token: token)
            #expect(badToken.error?.code == .invalidArguments)
            #expect(try await alice.fetchAllChanges(in: zone, since: nil).changed.count == 1, "nothing crafted was stored")
        }
    }

    @Test(arguments: StoreKind.allCases) func chunksWhoseBytesDoNotMatchTheirDigestAreRefused(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let alice = try HTTPBackend(url: server.url, token: token)
            let bytes = Data("real bytes".utf8)
            let claimed = SHA256Digest(hashing: Data("other bytes".utf8))
            let single = try await RawHTTP.send(.PUT, server.url, WireRoute.chunk(claimed), token: token, body: bytes, contentType: "application/octet-stream")
            #expect(single.status == 422)
            #expect(single.error?.code == .chunkDigestMismatch && single.error?.digest == claimed)

            let good = ChunkUpload(digest: SHA256Digest(hashing: Data("good".utf8)), bytes: Data("good".utf8))
            let framed = ChunkFraming.encodedData([good, ChunkUpload(digest: claimed, bytes: bytes)])
            let batch = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: framed, contentType: "application/octet-stream")
            #expect(batch.error?.code == .chunkDigestMismatch)
            #expect(try await alice.missingChunks([good.digest, claimed]) == [good.digest, claimed], "a bad batch stores nothing")
            let truncated = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: framed.dropLast(), contentType: "application/octet-stream")
            #expect(truncated.error?.code == .invalidArguments)
            await expectSyncError(.chunkDigestMismatch) { try await alice.uploadChunks([good, ChunkUpload(digest: claimed, bytes: bytes)]) }

            // The server stores a streamed batch a group of about 1 MB at a time: a bad chunk
            // after several megabytes of good ones still leaves the whole batch unstored.
            var random = SeededRandom(seed: 8)
            let many = (0 ..< 40).map { _ in Data(random.bytes(100_000)) }.map { ChunkUpload(digest: SHA256Digest(hashing: $0), bytes: $0) }
            let long = ChunkFraming.encodedData(many + [ChunkUpload(digest: claimed, bytes: bytes)])
            let late = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: long, contentType: "application/octet-stream")
            #expect(late.error?.code == .chunkDigestMismatch)
            #expect(try await alice.missingChunks(many.map(\.digest)).count == many.count, "nothing of a batch refused late is stored")
            let accepted = try await RawHTTP.send(.POST, server.url, WireRoute.uploadBatch, token: token, body: ChunkFraming.encodedData(many),
                                                  contentType: "application/octet-stream")
            #expect(accepted.status == 204)
            #expect(try await alice.missingChunks(many.map(\.digest)).isEmpty)
            #expect(try await alice.downloadChunk(many[39].digest) == many[39].bytes)
        }
    }

    @Test(arguments: StoreKind.allCases) func overLargeRequestsAreLimitExceeded(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let token = try await server.addUser("alice")
            let alice = try HTTPBackend(url: server.url, token: token)
            try await alice.createZone(zone)
            let records = (0 ... RecordBatch.maximumItems).map { TestRecords.folder(zone, "f\($0)") }
            let tooMany = try await RawHTTP.send(.POST, server.url, WireRoute.modify(zone), token: token,
                                                 body: try RawHTTP.json(RecordBatch(zone: zone, saves: records)))
            #expect(tooMany.status == 413 && tooMany.error?.code == .limitExceeded)
            await expectSyncError(.limitExceeded) { try await alice.modifyRecords(RecordBatch(zone: zone, saves: records)) }

            let oversized = Data(repeating: UInt8(ascii: " "), count: WireLimits.lookupBody + 1)
            let capped = try await RawHTTP.send(.POST, server.url, WireRoute.lookup(zone), token: token, body: oversized)
            #expect(capped.status == 413 && capped.error?.code == .limitExceeded)
            let names = WireBody.RecordNames(recordNames: (0 ... WireLimits.recordNamesPerLookup).map { "r\($0)" })
            #expect(try await RawHTTP.send(.POST, server.url, WireRoute.lookup(zone), token: token, body: try RawHTTP.json(names)).error?.code == .limitExceeded)
            let bigChunk = Data(count: StorageLimits.maximumChunkSize + 1)
            let chunk = try await RawHTTP.send(.PUT, server.url, WireRoute.chunk(SHA256Digest(hashing: bigChunk)), token: token, body: bigChunk,
                                               contentType: "application/octet-stream")
            #expect(chunk.status == 413 && chunk.error?.code == .limitExceeded)
            #expect(try await alice.listZones() == [zone], "the server still answers after refusing large bodies")
        }
    }
}
