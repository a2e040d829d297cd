@testable import DocSyncS3
import Foundation
import NIOCore
import Testing

/// `S3Client` reuses its connections: many small requests to the store, one after another
/// or several at once, take one connection or a pool's worth (`S3HTTPClient`), not one each. Counted through a
/// forwarder of the test's own (`ConnectionCountingProxy`), so what other clients of the
/// store do meanwhile does not count.
@Suite(.serialized) struct S3ConnectionReuseTests {
    /// A client whose requests go through a new counting proxy to the test store, on a fresh
    /// bucket; the bucket is removed and the proxy stopped after `body`.
    static func throughProxy(_ body: (S3Client, ConnectionCountingProxy) async throws -> Void) async throws {
        let direct = try S3TestStore.configuration()
        let proxy = try await ConnectionCountingProxy.start(forwardingTo: direct.endpoint.host ?? "127.0.0.1", port: direct.endpoint.port ?? 80)
        do {
            let proxied = try S3Configuration(endpoint: URL(string: "http://127.0.0.1:\(proxy.port)")!, region: direct.region, bucket: direct.bucket,
                                              accessKey: direct.accessKey, secretKey: direct.secretKey)
            let client = S3Client(configuration: proxied, logger: S3TestStore.logger)
            try await client.createBucket()
            do {
                try await body(client, proxy)
            } catch {
                try? await S3TestStore.removeBucket(client)
                throw error
            }
            try await S3TestStore.removeBucket(client)
        } catch {
            await proxy.stop()
            throw error
        }
        await proxy.stop()
    }

    /// One round of the small requests the scale-out store makes: a PUT, a GET, a ranged GET,
    /// a HEAD of an object and of a missing one, a GET that fails (`noSuchKey`), a listing,
    /// and a DELETE of one object and of two at once. Returns how many requests it made.
    static func round(_ client: S3Client, _ index: Int) async throws -> Int {
        let key = "small/\(index)/object"
        try await client.putObject(key, ByteBuffer(string: "object \(index)"))
        #expect(try await client.getObject(key) == ByteBuffer(string: "object \(index)"))
        #expect(try await client.getObject(key, range: 0 ..< 6) == ByteBuffer(string: "object"))
        #expect(try await client.headObject(key) != nil)
        #expect(try await client.headObject("missing/\(index)") == nil)
        do {
            _ = try await client.getObject("missing/\(index)")
            Issue.record("a missing object was read")
        } catch {
            #expect(error.code == .noSuchKey)
        }
        _ = try await client.listObjects(prefix: "small/\(index)/")  // the store's listings may lag: only the request counts
        try await client.deleteObject(key)
        try await client.deleteObjects([key, "missing/\(index)"])
        return 9
    }

    @Test func sequentialRequestsShareOneConnection() async throws {
        try await Self.throughProxy { client, proxy in
            var requests = 0
            var index = 0
            while requests < 200 {
                requests += try await Self.round(client, index)
                index += 1
            }
            let opened = proxy.connections  // the bucket's creation's included
            print("S3 connections: \(opened) for \(requests) sequential requests")
            #expect(opened <= 2, "\(opened) connections for \(requests) requests one after another")
        }
    }

    @Test func concurrentRequestsStayWithinThePool() async throws {
        try await Self.throughProxy { client, proxy in
            let tasks = 24
            let requests = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0 ..< tasks {
                    group.addTask {
                        var sent = 0
                        for round in 0 ..< 2 { sent += try await Self.round(client, task * 100 + round) }
                        return sent
                    }
                }
                return try await group.reduce(0, +)
            }
            let opened = proxy.connections
            print("S3 connections: \(opened) for \(requests) requests, \(tasks) at a time")
            #expect(opened <= S3HTTPClient.connectionsPerHost, "\(opened) connections for \(requests) requests, \(tasks) at a time")
        }
    }
}
