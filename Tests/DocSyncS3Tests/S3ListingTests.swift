import DocSyncS3
import Foundation
import NIOCore
import Testing

@Suite struct S3ListingTests {
    @Test func pagesWithContinuation() async throws {
        try await S3TestStore.withBucket { client in
            let before = Date().addingTimeInterval(-120)
            let keys = (0..<25).map { String(format: "list/%02d", $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, key) in keys.enumerated() {
                    group.addTask { try await client.putObject(key, S3TestStore.bytes(index, seed: UInt64(index))) }
                }
                try await group.waitForAll()
            }
            try await client.putObject("other/x", ByteBuffer(string: "not listed"))

            var pages: [S3ObjectPage] = []
            var token: String?
            repeat {
                let page = try await client.listObjects(prefix: "list/", continuationToken: token, maxKeys: 10)
                pages.append(page)
                token = page.nextContinuationToken
            } while token != nil && pages.count < 10
            #expect(pages.map(\.objects.count) == [10, 10, 5])
            let objects = pages.flatMap(\.objects)
            #expect(objects.map(\.key) == keys)
            #expect(objects.map(\.size) == (0..<25).map { Int64($0) })
            #expect(objects.allSatisfy { $0.lastModified > before && $0.lastModified < Date().addingTimeInterval(120) })

            #expect(try await client.listAllObjects(prefix: "list/").map(\.key) == keys)
            #expect(try await client.listAllObjects().count == 26)
            #expect(try await client.listObjects(prefix: "nothing/").objects.isEmpty)
        }
    }

    @Test func multiObjectDelete() async throws {
        try await S3TestStore.withBucket { client in
            let keys = (0..<30).map { "del/\($0) & <x>" }
            for key in keys { try await client.putObject(key, ByteBuffer(string: key)) }
            try await client.putObject("kept", ByteBuffer(string: "k"))
            // Half of them, plus keys that do not exist.
            try await client.deleteObjects(Array(keys.prefix(15)) + ["del/absent-1", "del/absent-2"])
            #expect(try await client.listAllObjects(prefix: "del/").map(\.key).sorted() == keys.suffix(15).sorted())
            try await client.deleteObjects(Array(keys.suffix(15)))
            #expect(try await client.listAllObjects().map(\.key) == ["kept"])
            try await client.deleteObjects([])
        }
    }

    @Test func multiObjectDeleteSplitsLongLists() async throws {
        // Eleven requests of at most 100 keys (S3 allows 1000 in one, which the test store,
        // one Swift proxy process, takes 8 s to 44 s to answer), each within the timeout the
        // collector's deletes run under (S3Configuration's default 60 s, not the test buckets' 30 s).
        #expect(S3Client.keysPerDeleteRequest < S3Client.maximumKeysPerDelete)
        try await S3TestStore.withBucket({ $0.requestTimeout = .seconds(60) }) { client in
            let keys = (0..<1005).map { String(format: "many/%04d", $0) }
            // Only some exist; the others are absent, which is success.
            for key in keys.prefix(3) + keys.suffix(3) { try await client.putObject(key, ByteBuffer(string: "x")) }
            try await client.deleteObjects(keys)
            #expect(try await client.listAllObjects().isEmpty)
        }
    }
}
