import AsyncHTTPClient
import DocSyncCore
import DocSyncHTTP
import Foundation
import Testing

@Suite struct WireStatusTests {
    @Test(arguments: SyncError.Code.allCases)
    func everyCodeHasAnErrorStatus(_ code: SyncError.Code) {
        let status = WireStatus.status(for: code)
        #expect((400 ..< 600).contains(status))
    }

    @Test func statusesOfTheCodesAClientActsOn() {
        #expect(WireStatus.status(for: .invalidArguments) == 400)
        #expect(WireStatus.status(for: .notAuthenticated) == 401)
        #expect(WireStatus.status(for: .zoneNotFound) == 404)
        #expect(WireStatus.status(for: .serverRecordChanged) == 409)
        #expect(WireStatus.status(for: .limitExceeded) == 413)
        #expect(WireStatus.status(for: .requestRateLimited) == 429)
        #expect(WireStatus.status(for: .serviceUnavailable) == 503)
        #expect(WireStatus.status(for: .quotaExceeded) == 507)
    }

    @Test func bareStatusesMapToSpecCodes() {
        func code(_ status: Int, retryAfter: Double? = nil) -> SyncError.Code? {
            WireStatus.error(forStatus: status, retryAfter: retryAfter, context: "test")?.code
        }
        #expect(code(200) == nil && code(204) == nil)
        #expect(code(401) == .notAuthenticated)
        #expect(code(403) == .notAuthenticated)
        #expect(code(413) == .limitExceeded)
        #expect(code(429) == .requestRateLimited)
        #expect(code(503) == .serviceUnavailable)
        #expect(code(507) == .quotaExceeded)
        #expect(code(502) == .networkFailure)
        #expect(code(400) == .invalidArguments)
        #expect(WireStatus.error(forStatus: 429, retryAfter: 7, context: "t")?.retryAfter == 7)
        #expect(WireStatus.error(forStatus: 429, retryAfter: nil, context: "t")?.retryAfter != nil, "a 429 always says when to retry")
    }

    @Test func retryAfterIsWholeSecondsRoundedUp() {
        #expect(WireStatus.retryAfterHeader(0.01) == "1")
        #expect(WireStatus.retryAfterHeader(1.2) == "2")
        #expect(WireStatus.retryAfterHeader(3) == "3")
        #expect(WireStatus.retryAfterSeconds("4") == 4)
        #expect(WireStatus.retryAfterSeconds(" 2 ") == 2)
        #expect(WireStatus.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(WireStatus.retryAfterSeconds("-1") == nil)
        #expect(WireStatus.retryAfterSeconds(nil) == nil)
    }

    @Test func changeTokensTravelAsBase64URL() throws {
        let token = ChangeToken(opaqueValue: Data([0xfb, 0xff, 0xfe, 0x00, 0x3e, 0x3f]))
        let text = WireRoute.encodeToken(token)
        #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
        #expect(try WireRoute.decodeToken(text) == token)
        #expect(throws: SyncError.self) { try WireRoute.decodeToken("not base64!") }
        #expect(throws: SyncError.self) { try WireRoute.decodeToken("a+b/") }
    }

    @Test func pathSegmentsArePercentEncoded() {
        #expect(WireRoute.zone(ZoneID("My Docs")) == "/v1/zones/My%20Docs")
        #expect(WireRoute.segment("a/b?c#d") == "a%2Fb%3Fc%23d")
        #expect(WireRoute.segment("Ünï") == "%C3%9Cn%C3%AF")
    }
}
