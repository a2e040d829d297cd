import NIOCore

extension S3Client {
    /// One page of the objects whose keys start with `prefix` (ListObjectsV2), at most
    /// `maxKeys` (1…1000) of them, after the page `continuationToken` ended (nil for the
    /// first page). A page may hold fewer objects than asked and still not be the last:
    /// go on while `nextContinuationToken` is not nil.
    public func listObjects(prefix: String = "", continuationToken: String? = nil, maxKeys: Int = 1000) async throws(S3Error) -> S3ObjectPage {
        let what = "GET \(location(nil))?list-type=2&prefix=\(prefix)"
        guard (1...1000).contains(maxKeys) else {
            throw S3Error(.badRequest, "\(what): maxKeys is \(maxKeys); ask for 1 to 1000")
        }
        var request = S3Request(method: .GET, key: nil)
        request.query = [("list-type", "2"), ("max-keys", String(maxKeys)), ("encoding-type", "url")]
        if !prefix.isEmpty { request.query.append(("prefix", prefix)) }
        if let continuationToken { request.query.append(("continuation-token", continuationToken)) }
        let response = try await perform(request)
        do throws(S3Error) {
            return try Self.parseListing(response.body)
        } catch {
            throw S3Error(.badRequest, "\(what): \(error.message)", status: response.status)
        }
    }

    /// Every object whose key starts with `prefix`, page after page.
    public func listAllObjects(prefix: String = "") async throws(S3Error) -> [S3Object] {
        var objects: [S3Object] = []
        var token: String?
        repeat {
            let page = try await listObjects(prefix: prefix, continuationToken: token)
            objects.append(contentsOf: page.objects)
            guard page.nextContinuationToken == nil || page.nextContinuationToken != token else {
                throw S3Error(.badRequest, "GET \(location(nil))?list-type=2: the store answered the same continuation token twice")
            }
            token = page.nextContinuationToken
        } while token != nil
        return objects
    }

    /// A `ListBucketResult` document as a page; keys are URL-decoded when the store says it
    /// encoded them (`<EncodingType>url</EncodingType>`).
    static func parseListing(_ body: ByteBuffer) throws(S3Error) -> S3ObjectPage {
        let tree: XMLTree
        do {
            tree = try XMLTreeParser.parse(body.readableBytesView)
        } catch {
            throw S3Error(.badRequest, "the listing is not XML (\(error))")
        }
        guard tree.name == "ListBucketResult" else {
            throw S3Error(.badRequest, "the answer is <\(tree.name)>, not a listing")
        }
        let urlEncoded = tree.string("EncodingType") == "url"
        var objects: [S3Object] = []
        for entry in tree.children("Contents") {
            guard let rawKey = entry.string("Key"),
                  let key = urlEncoded ? S3URIEncoding.decode(rawKey, plusIsSpace: true) : rawKey,
                  let size = entry.string("Size").flatMap({ Int64($0) }),
                  let lastModified = entry.string("LastModified").flatMap(S3Timestamp.parseISO8601)
            else {
                throw S3Error(.badRequest, "the listing has an entry without a readable Key, Size or LastModified")
            }
            objects.append(S3Object(key: key, size: size, lastModified: lastModified, eTag: entry.string("ETag")))
        }
        let truncated = tree.string("IsTruncated") == "true"
        let token = tree.string("NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        if truncated, token == nil {
            throw S3Error(.badRequest, "the listing is truncated but has no NextContinuationToken")
        }
        return S3ObjectPage(objects: objects, nextContinuationToken: truncated ? token : nil)
    }
}
