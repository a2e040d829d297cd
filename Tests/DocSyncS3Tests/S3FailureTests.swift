@testable import DocSyncS3
import Crypto
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct S3FailureTests {
    @Test func contentMD5MismatchIsRefusedAndNothingIsStored() async throws {
        try await S3TestStore.withBucket { client in
            let other = Data(Insecure.MD5.hash(data: Array("something else".utf8))).base64EncodedString()
            var request = S3Request(method: .PUT, key: "damaged")
            request.body = ByteBuffer(string: "the body sent")
            request.contentMD5 = .given(other)
            let response = try await client.send(request)
            #expect(response.status == 400)
            let error = S3Error.answer(status: response.status, body: response.body, request: "PUT")
            #expect(error.code == .badRequest)
            #expect(error.storeCode == "BadDigest")

            request.contentMD5 = .given("not base64 of 16 bytes")
            let invalid = try await client.send(request)
            #expect(invalid.status == 400)
            #expect(S3Error.answer(status: invalid.status, body: invalid.body, request: "PUT").storeCode == "InvalidDigest")

            #expect(try await client.headObject("damaged") == nil)
        }
    }

    @Test func wrongSecretIsAccessDenied() async throws {
        try await S3TestStore.withBucket { client in
            var configuration = try S3TestStore.configuration(bucket: client.configuration.bucket)
            configuration = try S3Configuration(
                endpoint: configuration.endpoint, region: configuration.region, bucket: configuration.bucket,
                accessKey: configuration.accessKey, secretKey: configuration.secretKey + "-wrong"
            )
            let wrong = S3Client(configuration: configuration, logger: S3TestStore.logger)
            let error = await #expect(throws: S3Error.self) { try await wrong.putObject("k", ByteBuffer(string: "x")) }
            #expect(error?.code == .accessDenied)
            #expect(error?.status == 403)
            let get = await #expect(throws: S3Error.self) { try await wrong.getObject("k") }
            #expect(get?.code == .accessDenied)
            #expect(try await client.headObject("k") == nil)
        }
    }

    @Test func unknownAccessKeyIsAccessDenied() async throws {
        let store = try S3TestStore.settings()
        let configuration = try S3Configuration(
            endpoint: URL(string: store.endpoint)!, region: store.region, bucket: "docsync-no-such-user",
            accessKey: "nobody:nobody", secretKey: "x"
        )
        let error = await #expect(throws: S3Error.self) { try await S3Client(configuration: configuration).listObjects() }
        #expect(error?.code == .accessDenied)
    }

    @Test func unreachableEndpointIsANetworkFailureQuickly() async throws {
        var configuration = try S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:1")!, region: "us-east-1", bucket: "unreachable",
            accessKey: "a", secretKey: "s"
        )
        // The HTTP client tries to connect again until the request's deadline: the failure
        // comes at requestTimeout, not at the default minute (the bound leaves room for a
        // loaded machine running other tests at once: a full run here took 20 s once).
        configuration.requestTimeout = .seconds(1)
        let client = S3Client(configuration: configuration, logger: S3TestStore.logger)
        let started = ContinuousClock.now
        let error = await #expect(throws: S3Error.self) { try await client.getObject("k") }
        #expect(error?.code == .networkFailure)
        #expect(error?.isTransient == true)
        #expect(error?.message.contains("127.0.0.1:1") == true)
        #expect(ContinuousClock.now - started < .seconds(40))
    }

    @Test func timeoutIsANetworkFailure() async throws {
        // A listener that accepts and never answers.
        let server = try SilentServer()
        var configuration = try S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:\(server.port)")!, region: "us-east-1", bucket: "silent",
            accessKey: "a", secretKey: "s"
        )
        configuration.requestTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let error = await #expect(throws: S3Error.self) { try await S3Client(configuration: configuration).headObject("k") }
        #expect(error?.code == .networkFailure)
        #expect(error?.message.contains("requestTimeout") == true, "\(error?.message ?? "")")
        #expect(ContinuousClock.now - started < .seconds(40), "the request's timeout, not the default minute")
    }

    @Test func invalidKeysAreRefusedBeforeSending() async throws {
        let client = S3Client(configuration: try S3TestStore.configuration())
        let empty = await #expect(throws: S3Error.self) { try await client.getObject("") }
        #expect(empty?.code == .badRequest)
        let long = await #expect(throws: S3Error.self) { try await client.putObject(String(repeating: "k", count: 1025), ByteBuffer()) }
        #expect(long?.code == .badRequest)
        let range = await #expect(throws: S3Error.self) { try await client.getObject("k", range: -1..<5) }
        #expect(range?.code == .badRequest)
        let maxKeys = await #expect(throws: S3Error.self) { try await client.listObjects(maxKeys: 1001) }
        #expect(maxKeys?.code == .badRequest)
    }
}

/// A loopback TCP listener that accepts connections and never answers.
final class SilentServer: @unchecked Sendable {
    let socket: Int32
    let port: Int

    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw S3TestStore.SetupFailure(description: "cannot listen on loopback: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }
}
