@testable import DocSyncS3
import Crypto
import Foundation
import NIOCore
import Testing

/// What signing the payload costs against not signing it: the median time of 20 PUTs and
/// 20 GETs of a 4 KiB and a 4 MiB object in each mode, and the hashing alone. A measurement,
/// not a check: it runs only with DOCSYNC_S3_MEASURE=1 and prints its figures.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DOCSYNC_S3_MEASURE"] == "1"), .serialized)
struct S3PayloadSigningMeasurement {
    static func median(_ durations: [Duration]) -> Duration {
        durations.sorted()[durations.count / 2]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    @Test func putAndGetMedians() async throws {
        let rounds = 20
        for size in [4 << 10, 4 << 20] {
            let bytes = S3TestStore.bytes(size, seed: UInt64(size))
            for signing in [S3PayloadSigning.unsigned, .signed, .unsigned, .signed] {
                try await S3TestStore.withBucket({ $0.payloadSigning = signing }) { client in
                    try await client.putObject("warm", bytes)
                    var puts: [Duration] = []
                    var gets: [Duration] = []
                    for round in 0..<rounds {
                        let key = "m/\(round)"
                        let putStart = ContinuousClock.now
                        try await client.putObject(key, bytes)
                        puts.append(ContinuousClock.now - putStart)
                        let getStart = ContinuousClock.now
                        let read = try await client.getObject(key)
                        gets.append(ContinuousClock.now - getStart)
                        #expect(read.readableBytes == size)
                    }
                    print("S3 measure: \(size >> 10) KiB \(signing.rawValue): PUT median \(Self.milliseconds(Self.median(puts))), GET median \(Self.milliseconds(Self.median(gets)))")
                }
            }
        }
    }

    @Test func hashingAlone() {
        let bytes = S3TestStore.bytes(4 << 20)
        for (name, hash) in [
            ("SHA-256", { (b: ByteBuffer) in _ = S3Client.digest(SHA256.self, b) }),
            ("MD5", { (b: ByteBuffer) in _ = S3Client.digest(Insecure.MD5.self, b) }),
        ] {
            var times: [Duration] = []
            for _ in 0..<20 {
                let start = ContinuousClock.now
                hash(bytes)
                times.append(ContinuousClock.now - start)
            }
            print("S3 measure: \(name) of 4 MiB: median \(Self.milliseconds(Self.median(times)))")
        }
    }
}

/// What the store accepts of the ways to hash a payload: printed, for the record.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DOCSYNC_S3_MEASURE"] == "1"))
struct S3PayloadHashProbe {
    @Test func whatTheStoreAccepts() async throws {
        try await S3TestStore.withBucket { client in
            let body = ByteBuffer(string: "hello, store")
            let right = SigV4Signer.hex(S3Client.digest(SHA256.self, body))
            let wrong = SigV4Signer.hex(S3Client.digest(SHA256.self, ByteBuffer(string: "something else")))
            let chunked = ByteBuffer(string: "c\r\nhello, store\r\n0\r\n\r\n")
            for (name, hash, headers) in [
                ("signed, right hash", right, [(String, String)]()),
                ("signed, wrong hash", wrong, []),
                ("UNSIGNED-PAYLOAD", SigV4Signer.unsignedPayload, []),
                ("STREAMING-UNSIGNED-PAYLOAD-TRAILER (aws-chunked)", "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                 [("content-encoding", "aws-chunked"), ("x-amz-decoded-content-length", "12")]),
            ] {
                var request = S3Request(method: .PUT, key: "probe")
                request.body = name.contains("chunked") ? chunked : body
                request.payloadHash = hash
                request.headers = headers
                request.contentMD5 = name.contains("chunked") ? .omitted : .computed
                let response = try await client.send(request)
                let error = (200..<300).contains(response.status) ? nil : S3Error.answer(status: response.status, body: response.body, request: "PUT")
                print("S3 probe: \(name): \(response.status) \(error?.storeCode ?? "")")
                try await client.deleteObject("probe")
            }
        }
    }
}
