import DocSyncTestSupport
import Testing

@Suite struct LocalBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws { try await check.run(with: LocalBackendFixtureFactory()) }
}

/// The suite through the fault-injecting wrapper with latency only: the wrapper itself must
/// not change what a backend means.
@Suite struct FaultInjectingBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws {
        try await check.run(with: FaultInjectingFixtureFactory(wrapping: LocalBackendFixtureFactory(), plan: FaultPlan(latency: .milliseconds(1))))
    }
}
