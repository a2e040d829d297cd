import NIOCore

extension S3Error {
    /// The error an answer with a status outside 2xx stands for: the `<Code>` and
    /// `<Message>` of its XML body when it has one, classified by status and code, with a
    /// message that names `request` and says what to do.
    static func answer(status: Int, body: ByteBuffer, request: String) -> S3Error {
        var storeCode: String?
        var storeMessage: String?
        if body.readableBytes > 0, let tree = try? XMLTreeParser.parse(body.readableBytesView), tree.name == "Error" {
            storeCode = tree.string("Code").flatMap { $0.isEmpty ? nil : $0 }
            storeMessage = tree.string("Message").flatMap { $0.isEmpty ? nil : $0 }
        }
        let code = classify(status: status, storeCode: storeCode)
        var message = "\(request): \(status)"
        if let storeCode { message += " \(storeCode)" }
        if let storeMessage { message += " (\(storeMessage))" }
        if let advice = advice(code: code, storeCode: storeCode) { message += "; \(advice)" }
        return S3Error(code, message, status: status, storeCode: storeCode)
    }

    /// The class of an answer's error. 404 is `noSuchKey` unless the store says
    /// `NoSuchBucket` (or another `NoSuch…`, which is `badRequest`); 403 `accessDenied`;
    /// 429 and 503 `SlowDown` `slowDown`; 501 (a feature the store lacks, which retrying
    /// will not bring) `badRequest`; other 5xx `serverError`; 3xx (another region or
    /// endpoint) `invalidConfiguration`; other statuses `badRequest`.
    static func classify(status: Int, storeCode: String?) -> Code {
        switch status {
        case 404:
            switch storeCode {
            case "NoSuchBucket": .noSuchBucket
            case nil, "NoSuchKey", "NotFound": .noSuchKey
            default: .badRequest
            }
        case 403: .accessDenied
        case 429: .slowDown
        case 503 where storeCode == nil || storeCode == "SlowDown" || storeCode == "ServiceUnavailable": .slowDown
        case 501: .badRequest
        case 500...599: .serverError
        case 300...399: .invalidConfiguration
        default:
            switch storeCode {
            case "SlowDown": .slowDown
            case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId": .accessDenied
            default: .badRequest
            }
        }
    }

    /// The class of one key's failure inside a multi-object delete answer (no status there).
    static func classify(storeCode: String) -> Code {
        switch storeCode {
        case "NoSuchKey": .noSuchKey
        case "NoSuchBucket": .noSuchBucket
        case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId": .accessDenied
        case "SlowDown": .slowDown
        case "InternalError", "ServiceUnavailable": .serverError
        default: .badRequest
        }
    }

    private static func advice(code: Code, storeCode: String?) -> String? {
        switch (code, storeCode) {
        case (.noSuchBucket, _): "create the bucket or fix the bucket name"
        case (.accessDenied, "SignatureDoesNotMatch"): "the secret key does not match the access key, or the region is wrong; check both"
        case (.accessDenied, "InvalidAccessKeyId"): "the store does not know this access key; check it"
        case (.accessDenied, "RequestTimeTooSkewed"): "this machine's clock is too far off; set it right"
        case (.accessDenied, _): "check the credentials and what they are allowed to do"
        case (.slowDown, _): "retry later, with backoff"
        case (.serverError, _): "retry later"
        case (.invalidConfiguration, _): "the bucket is reached at another endpoint or region; fix the configuration"
        default: nil
        }
    }
}
