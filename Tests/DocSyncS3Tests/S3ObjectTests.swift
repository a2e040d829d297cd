import DocSyncS3
import NIOCore
import Testing

/// Objects against the real store.
@Suite struct S3ObjectTests {
    @Test(arguments: [0, 1, 1 << 20])
    func roundTrip(_ size: Int) async throws {
        try await S3TestStore.withBucket { client in
            let bytes = S3TestStore.bytes(size, seed: UInt64(size))
            try await client.putObject("objects/\(size)", bytes)
            #expect(try await client.getObject("objects/\(size)") == bytes)
            #expect(try await client.headObject("objects/\(size)") == Int64(size))
        }
    }

    @Test(arguments: S3PayloadSigning.allCases)
    func bothPayloadSigningsAreAccepted(_ signing: S3PayloadSigning) async throws {
        try await S3TestStore.withBucket({ $0.payloadSigning = signing }) { client in
            let bytes = S3TestStore.bytes(70_000, seed: 7)
            try await client.putObject("signed-or-not", bytes)
            #expect(try await client.getObject("signed-or-not") == bytes)
        }
    }

    @Test func replacingAnObject() async throws {
        try await S3TestStore.withBucket { client in
            try await client.putObject("k", ByteBuffer(string: "first"))
            try await client.putObject("k", ByteBuffer(string: "second, longer"))
            #expect(try await client.getObject("k") == ByteBuffer(string: "second, longer"))
        }
    }

    @Test func keysWithCharactersThatNeedEncoding() async throws {
        let keys = ["a b/c+d", "100%/x?y#z", "ü/ሴ/😀", "semi;colon=equals&amp", "tilde~_-.", "dir//double", "(paren)[bracket]{brace}!$'*,:@"]
        try await S3TestStore.withBucket { client in
            for (index, key) in keys.enumerated() {
                try await client.putObject(key, ByteBuffer(string: "value \(index)"))
            }
            for (index, key) in keys.enumerated() {
                #expect(try await client.getObject(key) == ByteBuffer(string: "value \(index)"), "\(key)")
            }
            let listed = try await client.listAllObjects().map(\.key)
            #expect(listed.sorted() == keys.sorted())
        }
    }

    @Test func rangedGets() async throws {
        try await S3TestStore.withBucket { client in
            let bytes = S3TestStore.bytes(100_000, seed: 3)
            try await client.putObject("ranged", bytes)
            #expect(try await client.getObject("ranged", range: 0..<10) == bytes.getSlice(at: 0, length: 10))
            #expect(try await client.getObject("ranged", range: 99_990..<100_000) == bytes.getSlice(at: 99_990, length: 10))
            #expect(try await client.getObject("ranged", range: 12_345..<54_321) == bytes.getSlice(at: 12_345, length: 54_321 - 12_345))
            // Past the end: the bytes up to the end.
            #expect(try await client.getObject("ranged", range: 99_000..<200_000) == bytes.getSlice(at: 99_000, length: 1000))
            #expect(try await client.getObject("ranged", range: 5..<5).readableBytes == 0)
            // Several ranges of one object at once.
            let slices = try await withThrowingTaskGroup(of: (Int, ByteBuffer).self) { group in
                for index in 0..<10 {
                    group.addTask { (index, try await client.getObject("ranged", range: Int64(index * 10_000)..<Int64(index * 10_000 + 10_000))) }
                }
                var slices = [ByteBuffer](repeating: ByteBuffer(), count: 10)
                for try await (index, slice) in group { slices[index] = slice }
                return slices
            }
            var joined = ByteBuffer()
            for var slice in slices { joined.writeBuffer(&slice) }
            #expect(joined == bytes)
            let error = await #expect(throws: S3Error.self) { try await client.getObject("ranged", range: 100_000..<100_010) }
            #expect(error?.code == .badRequest)
            #expect(error?.status == 416)
        }
    }

    @Test func absentKeys() async throws {
        try await S3TestStore.withBucket { client in
            let error = await #expect(throws: S3Error.self) { try await client.getObject("absent") }
            #expect(error?.code == .noSuchKey)
            #expect(error?.message.contains("s3://\(client.configuration.bucket)/absent") == true)
            let ranged = await #expect(throws: S3Error.self) { try await client.getObject("absent", range: 0..<1) }
            #expect(ranged?.code == .noSuchKey)
            #expect(try await client.headObject("absent") == nil)
            try await client.deleteObject("absent")
        }
    }

    @Test func deleteObject() async throws {
        try await S3TestStore.withBucket { client in
            try await client.putObject("gone", ByteBuffer(string: "x"))
            try await client.deleteObject("gone")
            #expect(try await client.headObject("gone") == nil)
            try await client.deleteObject("gone")
        }
    }

    @Test func createBucketIsIdempotentAndDeleteBucketNeedsItEmpty() async throws {
        try await S3TestStore.withBucket { client in
            try await client.createBucket()
            #expect(try await client.bucketExists())
            try await client.putObject("keep", ByteBuffer(string: "x"))
            let error = await #expect(throws: S3Error.self) { try await client.deleteBucket() }
            #expect(error?.code == .badRequest)
            #expect(error?.storeCode == "BucketNotEmpty")
        }
    }

    @Test func missingBucket() async throws {
        let client = S3Client(configuration: try S3TestStore.configuration(), logger: S3TestStore.logger)
        #expect(try await client.bucketExists() == false)
        let get = await #expect(throws: S3Error.self) { try await client.getObject("k") }
        #expect(get?.code == .noSuchBucket)
        let put = await #expect(throws: S3Error.self) { try await client.putObject("k", ByteBuffer(string: "x")) }
        #expect(put?.code == .noSuchBucket)
        let list = await #expect(throws: S3Error.self) { try await client.listObjects() }
        #expect(list?.code == .noSuchBucket)
        let delete = await #expect(throws: S3Error.self) { try await client.deleteBucket() }
        #expect(delete?.code == .noSuchBucket)
    }
}
