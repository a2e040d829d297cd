import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Testing

@Suite struct ServerSentEventTests {
    @Test func anEncodedEventParsesBack() throws {
        let notification = ChangeNotification(zones: [ZoneID("Documents"), ZoneID("Photos")])
        let event = ServerSentEvent(name: ServerSentEvent.changeEvent, notification: notification)
        var parser = ServerSentEventParser()
        let events = parser.consume(Array(event.encoded.utf8))
        #expect(events == [event])
        #expect(try events[0].notification() == notification)
    }

    @Test func eventsSplitAnywhereAndCommentsAreSkipped() {
        let stream = ServerSentEvent(name: "zones", data: "{\"zones\":[]}").encoded + ServerSentEvent.heartbeat
            + ServerSentEvent(name: "change", data: "{\"zones\":[\"A\"]}").encoded
        let bytes = Array(stream.utf8)
        for cut in 0 ... bytes.count {
            var parser = ServerSentEventParser()
            let events = parser.consume(bytes[..<cut]) + parser.consume(bytes[cut...])
            #expect(events.map(\.name) == ["zones", "change"], "cut at \(cut)")
        }
    }

    @Test func crlfLineEndingsMultiLineDataAndNoSpaceAfterColon() {
        var parser = ServerSentEventParser()
        let events = parser.consume(Array("event:change\r\ndata: one\r\ndata:two\r\n\r\ndata: plain\n\n".utf8))
        #expect(events == [ServerSentEvent(name: "change", data: "one\ntwo"), ServerSentEvent(name: "message", data: "plain")])
    }

    @Test func anEventWithoutDataIsDropped() {
        var parser = ServerSentEventParser()
        #expect(parser.consume(Array("event: change\n\n: comment\n\n".utf8)).isEmpty)
    }
}
