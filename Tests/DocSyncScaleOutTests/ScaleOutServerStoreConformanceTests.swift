import DocSyncTestSupport
import Testing

/// The server-store suite against the scale-out store: PostgreSQL and S3, two instances.
@Suite struct ScaleOutServerStoreConformanceTests {
    @Test(arguments: ServerStoreCase.allCases)
    func conforms(_ check: ServerStoreCase) async throws { try await check.run(with: ScaleOutServerStoreFactory()) }
}
