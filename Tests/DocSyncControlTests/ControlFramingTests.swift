import DocSyncCore
import Foundation
import Testing

@testable import DocSyncControl

@Suite struct ControlFramingTests {
    static let status = DaemonStatus(
        device: "laptop", backend: "file:///srv/docsync", account: "signed in",
        folders: [
            FolderStatus(
                id: "Documents", path: "/home/ada/Documents", state: .syncing, message: "uploading\nline two",
                items: 12, pendingUploads: 2, pendingUploadBytes: 2_000_000, pendingDownloads: 1, pendingDownloadBytes: 512,
                conflicts: 1, problems: [ItemProblem(path: "big.iso", message: "file is 60 MB, over max_file_size (50 MB): not synced")],
                lastSync: Date(timeIntervalSince1970: 1_790_000_000.25)
            ),
            FolderStatus(id: "Pictures", path: "/home/ada/Pictures", state: .idle),
        ]
    )

    @Test(arguments: [ControlRequest.status, .wait(timeoutSeconds: 2.5)])
    func requestRoundTrip(_ request: ControlRequest) throws {
        let frame = try ControlFraming.frame(request)
        #expect(frame.last == UInt8(ascii: "\n"))
        #expect(frame.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(try ControlFraming.decodeRequest(frame.dropLast()) == request)
    }

    @Test(arguments: [
        ControlResponse.status(ControlFramingTests.status), .settled(ControlFramingTests.status),
        .failure(code: "timeout", message: "not settled after 3 s:\nDocuments is syncing"),
    ])
    func responseRoundTripIsOneLine(_ response: ControlResponse) throws {
        let frame = try ControlFraming.frame(response)
        #expect(frame.last == UInt8(ascii: "\n"))
        #expect(frame.dropLast().contains(UInt8(ascii: "\n")) == false, "newlines inside strings are escaped")
        #expect(try ControlFraming.decodeResponse(frame.dropLast()) == response)
        #expect(response.isFinal)
    }

    @Test func wireFormIsDocumentedJSON() throws {
        #expect(String(decoding: try ControlFraming.frame(ControlRequest.status), as: UTF8.self) == "{\"status\":{}}\n")
        #expect(String(decoding: try ControlFraming.frame(ControlRequest.wait(timeoutSeconds: 30)), as: UTF8.self) == "{\"wait\":{\"timeoutSeconds\":30}}\n")
        let withDate = try ControlFraming.frame(ControlResponse.status(Self.status))
        #expect(String(decoding: withDate, as: UTF8.self).contains("\"lastSync\":\"2026-09-21T14:13:20.250Z\""))
        // Dates without fractional seconds are read too.
        let plain = Data(#"{"device":"d","backend":"b","account":"a","folders":[{"id":"A","path":"/a","state":"idle","items":0,"pendingUploads":0,"pendingUploadBytes":0,"pendingDownloads":0,"pendingDownloadBytes":0,"conflicts":0,"problems":[],"lastSync":"2026-09-21T14:13:20Z"}]}"#.utf8)
        let decoded = try ControlFraming.makeDecoder().decode(DaemonStatus.self, from: plain)
        #expect(decoded.folders[0].lastSync == Date(timeIntervalSince1970: 1_790_000_000))
    }

    @Test func unknownCallIsToldApartFromMalformedLines() {
        #expect(throws: ControlFramingError.unknownRequest("fly")) { try ControlFraming.decodeRequest(Array(#"{"fly":{}}"#.utf8)) }
        for line in ["not json", "{}", "[1,2]", #"{"wait":{}}"#, #"{"wait":{"timeoutSeconds":"soon"}}"#, #"{"status":{},"wait":{}}"#] {
            do throws(ControlFramingError) {
                _ = try ControlFraming.decodeRequest(Array(line.utf8))
                Issue.record("\(line) was decoded")
            } catch {
                guard case .malformed = error else {
                    Issue.record("\(line): \(error)")
                    continue
                }
            }
        }
        #expect(ControlFramingError.unknownRequest("fly").failureResponse.failureCode == "unknownRequest")
        #expect(ControlFramingError.malformed("x").failureResponse.failureCode == "badRequest")
        #expect(ControlFramingError.lineTooLong(limit: 10).failureResponse.failureCode == "badRequest")
    }

    @Test func malformedMessageNamesTheField() throws {
        do {
            _ = try ControlFraming.decodeRequest(Array(#"{"wait":{"timeoutSeconds":"soon"}}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(error.description.contains("wait.timeoutSeconds"), "\(error)")
        }
    }

    @Test func lineBufferCutsLinesAcrossAppends() throws {
        var buffer = ControlLineBuffer(limit: 100)
        buffer.append(Array("{\"a\":".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array("1}\n{\"b\":2}\n{\"c\"".utf8))
        #expect(try buffer.nextLine() == Array("{\"a\":1}".utf8))
        #expect(try buffer.nextLine() == Array("{\"b\":2}".utf8))
        #expect(try buffer.nextLine() == nil)
        #expect(!buffer.isEmpty)
        buffer.append(Array(":3}\n".utf8))
        #expect(try buffer.nextLine() == Array("{\"c\":3}".utf8))
        #expect(buffer.isEmpty)
    }

    @Test func lineBufferRefusesOverlongLines() throws {
        var exact = ControlLineBuffer(limit: 8)
        exact.append(Array("12345678\n".utf8))
        #expect(try exact.nextLine() == Array("12345678".utf8), "a line of exactly the limit is fine")

        var growing = ControlLineBuffer(limit: 8)
        growing.append(Array("12345678".utf8))
        #expect(try growing.nextLine() == nil)
        growing.append([UInt8(ascii: "9")])
        #expect(throws: ControlFramingError.lineTooLong(limit: 8)) { try growing.nextLine() }

        var whole = ControlLineBuffer(limit: 8)
        whole.append(Array("ok\n123456789\n".utf8))
        #expect(try whole.nextLine() == Array("ok".utf8))
        #expect(throws: ControlFramingError.lineTooLong(limit: 8)) { try whole.nextLine() }
    }

    @Test func frameRefusesValuesOverTheLimit() throws {
        #expect(ControlFraming.maximumLineLength == 16 * 1024 * 1024)
        let frame = try ControlFraming.frame(ControlResponse.failure(code: "x", message: "12345"), limit: 42)
        #expect(frame.count == 43, "42 bytes of JSON and the newline")
        #expect(throws: ControlFramingError.lineTooLong(limit: 41)) {
            try ControlFraming.frame(ControlResponse.failure(code: "x", message: "12345"), limit: 41)
        }
    }
}

extension ControlResponse {
    /// The `code` of a `.failure`, else `nil`.
    var failureCode: String? {
        if case .failure(let code, _) = self { return code }
        return nil
    }
}
