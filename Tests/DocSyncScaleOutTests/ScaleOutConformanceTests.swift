import DocSyncTestSupport
import Testing

/// The conformance suite, unchanged, against the scale-out store on real PostgreSQL and S3.
@Suite struct ScaleOutConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws { try await check.run(with: ScaleOutFixtureFactory()) }
}
