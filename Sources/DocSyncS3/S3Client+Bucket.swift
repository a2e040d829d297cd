import NIOCore

extension S3Client {
    /// Creates the bucket. Idempotent: a bucket that already exists and is this account's
    /// (`BucketAlreadyOwnedByYou`, or a store that answers 409 `BucketAlreadyExists` to its
    /// owner) is success. Throws `badRequest` for a name another account holds.
    public func createBucket() async throws(S3Error) {
        var request = S3Request(method: .PUT, key: nil)
        if configuration.region != "us-east-1" {
            var body = ByteBuffer()
            body.writeString("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(xmlEscaped(configuration.region))</LocationConstraint></CreateBucketConfiguration>")
            request.body = body
        }
        let response = try await send(request)
        if (200..<300).contains(response.status) { return }
        let error = S3Error.answer(status: response.status, body: response.body, request: "PUT \(location(nil))")
        if error.storeCode == "BucketAlreadyOwnedByYou" { return }
        if error.storeCode == "BucketAlreadyExists", (try? await bucketExists()) == true { return }
        throw error
    }

    /// Deletes the bucket, which must be empty (else `badRequest`, store code
    /// `BucketNotEmpty`). A bucket that does not exist is `noSuchBucket`.
    public func deleteBucket() async throws(S3Error) {
        _ = try await perform(S3Request(method: .DELETE, key: nil))
    }

    /// True when the bucket exists and these credentials may use it; false when it does not
    /// exist. Throws `accessDenied` when it exists but is not ours to use.
    public func bucketExists() async throws(S3Error) -> Bool {
        let response = try await perform(S3Request(method: .HEAD, key: nil), alsoAccepted: [404])
        return response.status != 404
    }
}
