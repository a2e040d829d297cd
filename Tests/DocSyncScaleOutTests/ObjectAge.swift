import DocSyncS3
import DocSyncTestSupport
import Foundation

/// Waits (at most 5 s) until each object of `keys` has a last-modified time before now, and
/// returns whether they all do. The test store (Swift's s3api) gives that time rounded up
/// to the next second, so an object just written looks newer than now for up to a second,
/// and a collection without a grace period would rightly leave it; a test that wants it
/// swept waits for this first.
func waitUntilPast(_ keys: [String], in objects: S3Client) async throws -> Bool {
    try await eventually(timeout: .seconds(5), pollEvery: .milliseconds(50)) {
        let listed = try await objects.listAllObjects(prefix: "").filter { keys.contains($0.key) }
        return listed.count == keys.count && listed.allSatisfy { $0.lastModified < Date() }
    }
}
