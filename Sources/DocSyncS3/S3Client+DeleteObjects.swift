import NIOCore

extension S3Client {
    /// The most keys one multi-object delete may name (S3's limit).
    public static let maximumKeysPerDelete = 1000
    /// The keys one multi-object delete of `deleteObjects` names. A store answers once every
    /// key is deleted: OpenStack Swift took 8 s for 1000 keys alone and up to 44 s beside
    /// other work, near a request's 60 s timeout, and once more than 30 s for 250 keys beside
    /// a test run; a tenth of S3's limit keeps each request short at the same total cost.
    public static let keysPerDeleteRequest = 100

    /// Deletes every key of `keys` (absent ones are success), with multi-object delete
    /// requests (`POST ?delete`, with `Content-MD5`) of at most `keysPerDeleteRequest` keys
    /// each, one after the other; a key that XML cannot carry (a control character) is
    /// deleted on its own.
    ///
    /// Throws when a request fails or the store reports keys it could not delete: then the
    /// error's code is that of the first key's failure and its message counts and names the
    /// failed keys. Keys of requests sent before the failure are deleted.
    public func deleteObjects(_ keys: [String]) async throws(S3Error) {
        var batch: [String] = []
        batch.reserveCapacity(min(keys.count, Self.keysPerDeleteRequest))
        for key in keys {
            try Self.checkKey(key, "POST \(location(nil))?delete")
            guard isXMLRepresentable(key) else {
                try await deleteObject(key)
                continue
            }
            batch.append(key)
            if batch.count == Self.keysPerDeleteRequest {
                try await deleteBatch(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try await deleteBatch(batch) }
    }

    private func deleteBatch(_ keys: [String]) async throws(S3Error) {
        let what = "POST \(location(nil))?delete (\(keys.count) keys)"
        var xml = "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
        for key in keys { xml += "<Object><Key>\(xmlEscaped(key))</Key></Object>" }
        xml += "</Delete>"
        var request = S3Request(method: .POST, key: nil)
        request.query = [("delete", "")]
        request.body = ByteBuffer(string: xml)
        let response = try await perform(request)
        let tree: XMLTree
        do {
            tree = try XMLTreeParser.parse(response.body.readableBytesView)
        } catch {
            throw S3Error(.badRequest, "\(what): the answer is not XML (\(error))", status: response.status)
        }
        if tree.name == "Error" {
            throw S3Error.answer(status: 500, body: response.body, request: what)
        }
        guard tree.name == "DeleteResult" else {
            throw S3Error(.badRequest, "\(what): the answer is <\(tree.name)>, not a DeleteResult", status: response.status)
        }
        let failures = tree.children("Error").compactMap { entry -> (key: String, code: String, message: String)? in
            let code = entry.string("Code") ?? "InternalError"
            guard code != "NoSuchKey" else { return nil }
            return (entry.string("Key") ?? "?", code, entry.string("Message") ?? "")
        }
        guard let first = failures.first else { return }
        let named = failures.prefix(5).map { "\($0.key) (\($0.code))" }.joined(separator: ", ")
        throw S3Error(
            S3Error.classify(storeCode: first.code),
            "\(what): \(failures.count) keys were not deleted: \(named)\(failures.count > 5 ? ", …" : ""); \(first.message)",
            status: response.status,
            storeCode: first.code
        )
    }
}
