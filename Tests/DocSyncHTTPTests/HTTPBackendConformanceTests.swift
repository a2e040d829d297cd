import DocSyncTestSupport
import Testing

/// The backend conformance suite through `HTTPBackend`: against a real docsync-server
/// process (the embedded store), and against its routes served in this process over each
/// server store.
@Suite struct HTTPBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws { try await check.run(with: HTTPBackendFixtureFactory()) }

    @Test(arguments: ConformanceCase.allCases, StoreKind.allCases)
    func conformsServedInProcess(_ check: ConformanceCase, _ kind: StoreKind) async throws {
        try await check.run(with: ServedBackendFixtureFactory(kind: kind))
    }
}
