import NIOCore

extension S3Client {
    /// Starts a multipart upload of `key`.
    public func createMultipartUpload(_ key: String) async throws(S3Error) -> S3MultipartUpload {
        let what = "POST \(location(key))?uploads"
        try Self.checkKey(key, what)
        var request = S3Request(method: .POST, key: key)
        request.query = [("uploads", "")]
        let response = try await perform(request)
        guard let tree = try? XMLTreeParser.parse(response.body.readableBytesView),
              tree.name == "InitiateMultipartUploadResult",
              let uploadID = tree.string("UploadId"), !uploadID.isEmpty
        else {
            throw S3Error(.badRequest, "\(what): the answer has no UploadId", status: response.status)
        }
        return S3MultipartUpload(key: key, uploadID: uploadID)
    }

    /// Uploads part `partNumber` (1…10,000) of `upload` with its `Content-MD5`. Every part but
    /// the last must have at least `S3Configuration.minimumPartSize` bytes (the store checks
    /// that when the upload is completed). Uploading a part number again replaces that part.
    public func uploadPart(_ upload: S3MultipartUpload, partNumber: Int, _ bytes: ByteBuffer) async throws(S3Error) -> S3UploadedPart {
        let what = "PUT \(location(upload.key)) part \(partNumber)"
        guard (1...S3Configuration.maximumPartCount).contains(partNumber) else {
            throw S3Error(.badRequest, "\(what): part numbers go from 1 to \(S3Configuration.maximumPartCount)")
        }
        var request = S3Request(method: .PUT, key: upload.key)
        request.query = [("partNumber", String(partNumber)), ("uploadId", upload.uploadID)]
        request.body = bytes
        let response = try await perform(request)
        guard let eTag = response.headers.first(name: "etag"), !eTag.isEmpty else {
            throw S3Error(.badRequest, "\(what): the answer has no ETag", status: response.status)
        }
        return S3UploadedPart(partNumber: partNumber, eTag: eTag)
    }

    /// Completes `upload` from `parts` (in any order; they are sent by part number): the
    /// object becomes their concatenation, all at once.
    public func completeMultipartUpload(_ upload: S3MultipartUpload, parts: [S3UploadedPart]) async throws(S3Error) {
        let what = "POST \(location(upload.key))?uploadId"
        guard !parts.isEmpty else {
            throw S3Error(.badRequest, "\(what): an upload needs at least one part")
        }
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
            xml += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(xmlEscaped(part.eTag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        var request = S3Request(method: .POST, key: upload.key)
        request.query = [("uploadId", upload.uploadID)]
        request.body = ByteBuffer(string: xml)
        let response = try await perform(request)
        // S3 may answer 200 and report a failure in the body, once it has started answering.
        if let tree = try? XMLTreeParser.parse(response.body.readableBytesView), tree.name == "Error" {
            throw S3Error.answer(status: 500, body: response.body, request: what)
        }
    }

    /// Aborts `upload`, dropping the parts sent. Aborting an upload that no longer exists
    /// (completed or aborted already) is success.
    public func abortMultipartUpload(_ upload: S3MultipartUpload) async throws(S3Error) {
        var request = S3Request(method: .DELETE, key: upload.key)
        request.query = [("uploadId", upload.uploadID)]
        _ = try await perform(request, alsoAccepted: [404])
    }

    /// `bytes` as a multipart upload of `partSize` parts, `partConcurrency` at a time; the
    /// upload is aborted when a part or the completion fails.
    func putMultipart(_ key: String, _ bytes: ByteBuffer, partSize: Int) async throws(S3Error) {
        let count = (bytes.readableBytes + partSize - 1) / partSize
        guard count <= S3Configuration.maximumPartCount else {
            throw S3Error(.badRequest, "PUT \(location(key)): \(bytes.readableBytes) bytes would need \(count) parts of \(partSize) bytes, more than \(S3Configuration.maximumPartCount); raise partSize")
        }
        let upload = try await createMultipartUpload(key)
        do {
            let parts = try await uploadParts(upload, bytes, partSize: partSize, count: count)
            try await completeMultipartUpload(upload, parts: parts)
        } catch {
            do {
                try await abortMultipartUpload(upload)
            } catch let abortError {
                logger.warning("could not abort a failed multipart upload", metadata: [
                    "key": "\(key)", "uploadId": "\(upload.uploadID)", "error": "\(abortError)",
                ])
            }
            throw error
        }
    }

    private func uploadParts(_ upload: S3MultipartUpload, _ bytes: ByteBuffer, partSize: Int, count: Int) async throws(S3Error) -> [S3UploadedPart] {
        let concurrency = max(1, configuration.partConcurrency)
        let results = await withTaskGroup(of: Result<S3UploadedPart, S3Error>.self) { group in
            var next = 0
            func addPart() {
                let index = next
                next += 1
                let offset = index * partSize
                let slice = bytes.getSlice(at: bytes.readerIndex + offset, length: min(partSize, bytes.readableBytes - offset))!
                group.addTask {
                    do throws(S3Error) {
                        return .success(try await self.uploadPart(upload, partNumber: index + 1, slice))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            while next < min(concurrency, count) { addPart() }
            var parts: [S3UploadedPart] = []
            while let result = await group.next() {
                switch result {
                case .success(let part):
                    parts.append(part)
                    if next < count { addPart() }
                case .failure(let error):
                    group.cancelAll()
                    return Result<[S3UploadedPart], S3Error>.failure(error)
                }
            }
            return .success(parts)
        }
        return try results.get()
    }
}
