import Crypto
@testable import DocSyncS3
import Testing

/// The signer against AWS's published examples: the S3 examples of "Signature Calculations
/// for the Authorization Header" (examplebucket, 20130524) and cases of the Signature
/// Version 4 test suite (service "service", 20150830).
@Suite struct SigV4SignerTests {
    static let s3Example = SigV4Signer(
        accessKey: "AKIAIOSFODNN7EXAMPLE",
        secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
        service: "s3"
    )
    static let suite = SigV4Signer(
        accessKey: "AKIDEXAMPLE",
        secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
        service: "service"
    )
    static let s3Host = ("Host", "examplebucket.s3.amazonaws.com")
    static let s3Date = "20130524T000000Z"
    static let empty = SigV4Signer.emptyPayloadHash

    @Test func s3GetObjectWithRange() {
        let result = Self.s3Example.sign(
            method: "GET",
            canonicalURI: "/test.txt",
            query: [],
            headers: [Self.s3Host, ("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.empty), ("x-amz-date", Self.s3Date)],
            payloadHash: Self.empty,
            amzDate: Self.s3Date
        )
        #expect(result.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(result.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(result.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(result.authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func s3PutObjectWithSignedPayloadAndEncodedKey() {
        let payloadHash = SigV4Signer.hex(SHA256.hash(data: Array("Welcome to Amazon S3.".utf8)))
        #expect(payloadHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let key = S3URIEncoding.encode("test$file.text", keepSlash: true)
        #expect(key == "test%24file.text")
        let result = Self.s3Example.sign(
            method: "PUT",
            canonicalURI: "/" + key,
            query: [],
            headers: [
                ("Date", "Fri, 24 May 2013 00:00:00 GMT"), Self.s3Host, ("x-amz-date", Self.s3Date),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", payloadHash),
            ],
            payloadHash: payloadHash,
            amzDate: Self.s3Date
        )
        #expect(result.stringToSign.hasSuffix("9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"))
        #expect(result.signedHeaders == "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class")
        #expect(result.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func s3GetBucketLifecycleHasAnEmptyQueryValue() {
        let result = Self.s3Example.sign(
            method: "GET", canonicalURI: "/", query: [("lifecycle", "")],
            headers: [Self.s3Host, ("x-amz-content-sha256", Self.empty), ("x-amz-date", Self.s3Date)],
            payloadHash: Self.empty, amzDate: Self.s3Date
        )
        #expect(result.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "lifecycle=")
        #expect(result.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func s3ListObjectsSortsTheQuery() {
        let result = Self.s3Example.sign(
            method: "GET", canonicalURI: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [Self.s3Host, ("x-amz-content-sha256", Self.empty), ("x-amz-date", Self.s3Date)],
            payloadHash: Self.empty, amzDate: Self.s3Date
        )
        #expect(result.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "max-keys=2&prefix=J")
        #expect(result.stringToSign.hasSuffix("df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7"))
        #expect(result.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    static func suiteSign(_ method: String, _ uri: String, _ query: [(name: String, value: String)] = []) -> SigV4Signer.Signature {
        suite.sign(
            method: method, canonicalURI: uri, query: query,
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: empty, amzDate: "20150830T123600Z"
        )
    }

    @Test func suiteGetVanilla() {
        let result = Self.suiteSign("GET", "/")
        #expect(result.stringToSign == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
            """)
        #expect(result.authorization == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func suitePostVanilla() {
        #expect(Self.suiteSign("POST", "/").signature == "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b")
    }

    @Test func suiteGetVanillaQueryOrderKeyCase() {
        let result = Self.suiteSign("GET", "/", [("Param2", "value2"), ("Param1", "value1")])
        #expect(result.signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test func suiteGetUTF8Path() {
        let result = Self.suiteSign("GET", S3URIEncoding.encode("/ሴ", keepSlash: true))
        #expect(result.canonicalRequest.split(separator: "\n")[1] == "/%E1%88%B4")
        #expect(result.signature == "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85")
    }

    @Test func headerValuesAreTrimmedAndRepeatedNamesJoined() {
        let headers = SigV4Signer.canonicalHeaders([("My-Header1", "  a   b   c  "), ("X-B", "2"), ("x-b", "1"), ("A", "\tq\t")])
        #expect(headers.map(\.name) == ["a", "my-header1", "x-b"])
        #expect(headers.map(\.value) == ["q", "a b c", "2,1"])
    }

    @Test func accessKeyWithAColonGoesVerbatimIntoTheCredential() {
        var signer = Self.suite
        signer.accessKey = "ci:admin"
        #expect(signer.sign(method: "GET", canonicalURI: "/", query: [], headers: [], payloadHash: Self.empty, amzDate: "20150830T123600Z")
            .authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=ci:admin/20150830/us-east-1/service/aws4_request, "))
    }
}
