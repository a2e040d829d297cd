import DocSyncTestSupport
import Testing

@Suite struct MemoryBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws { try await check.run(with: MemoryBackendFixtureFactory()) }
}

/// The suite on the memory backend through the fault-injecting wrapper with latency only,
/// as a simulation stacks them.
@Suite struct FaultInjectingMemoryBackendConformanceTests {
    @Test(arguments: ConformanceCase.allCases)
    func conforms(_ check: ConformanceCase) async throws {
        try await check.run(with: FaultInjectingFixtureFactory(wrapping: MemoryBackendFixtureFactory(), plan: FaultPlan(latency: .milliseconds(1))))
    }
}
