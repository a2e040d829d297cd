@testable import DocSyncS3
import Testing

@Suite struct S3URIEncodingTests {
    static let table: [(text: String, query: String, key: String)] = [
        ("AZaz09-._~", "AZaz09-._~", "AZaz09-._~"),
        ("a b", "a%20b", "a%20b"),
        ("a+b", "a%2Bb", "a%2Bb"),
        ("a/b/c", "a%2Fb%2Fc", "a/b/c"),
        ("100%", "100%25", "100%25"),
        ("a=b&c", "a%3Db%26c", "a%3Db%26c"),
        ("?#[]@", "%3F%23%5B%5D%40", "%3F%23%5B%5D%40"),
        ("!$'()*,;:", "%21%24%27%28%29%2A%2C%3B%3A", "%21%24%27%28%29%2A%2C%3B%3A"),
        ("ü", "%C3%BC", "%C3%BC"),
        ("ሴ", "%E1%88%B4", "%E1%88%B4"),
        ("😀", "%F0%9F%98%80", "%F0%9F%98%80"),
        ("\u{7f}\n", "%7F%0A", "%7F%0A"),
        ("//x/", "%2F%2Fx%2F", "//x/"),
    ]

    @Test(arguments: table.indices)
    func encodes(_ index: Int) {
        let row = Self.table[index]
        #expect(S3URIEncoding.encode(row.text) == row.query)
        #expect(S3URIEncoding.encode(row.text, keepSlash: true) == row.key)
        #expect(S3URIEncoding.decode(row.query) == row.text)
    }

    @Test func pathOfAnObjectAndOfTheBucket() {
        #expect(S3URIEncoding.path(bucket: "my-bucket", key: "dir/a b+c.txt") == "/my-bucket/dir/a%20b%2Bc.txt")
        #expect(S3URIEncoding.path(bucket: "my-bucket", key: nil) == "/my-bucket")
    }

    @Test func canonicalQuerySortsByEncodedNameThenValue() {
        #expect(S3URIEncoding.canonicalQuery([("prefix", "a b"), ("list-type", "2"), ("max-keys", "10")])
            == "list-type=2&max-keys=10&prefix=a%20b")
        #expect(S3URIEncoding.canonicalQuery([("uploads", "")]) == "uploads=")
        #expect(S3URIEncoding.canonicalQuery([("b", "2"), ("a", "2"), ("a", "1"), ("A", "0")]) == "A=0&a=1&a=2&b=2")
        #expect(S3URIEncoding.canonicalQuery([("continuation-token", "x/y+z==")]) == "continuation-token=x%2Fy%2Bz%3D%3D")
    }

    @Test func decodesListingKeys() {
        #expect(S3URIEncoding.decode("a+b%2Bc", plusIsSpace: true) == "a b+c")
        #expect(S3URIEncoding.decode("a+b") == "a+b")
        #expect(S3URIEncoding.decode("%zz") == nil)
        #expect(S3URIEncoding.decode("%4") == nil)
        #expect(S3URIEncoding.decode("%FF") == nil)
        #expect(S3URIEncoding.decode("%c3%bc") == "ü")
    }
}
