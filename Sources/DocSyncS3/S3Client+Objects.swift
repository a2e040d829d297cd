import NIOCore

extension S3Client {
    /// Stores `bytes` as `key`, replacing any object of that name. The store has the whole
    /// object or, on failure, the previous one: never a part.
    ///
    /// Bodies up to `configuration.multipartThreshold` go in one PUT with their `Content-MD5`;
    /// larger ones as a multipart upload of `partSize` parts, `partConcurrency` at a time, each
    /// with its own `Content-MD5` (a failed upload is aborted).
    public func putObject(_ key: String, _ bytes: ByteBuffer) async throws(S3Error) {
        try Self.checkKey(key, "PUT \(location(key))")
        let partSize = max(configuration.partSize, S3Configuration.minimumPartSize)
        if bytes.readableBytes > max(configuration.multipartThreshold, partSize) {
            try await putMultipart(key, bytes, partSize: partSize)
            return
        }
        var request = S3Request(method: .PUT, key: key)
        request.body = bytes
        _ = try await perform(request)
    }

    /// The whole object `key`. Throws `noSuchKey` when there is none.
    public func getObject(_ key: String) async throws(S3Error) -> ByteBuffer {
        try Self.checkKey(key, "GET \(location(key))")
        return try await perform(S3Request(method: .GET, key: key)).body
    }

    /// The bytes of `key` in `range` (offsets in the object, end excluded). A range reaching
    /// past the end gives the bytes up to the end; one starting at or past the end throws
    /// `badRequest` (store code `InvalidRange`); an empty range gives an empty buffer without
    /// asking the store. Throws `noSuchKey` when there is no such object.
    public func getObject(_ key: String, range: Range<Int64>) async throws(S3Error) -> ByteBuffer {
        let what = "GET \(location(key)) bytes \(range.lowerBound)..<\(range.upperBound)"
        try Self.checkKey(key, what)
        guard range.lowerBound >= 0 else {
            throw S3Error(.badRequest, "\(what): a range cannot start before 0")
        }
        if range.isEmpty { return ByteBuffer() }
        var request = S3Request(method: .GET, key: key)
        request.headers = [("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        let response = try await perform(request)
        if response.status == 206 { return response.body }
        // A store that ignores Range answers 200 with the whole object: cut the range out.
        var body = response.body
        let start = Int(clamping: range.lowerBound)
        guard start < body.readableBytes else {
            throw S3Error(.badRequest, "\(what): the object has only \(body.readableBytes) bytes", status: response.status, storeCode: "InvalidRange")
        }
        body.moveReaderIndex(forwardBy: start)
        return body.readSlice(length: min(body.readableBytes, Int(clamping: range.count)))!
    }

    /// The size in bytes of `key`, or nil when there is no such object. (A HEAD answer has
    /// no body, so a missing bucket also gives nil here.)
    public func headObject(_ key: String) async throws(S3Error) -> Int64? {
        try Self.checkKey(key, "HEAD \(location(key))")
        let response = try await perform(S3Request(method: .HEAD, key: key), alsoAccepted: [404])
        if response.status == 404 { return nil }
        guard let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }) else {
            throw S3Error(.badRequest, "HEAD \(location(key)): the answer has no Content-Length", status: response.status)
        }
        return length
    }

    /// Deletes `key`. Deleting an object that does not exist is success.
    public func deleteObject(_ key: String) async throws(S3Error) {
        try Self.checkKey(key, "DELETE \(location(key))")
        do {
            _ = try await perform(S3Request(method: .DELETE, key: key))
        } catch where error.code == .noSuchKey {
            return
        }
    }
}
