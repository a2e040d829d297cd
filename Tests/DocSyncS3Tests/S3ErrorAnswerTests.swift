@testable import DocSyncS3
import NIOCore
import Testing

@Suite struct S3ErrorAnswerTests {
    static func error(_ status: Int, _ code: String?, message: String = "m") -> S3Error {
        let body = code.map { "<?xml version='1.0' encoding='UTF-8'?>\n<Error><Code>\($0)</Code><Message>\(message)</Message><RequestId>tx1</RequestId></Error>" } ?? ""
        return S3Error.answer(status: status, body: ByteBuffer(string: body), request: "GET s3://b/k")
    }

    @Test func statusesAndStoreCodesMapToCodes() {
        let table: [(Int, String?, S3Error.Code)] = [
            (404, "NoSuchKey", .noSuchKey),
            (404, nil, .noSuchKey),
            (404, "NoSuchBucket", .noSuchBucket),
            (404, "NoSuchUpload", .badRequest),
            (403, "AccessDenied", .accessDenied),
            (403, "SignatureDoesNotMatch", .accessDenied),
            (403, "InvalidAccessKeyId", .accessDenied),
            (403, nil, .accessDenied),
            (503, "SlowDown", .slowDown),
            (503, nil, .slowDown),
            (429, nil, .slowDown),
            (500, "InternalError", .serverError),
            (502, nil, .serverError),
            (503, "InternalError", .serverError),
            (501, "NotImplemented", .badRequest),
            (400, "BadDigest", .badRequest),
            (400, "InvalidDigest", .badRequest),
            (409, "BucketNotEmpty", .badRequest),
            (416, "InvalidRange", .badRequest),
            (301, "PermanentRedirect", .invalidConfiguration),
        ]
        for (status, code, expected) in table {
            let error = Self.error(status, code)
            #expect(error.code == expected, "\(status) \(code ?? "-")")
            #expect(error.status == status)
            #expect(error.storeCode == code)
        }
    }

    @Test func messageNamesTheRequestTheStoreCodeAndWhatToDo() {
        let error = Self.error(403, "SignatureDoesNotMatch", message: "The request signature we calculated does not match")
        #expect(error.message.hasPrefix("GET s3://b/k: 403 SignatureDoesNotMatch (The request signature we calculated does not match)"))
        #expect(error.message.contains("secret key"))
        #expect(Self.error(503, "SlowDown").isTransient)
        #expect(!Self.error(404, "NoSuchKey").isTransient)
    }

    @Test func unreadableBodiesStillGiveTheStatusClass() {
        let error = S3Error.answer(status: 500, body: ByteBuffer(string: "<html>oops"), request: "PUT s3://b/k")
        #expect(error.code == .serverError)
        #expect(error.storeCode == nil)
    }

    @Test func deleteResultCodes() {
        #expect(S3Error.classify(storeCode: "AccessDenied") == .accessDenied)
        #expect(S3Error.classify(storeCode: "InternalError") == .serverError)
        #expect(S3Error.classify(storeCode: "SlowDown") == .slowDown)
        #expect(S3Error.classify(storeCode: "Whatever") == .badRequest)
    }
}
