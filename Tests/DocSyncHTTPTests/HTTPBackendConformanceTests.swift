import DocSyncTestSupport
import Testing

/// The backend conformance suite through `HTTPBackend` against a real docsync-server process.
@Suite struct HTTPBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws { try await check.run(with: HTTPBackendFixtureFactory()) }
}
