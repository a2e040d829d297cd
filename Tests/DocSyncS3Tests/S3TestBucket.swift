import DocSyncS3
import DocSyncTestSupport
import Foundation
import Logging
import NIOCore

/// Buckets of the real store `make test` starts (`TestServices.s3()`), one fresh bucket per test.
enum S3TestStore {
    /// A test's own failure to set itself up.
    struct SetupFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func settings() throws -> (endpoint: String, region: String, accessKey: String, secretKey: String) {
        try TestServices.s3()
    }

    /// A configuration for a new bucket with a random name (`docsync-test-` and 16 lower-case
    /// letters and digits), with `change` applied.
    static func configuration(bucket: String? = nil, _ change: (inout S3Configuration) -> Void = { _ in }) throws -> S3Configuration {
        let store = try settings()
        let name = bucket ?? "docsync-test-" + String((0..<16).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
        guard let endpoint = URL(string: store.endpoint) else {
            throw SetupFailure(description: "DOCSYNC_TEST_S3_ENDPOINT (\(store.endpoint)) is not a URL")
        }
        var configuration = try S3Configuration(endpoint: endpoint, region: store.region, bucket: name, accessKey: store.accessKey, secretKey: store.secretKey)
        configuration.requestTimeout = .seconds(30)
        change(&configuration)
        return configuration
    }

    static let logger = Logger(label: "docsync.s3.test")

    /// Runs `body` with a client of a fresh bucket, then deletes the bucket and everything in it.
    static func withBucket<T>(_ change: (inout S3Configuration) -> Void = { _ in }, _ body: (S3Client) async throws -> T) async throws -> T {
        let client = S3Client(configuration: try configuration(change), logger: logger)
        try await client.createBucket()
        let result: T
        do {
            result = try await body(client)
        } catch {
            try? await removeBucket(client)
            throw error
        }
        try await removeBucket(client)
        return result
    }

    static func removeBucket(_ client: S3Client) async throws {
        let keys = try await client.listAllObjects().map(\.key)
        try await client.deleteObjects(keys)
        try await client.deleteBucket()
    }

    /// `count` bytes that differ from one call to the next (`seed`) and from one offset to
    /// the next.
    static func bytes(_ count: Int, seed: UInt64 = 1) -> ByteBuffer {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var buffer = ByteBuffer()
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            var offset = 0
            while offset < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                var word = state.littleEndian
                let take = min(8, count - offset)
                withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
                offset += take
            }
            return count
        }
        return buffer
    }
}
