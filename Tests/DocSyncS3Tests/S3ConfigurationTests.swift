@testable import DocSyncS3
import Foundation
import Testing

@Suite struct S3ConfigurationTests {
    static let keys = ["S3_ACCESS_KEY": "ci:admin", "S3_SECRET_KEY": "ci-secret"]

    @Test func readsALocationWithEndpointRegionAndEnvironmentKeys() throws {
        let configuration = try S3Configuration(url: "s3://docsync-chunks?endpoint=http://127.0.0.1:8480&region=eu-west-1", environment: Self.keys)
        #expect(configuration.bucket == "docsync-chunks")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:8480")
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.accessKey == "ci:admin")
        #expect(configuration.secretKey == "ci-secret")
        #expect(configuration.hostHeader == "127.0.0.1:8480")
        #expect(!configuration.description.contains("ci-secret"))
    }

    @Test func defaultsToUSEast1AndAWS() throws {
        let configuration = try S3Configuration(url: "s3://my.bucket", environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"])
        #expect(configuration.region == "us-east-1")
        #expect(configuration.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com")
        #expect(configuration.hostHeader == "s3.us-east-1.amazonaws.com")
        #expect(configuration.accessKey == "A")
    }

    @Test func s3VariablesComeBeforeAWSOnes() throws {
        var environment = Self.keys
        environment["AWS_ACCESS_KEY_ID"] = "other"
        environment["AWS_SECRET_ACCESS_KEY"] = "other"
        #expect(try S3Configuration(url: "s3://abc", environment: environment).accessKey == "ci:admin")
    }

    static func refusal(_ url: String, environment: [String: String] = keys, file: String? = nil) -> S3Error? {
        do {
            _ = try S3Configuration(url: url, environment: environment, credentialsFile: file)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("http://bucket", "not an S3 location"),
        ("s3://?endpoint=http://h:1", "names no bucket"),
        ("s3://Bucket", "lower-case"),
        ("s3://ab", "3 to 63"),
        ("s3://-abc", "start and end"),
        ("s3://a..b", "'..'"),
        ("s3://192.168.1.1", "IP address"),
        ("s3://bucket/prefix", "path after the bucket"),
        ("s3://user:pass@bucket", "credentials in it"),
        ("s3://bucket?endpoint=http://h:1&regoin=x", "\"regoin\""),
        ("s3://bucket?endpoint=ftp://h", "http(s)"),
        ("s3://bucket?endpoint=http://h:1/path", "has a path"),
        ("s3://bucket?endpoint=http://k:s@h:1", "credentials in it"),
        ("s3://bucket?region=", "region"),
    ])
    func refusesWithWhatToFix(_ url: String, _ expected: String) throws {
        let error = try #require(Self.refusal(url))
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func missingOrHalfCredentialsAreNamed() throws {
        let none = try #require(Self.refusal("s3://bucket", environment: [:]))
        #expect(none.message.contains("S3_ACCESS_KEY") && none.message.contains("AWS_ACCESS_KEY_ID"))
        let half = try #require(Self.refusal("s3://bucket", environment: ["S3_ACCESS_KEY": "a"]))
        #expect(half.message.contains("S3_SECRET_KEY is not"))
        let spaces = try #require(Self.refusal("s3://bucket", environment: ["S3_ACCESS_KEY": "a b", "S3_SECRET_KEY": "s"]))
        #expect(spaces.message.contains("access key"))
    }

    @Test func credentialsFileForms() throws {
        let forms = [
            "access_key = ci:admin\nsecret_key = ci-secret\n",
            "# S3\n[default]\naws_access_key_id=ci:admin\naws_secret_access_key = \"ci-secret\"\n",
            "S3_ENDPOINT=http://127.0.0.1:8480\nexport S3_ACCESS_KEY=ci:admin\r\nS3_SECRET_KEY='ci-secret'\r\n",
            "AWS_ACCESS_KEY_ID=ci:admin\nAWS_SECRET_ACCESS_KEY=ci-secret",
        ]
        for text in forms {
            let parsed = try S3CredentialsFile.parse(text, path: "f")
            #expect(parsed.accessKey == "ci:admin" && parsed.secretKey == "ci-secret", "\(text)")
        }
    }

    @Test func credentialsFileProblemsAreNamed() throws {
        #expect(throws: S3Error.self) { try S3CredentialsFile.parse("access_key = a\n", path: "f") }
        #expect(throws: S3Error.self) { try S3CredentialsFile.parse("secret_key = a\n", path: "f") }
        #expect(throws: S3Error.self) { try S3CredentialsFile.parse("access_key = a\naccess_key = b\nsecret_key = s", path: "f") }
        let missing = try #require(Self.refusal("s3://bucket", file: "/nonexistent/docsync-s3-credentials"))
        #expect(missing.message.contains("/nonexistent/docsync-s3-credentials"))
    }

    @Test func credentialsFileIsReadAndBeatsTheEnvironment() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("docsync-s3-\(UUID().uuidString)").path
        try "access_key = from-file\nsecret_key = file-secret\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try S3Configuration(url: "s3://bucket?endpoint=http://[::1]:8480", environment: Self.keys, credentialsFile: path)
        #expect(configuration.accessKey == "from-file")
        #expect(configuration.secretKey == "file-secret")
        #expect(configuration.hostHeader == "[::1]:8480")
    }
}
