@testable import DocSyncS3
import Foundation
import NIOCore
import Testing

@Suite struct XMLTreeTests {
    static func parse(_ text: String) throws -> XMLTree {
        try XMLTreeParser.parse(Array(text.utf8))
    }

    @Test func readsElementsTextAndReferences() throws {
        let tree = try Self.parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <s3:Root xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/" a='x>y'>
              <Key> a &amp; b &lt;c&gt; &quot;&apos; &#65;&#x42; ü </Key>
              <Empty/><Empty attr="/>"></Empty>
              <Data><![CDATA[<raw & text>]]></Data>
            </s3:Root>
            """)
        #expect(tree.name == "Root")
        #expect(tree.string("Key") == " a & b <c> \"' AB ü ")
        #expect(tree.children("Empty").count == 2)
        #expect(tree.children("Empty").allSatisfy { $0.text.isEmpty && $0.children.isEmpty })
        #expect(tree.string("Data") == "<raw & text>")
        #expect(tree.child("Missing") == nil)
    }

    @Test func lineEndsBecomeNewlines() throws {
        #expect(try Self.parse("<a>x\r\ny\rz&#13;</a>").text == "x\ny\nz\r")
    }

    @Test(arguments: [
        "", "   ", "<a>", "<a></b>", "</a>", "<a/><b/>", "text<a/>", "<a>&bogus;</a>", "<a>&amp</a>",
        "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "<a><!-- unterminated</a>", "<a", "<a></a", "<a>&#xD800;</a>",
    ])
    func refusesWhatIsNotOneWellFormedElement(_ text: String) {
        #expect(throws: XMLTreeError.self) { try Self.parse(text) }
    }

    @Test func escapingRoundTrips() throws {
        let key = "a&b<c>\"d'e\r\nf ü"
        #expect(try Self.parse("<Key>\(xmlEscaped(key))</Key>").text == key)
        #expect(isXMLRepresentable(key))
        #expect(!isXMLRepresentable("a\u{1}b"))
        #expect(!isXMLRepresentable("\u{FFFE}"))
    }

    @Test func listingPage() throws {
        let page = try S3Client.parseListing(ByteBuffer(string: """
            <?xml version='1.0' encoding='UTF-8'?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix>\
            <KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>\
            <NextContinuationToken>dG9rZW4=</NextContinuationToken>\
            <Contents><Key>dir/a+b%2Bc</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>\
            <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size><StorageClass>STANDARD</StorageClass></Contents>\
            <Contents><Key>%C3%BC</Key><LastModified>2009-10-12T17:50:31Z</LastModified><Size>0</Size></Contents>\
            </ListBucketResult>
            """))
        #expect(page.objects.map(\.key) == ["dir/a b+c", "ü"])
        #expect(page.objects.map(\.size) == [434_234, 0])
        #expect(page.objects[0].lastModified == Date(timeIntervalSince1970: 1_255_369_830))
        #expect(page.objects[1].lastModified == Date(timeIntervalSince1970: 1_255_369_831))
        #expect(page.objects[0].eTag == "\"fba9dede5f27731c9771645a39863328\"")
        #expect(page.objects[1].eTag == nil)
        #expect(page.nextContinuationToken == "dG9rZW4=")
    }

    @Test func lastPageHasNoToken() throws {
        let page = try S3Client.parseListing(ByteBuffer(string: "<ListBucketResult><IsTruncated>false</IsTruncated><NextContinuationToken>x</NextContinuationToken></ListBucketResult>"))
        #expect(page.objects.isEmpty)
        #expect(page.nextContinuationToken == nil)
    }

    @Test func unreadableListingsAreRefused() {
        for body in [
            "<Error><Code>x</Code></Error>",
            "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
            "<ListBucketResult><Contents><Key>a</Key><Size>x</Size><LastModified>2009-10-12T17:50:30Z</LastModified></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Key>a</Key><Size>1</Size><LastModified>yesterday</LastModified></Contents></ListBucketResult>",
        ] {
            #expect(throws: S3Error.self) { try S3Client.parseListing(ByteBuffer(string: body)) }
        }
    }

    @Test func timestamps() {
        #expect(S3Timestamp.amzDate(Date(timeIntervalSince1970: 1_369_353_600)) == "20130524T000000Z")
        #expect(S3Timestamp.amzDate(Date(timeIntervalSince1970: 1_440_938_160.9)) == "20150830T123600Z")
        #expect(S3Timestamp.parseISO8601("2015-08-30T12:36:00.250Z") == Date(timeIntervalSince1970: 1_440_938_160.25))
        #expect(S3Timestamp.parseISO8601("2015-08-30T12:36:00+00:00") == Date(timeIntervalSince1970: 1_440_938_160))
        #expect(S3Timestamp.parseISO8601("2015-08-30T12:36:00") == nil)
        #expect(S3Timestamp.parseISO8601("2015-13-30T12:36:00Z") == nil)
        #expect(S3Timestamp.parseISO8601("2015-08-30T12:36:00.Z") == nil)
    }
}
