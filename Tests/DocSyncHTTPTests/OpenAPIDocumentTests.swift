import DocSyncCore
import DocSyncHTTP
import Foundation
import Testing

/// `Sources/DocSyncServer/openapi.yaml` stays true to the code: every route of `WireRoute`
/// is documented (of the caller's own zones, of the zones shared with it, of sharing), and
/// so is every error code and its status.
@Suite struct OpenAPIDocumentTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("Sources/DocSyncServer/openapi.yaml"), encoding: .utf8)) ?? ""
    }()

    @Test func everyRouteIsDocumented() {
        let zone = ZoneID("ZONE"), digest = SHA256Digest(hashing: Data())
        let database = [
            WireRoute.zones, WireRoute.zone(zone), WireRoute.move(zone), WireRoute.modify(zone), WireRoute.changes(zone), WireRoute.lookup(zone),
            WireRoute.missingChunks, WireRoute.chunk(digest), WireRoute.uploadBatch, WireRoute.downloadBatch,
            WireRoute.notifications, WireRoute.deleted(zone), WireRoute.recover(zone), WireRoute.purge(zone),
        ]
        let share = ShareName(owner: "OWNER", zone: zone)
        let sharing = [WireRoute.usage, WireRoute.share(zone), WireRoute.shares] + WireRoute.ShareAnswer.allCases.map { WireRoute.answer(share, $0) }
        let routes = (database + database.map { WireRoute.shared(by: "OWNER", $0) } + sharing).map {
            $0.replacingOccurrences(of: "ZONE", with: "{zone}").replacingOccurrences(of: digest.hex, with: "{digest}")
                .replacingOccurrences(of: "OWNER", with: "{owner}")
        }
        for route in routes {
            #expect(Self.document.contains("\n  \(route):\n"), "\(route) is a path of openapi.yaml")
        }
        let documented = Self.document.split(separator: "\n").filter { $0.hasPrefix("  /v1/") }
        #expect(documented.count == routes.count, "openapi.yaml documents no route the code lacks")
    }

    @Test(arguments: SyncError.Code.allCases)
    func everyErrorCodeAndItsStatusIsDocumented(_ code: SyncError.Code) {
        #expect(Self.document.contains(code.rawValue))
        let statusLine = Self.document.split(separator: "\n").first { line in
            line.contains("\(WireStatus.status(for: code)) ") && line.contains(code.rawValue)
        }
        #expect(statusLine != nil, "openapi.yaml gives \(code.rawValue) status \(WireStatus.status(for: code))")
    }
}
