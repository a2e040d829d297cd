import DocSyncS3
import NIOCore
import Testing

@Suite struct S3MultipartTests {
    @Test func threePartsOfAbout12MiBReadBackEqual() async throws {
        try await S3TestStore.withBucket { client in
            let bytes = S3TestStore.bytes(12 << 20 | 12_345, seed: 12)
            let upload = try await client.createMultipartUpload("big/object")
            let sizes = [5 << 20, 5 << 20, bytes.readableBytes - (10 << 20)]
            var parts: [S3UploadedPart] = []
            var offset = 0
            // Sent out of order: completion orders them by number.
            for (number, size) in zip([1, 2, 3], sizes).reversed() {
                offset = sizes.prefix(number - 1).reduce(0, +)
                parts.append(try await client.uploadPart(upload, partNumber: number, bytes.getSlice(at: offset, length: size)!))
            }
            #expect(try await client.headObject("big/object") == nil)
            try await client.completeMultipartUpload(upload, parts: parts)
            #expect(try await client.headObject("big/object") == Int64(bytes.readableBytes))
            #expect(try await client.getObject("big/object") == bytes)
            #expect(try await client.getObject("big/object", range: (5 << 20) - 5..<(5 << 20) + 5) == bytes.getSlice(at: (5 << 20) - 5, length: 10))
        }
    }

    @Test func putObjectGoesMultipartAboveTheThreshold() async throws {
        try await S3TestStore.withBucket({
            $0.multipartThreshold = 5 << 20
            $0.partSize = 5 << 20
            $0.partConcurrency = 2
        }) { client in
            let bytes = S3TestStore.bytes(11 << 20, seed: 11)
            try await client.putObject("auto", bytes)
            #expect(try await client.getObject("auto") == bytes)
            // A multipart object's ETag has the part count after a '-'.
            let listed = try #require(try await client.listAllObjects().first)
            #expect(listed.size == Int64(bytes.readableBytes))
            #expect(listed.eTag?.contains("-3") == true, "\(listed.eTag ?? "no ETag")")
        }
    }

    @Test func abortedUploadLeavesNoObject() async throws {
        try await S3TestStore.withBucket { client in
            let upload = try await client.createMultipartUpload("aborted")
            _ = try await client.uploadPart(upload, partNumber: 1, S3TestStore.bytes(1000))
            try await client.abortMultipartUpload(upload)
            try await client.abortMultipartUpload(upload)
            #expect(try await client.headObject("aborted") == nil)
            let error = await #expect(throws: S3Error.self) {
                try await client.completeMultipartUpload(upload, parts: [S3UploadedPart(partNumber: 1, eTag: "\"x\"")])
            }
            #expect(error?.code == .badRequest)
        }
    }

    @Test func smallPartsBeforeTheLastAreRefused() async throws {
        try await S3TestStore.withBucket { client in
            let upload = try await client.createMultipartUpload("small-parts")
            let first = try await client.uploadPart(upload, partNumber: 1, S3TestStore.bytes(1000, seed: 1))
            let second = try await client.uploadPart(upload, partNumber: 2, S3TestStore.bytes(1000, seed: 2))
            let error = await #expect(throws: S3Error.self) { try await client.completeMultipartUpload(upload, parts: [first, second]) }
            #expect(error?.code == .badRequest)
            #expect(error?.storeCode == "EntityTooSmall")
            try await client.abortMultipartUpload(upload)
        }
    }
}
