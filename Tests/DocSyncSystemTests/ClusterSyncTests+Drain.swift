import DocSyncCore
import DocSyncHTTP
import DocSyncTestSupport
import Foundation
import Testing

extension ClusterSyncTests {
    /// SIGTERM to an instance behind the balancer: its `/readyz` answers 503 at once while it
    /// goes on serving, so HAProxy takes it out on a failed check (not on a refused
    /// connection) before it closes, and a device's requests through the balancer all
    /// succeed meanwhile.
    @Test func anInstanceStoppedBehindTheBalancerIsTakenOutBeforeItCloses() async throws {
        let cluster = try await Cluster.start(extraArguments: ["--trusted-proxy", "127.0.0.1"], drainDelay: "5s")
        do {
            let balancer = try await BalancerProcess(instances: [cluster.first, cluster.second])
            let token = try await cluster.first.addUser("ana")
            let device = try HTTPBackend(url: balancer.url, token: token, options: .init(trustedCertificateFile: balancer.certificate))
            try await device.createZone(ZoneID("Docs"))

            let first = cluster.first
            let stopping = Task { try await first.stop(signal: SIGTERM, timeout: .seconds(30)) }
            var requests = 0
            var failures: [String] = []
            while first.isRunning {
                do {
                    _ = try await device.listZones()
                } catch {
                    failures.append(error.message)
                }
                requests += 1
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await stopping.value == 0, "log:\n\(first.log)")
            #expect(requests > 20, "requests went on for the whole drain")
            let log = (try? String(contentsOf: balancer.directory.url.appendingPathComponent("haproxy.log"), encoding: .utf8)) ?? ""
            #expect(failures.isEmpty, "\(failures.count) of \(requests) requests failed: \(failures.prefix(3)); HAProxy's log:\n\(log)")
            #expect(log.contains("s1 is DOWN, reason: Layer7 wrong status, code: 503"),
                    "HAProxy took s1 out on its 503, before it stopped accepting; its log:\n\(log)")
            #expect(try await device.listZones() == [ZoneID("Docs")], "the other instance serves on")
            await device.shutdown()
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }
}
