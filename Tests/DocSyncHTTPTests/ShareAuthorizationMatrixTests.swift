import AsyncHTTPClient
import DocSyncCore
import DocSyncHTTP
import DocSyncServer
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Who may call which route of a shared zone (SPEC §11), as one table: every route of the
/// shared database and of sharing × every kind of caller → the status it answers, on both
/// stores. A caller without a part in the zone gets what a zone that does not exist gets.
@Suite struct ShareAuthorizationMatrixTests {
    /// The kinds of caller, in the order the table's columns list them.
    enum Caller: Int, CaseIterable, CustomStringConvertible {
        case owner, readWrite, readOnly, removed, invited, otherAccount, wrongToken, noToken

        var description: String {
            ["owner", "read-write participant", "read-only participant", "removed participant", "invited, not accepted",
             "another account", "a wrong token", "no token"][rawValue]
        }
    }

    /// One route as a caller reaches it, with what each kind of caller gets (in `Caller` order).
    struct Row {
        var method: HTTPMethod
        var path: String
        var body: (Caller) throws -> Data?
        var contentType = "application/json"
        var expected: [Int]
    }

    static let zone = ZoneID("Taxes 2026")
    static let share = ShareName(owner: "alice", zone: zone)

    @Test(arguments: StoreKind.allCases) func everyRouteAnswersEachCallerAsTheShareAllows(_ kind: StoreKind) async throws {
        try await RouteServer.with(kind) { server in
            let tokens = try await Self.setUp(server)
            let owner = try HTTPBackend(url: server.url, token: try #require(tokens[.owner] ?? nil))
            let document = try await TestRecords.document(Self.zone, "return.pdf", content: Data("figures".utf8), on: owner)
            let saved = try await owner.save(document)
            let digest = try #require(document.asset?.entries.first?.digest)
            let rows = try Self.rows(saved: saved, digest: digest)
            var cells = 0
            for row in rows {
                for caller in Caller.allCases {
                    let status = try await Self.status(of: row, for: caller, token: tokens[caller] ?? nil, server: server)
                    #expect(status == row.expected[caller.rawValue], "\(row.method) \(row.path) for \(caller)")
                    cells += 1
                }
            }
            #expect(cells == rows.count * Caller.allCases.count)
            #expect(cells >= 160, "the table covers every route: \(rows.count) routes")
        }
    }

    /// alice owns the zone; bob reads and writes, carol only reads, dave was removed, erin
    /// is invited and has not answered, frank has no part in it.
    static func setUp(_ server: RouteServer) async throws -> [Caller: String?] {
        var tokens: [Caller: String?] = [.wrongToken: String(repeating: "x", count: 43), .noToken: nil]
        for (caller, name) in [(Caller.owner, "alice"), (.readWrite, "bob"), (.readOnly, "carol"), (.removed, "dave"),
                               (.invited, "erin"), (.otherAccount, "frank")] {
            tokens[caller] = try await server.addUser(name)
        }
        let alice = try HTTPBackend(url: server.url, token: tokens[.owner]!!)
        try await alice.createZone(zone)
        _ = try await alice.changeShare(of: zone, .init(action: .invite, participants: ["bob", "dave", "erin"]))
        _ = try await alice.changeShare(of: zone, .init(action: .invite, participants: ["carol"], permission: .readOnly))
        for caller in [Caller.readWrite, .readOnly, .removed] {
            _ = try await HTTPBackend(url: server.url, token: tokens[caller]!!).answerShare(share, .accept)
        }
        _ = try await alice.changeShare(of: zone, .init(action: .remove, participants: ["dave"]))
        return tokens
    }

    static func rows(saved: Record, digest: SHA256Digest) throws -> [Row] {
        let shared = { (path: String) in WireRoute.shared(by: share.owner, path) }
        let ok = 200, noContent = 204, denied = 403, hidden = 404, unauthenticated = 401
        // owner, read-write, read-only, removed, invited, another account, wrong token, no token
        let everyone = [ok, ok, ok, ok, ok, ok, unauthenticated, unauthenticated]
        let readers = [ok, ok, ok, hidden, hidden, hidden, unauthenticated, unauthenticated]
        let writers = [ok, ok, denied, hidden, hidden, hidden, unauthenticated, unauthenticated]
        let ownerOnly = [ok, denied, denied, hidden, hidden, hidden, unauthenticated, unauthenticated]
        func noContentFor(_ codes: [Int]) -> [Int] { codes.map { $0 == ok ? noContent : $0 } }
        let names = WireBody.RecordNames(recordNames: [saved.id.recordName])
        let digests = WireBody.Digests(digests: [digest])
        let chunk = Data("figures".utf8)
        return [
            Row(method: .GET, path: shared(WireRoute.zones), body: { _ in nil }, expected: everyone),
            Row(method: .PUT, path: shared(WireRoute.zone(zone)), body: { _ in nil }, expected: noContentFor(ownerOnly)),
            Row(method: .POST, path: shared(WireRoute.modify(zone)), body: { caller in
                try WireCoding.encoder.encode(RecordBatch(zone: zone, saves: [TestRecords.folder(zone, "made by \(caller)")]))
            }, expected: writers),
            Row(method: .GET, path: shared(WireRoute.changes(zone)), body: { _ in nil }, expected: readers),
            Row(method: .POST, path: shared(WireRoute.lookup(zone)), body: { _ in try WireCoding.encoder.encode(names) }, expected: readers),
            Row(method: .GET, path: shared(WireRoute.deleted(zone)), body: { _ in nil }, expected: readers),
            Row(method: .POST, path: shared(WireRoute.recover(zone)), body: { _ in
                try WireCoding.encoder.encode(WireBody.Recoveries(recoveries: [WireBody.Recovery(DeletedRecordRecovery(id: saved.id, device: "desk"))]))
            }, expected: writers),
            Row(method: .POST, path: shared(WireRoute.purge(zone)), body: { _ in
                try WireCoding.encoder.encode(WireBody.Purge(all: false, recordNames: [saved.id.recordName]))
            }, expected: ownerOnly),
            // Only the owner moves the zone; the owner's move names a target that does not exist.
            Row(method: .POST, path: shared(WireRoute.move(zone)), body: { _ in
                try WireCoding.encoder.encode(WireBody.ZoneMove(target: ZoneID("Nowhere")))
            }, expected: [hidden, denied, denied, hidden, hidden, hidden, unauthenticated, unauthenticated]),
            Row(method: .POST, path: shared(WireRoute.missingChunks), body: { _ in try WireCoding.encoder.encode(digests) }, expected: readers),
            Row(method: .PUT, path: shared(WireRoute.chunk(digest)), body: { _ in chunk }, contentType: WireRoute.octetStream,
                expected: noContentFor(writers)),
            Row(method: .GET, path: shared(WireRoute.chunk(digest)), body: { _ in nil }, expected: readers),
            Row(method: .POST, path: shared(WireRoute.uploadBatch), body: { _ in
                Data(ChunkFraming.encode([ChunkUpload(digest: digest, bytes: chunk)], pool: .shared).readableBytesView)
            }, contentType: WireRoute.octetStream, expected: noContentFor(writers)),
            Row(method: .POST, path: shared(WireRoute.downloadBatch), body: { _ in try WireCoding.encoder.encode(digests) }, expected: readers),
            Row(method: .GET, path: shared(WireRoute.notifications), body: { _ in nil }, expected: everyone),
            // Sharing itself: the owner's routes are on its own zones, a participant's on its own list.
            Row(method: .GET, path: WireRoute.share(zone), body: { _ in nil },
                expected: [ok, hidden, hidden, hidden, hidden, hidden, unauthenticated, unauthenticated]),
            Row(method: .POST, path: WireRoute.share(zone), body: { _ in
                try WireCoding.encoder.encode(WireBody.ShareChange(action: .permission, participants: ["bob"], permission: .readWrite))
            }, expected: [ok, hidden, hidden, hidden, hidden, hidden, unauthenticated, unauthenticated]),
            Row(method: .GET, path: WireRoute.shares, body: { _ in nil }, expected: everyone),
            Row(method: .POST, path: WireRoute.answer(share, .decline), body: { _ in nil },
                expected: [hidden, 400, 400, hidden, ok, hidden, unauthenticated, unauthenticated]),
            Row(method: .POST, path: WireRoute.answer(share, .accept), body: { _ in nil },
                expected: [hidden, ok, ok, hidden, hidden, hidden, unauthenticated, unauthenticated]),
            Row(method: .POST, path: WireRoute.answer(share, .leave), body: { _ in nil },
                expected: [hidden, ok, ok, hidden, hidden, hidden, unauthenticated, unauthenticated]),
            // Last: the zone goes (only the owner may), after everyone else was refused.
            Row(method: .DELETE, path: shared(WireRoute.zone(zone)), body: { _ in nil },
                expected: [noContent, hidden, hidden, hidden, hidden, hidden, unauthenticated, unauthenticated]),
        ]
    }

    /// The status `row` answers `caller`. A notification stream is left once its status is in.
    static func status(of row: Row, for caller: Caller, token: String?, server: RouteServer) async throws -> Int {
        guard row.path.hasSuffix("/notifications") else {
            return try await RawHTTP.send(row.method, server.url, row.path, token: token, body: try row.body(caller),
                                          contentType: row.contentType).status
        }
        var request = HTTPClientRequest(url: server.url.absoluteString + row.path)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Int(response.status.code)
    }
}
