import Crypto
import Foundation

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for requests signed in the `Authorization`
/// header. Pure: the same inputs give the same signature, which the tests check against
/// AWS's published examples.
///
/// The canonical URI is given already encoded (S3 encodes a key once and keeps its `/`; see
/// `S3URIEncoding`), the query as name/value pairs, the headers to sign as name/value pairs in
/// any order and case. The access key goes verbatim into `Credential=` (a key such as
/// `ci:admin` is not encoded: the store compares it as written).
struct SigV4Signer: Sendable {
    var accessKey: String
    var secretKey: String
    var region: String
    var service: String

    /// The hex SHA-256 of an empty payload.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash that leaves the body out of the signature.
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// Everything a signature is made of, for tests and for messages.
    struct Signature: Sendable, Equatable {
        var canonicalRequest: String
        var stringToSign: String
        var signedHeaders: String
        var signature: String
        var authorization: String
    }

    /// Signs one request made at `amzDate` (`YYYYMMDDTHHMMSSZ`, the value of the request's
    /// `x-amz-date` header, which should be among `headers`).
    func sign(
        method: String,
        canonicalURI: String,
        query: [(name: String, value: String)],
        headers: [(name: String, value: String)],
        payloadHash: String,
        amzDate: String
    ) -> Signature {
        let canonicalHeaders = Self.canonicalHeaders(headers)
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            canonicalURI.isEmpty ? "/" : canonicalURI,
            S3URIEncoding.canonicalQuery(query),
            canonicalHeaders.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256",
            amzDate,
            scope,
            Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(day: day)))
        return Signature(
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            signedHeaders: signedHeaders,
            signature: signature,
            authorization: "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        )
    }

    /// The key of one day: HMAC chained over the date, region, service and `aws4_request`.
    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    /// Headers as SigV4 canonicalizes them: names lower-cased and sorted, values trimmed with
    /// runs of spaces made one, values of a repeated name joined with `,`.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            merged[name.lowercased(), default: []].append(normalize(value))
        }
        return merged.keys.sorted().map { ($0, merged[$0]!.joined(separator: ",")) }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func normalize(_ value: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in value.trimmingCharacters(in: .whitespaces) {
            if character == " " || character == "\t" {
                pendingSpace = true
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(character)
            }
        }
        return out
    }
}
