import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Two `docsync-server` instances on one scale-out store (a fresh PostgreSQL database and S3
/// bucket), each with a daemon of the same user: whatever one instance takes reaches the
/// other's devices, through PostgreSQL's LISTEN/NOTIFY.
@Suite("Two daemons through two instances of the scale-out store", .serialized)
struct ClusterSyncTests {
    /// Two instances on a fresh store; the storage is closed (database and bucket removed) by `close`.
    struct Cluster {
        let storage: ScaleOutTestStorage
        let logs: TemporaryDirectory
        let first: ServerProcess
        let second: ServerProcess

        /// `drainDelay` is the instances' `--drain-delay`: none by default, since most tests
        /// stop them with no balancer in front to wait for.
        static func start(extraArguments: [String] = [], drainDelay: String = "0") async throws -> Cluster {
            let storage = try await ScaleOutTestStorage.make()
            let logs = try TemporaryDirectory("docsync-cluster")
            func instance(_ name: String) async throws -> ServerProcess {
                try await ServerProcess(dataDirectory: logs.url.appendingPathComponent(name), extraArguments: ["--drain-delay", drainDelay] + extraArguments,
                                        storeArguments: storage.serverArguments, environment: storage.serverEnvironment)
            }
            return Cluster(storage: storage, logs: logs, first: try await instance("first"), second: try await instance("second"))
        }

        func close() async {
            _ = try? await first.stop()
            _ = try? await second.stop()
            await storage.close()
        }
    }

    @Test func createEditRenameDeleteAndAConflictConvergeAcrossInstances() async throws {
        let cluster = try await Cluster.start()
        do {
            let pair = try await DevicePair(servers: (cluster.first, cluster.second), user: "ana")
            try pair.startBoth()
            try await pair.createEditRenameDeleteAndAConflict()
            await pair.stopBoth()
            #expect(try await cluster.first.stop() == 0, "SIGTERM stops an instance cleanly")
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    /// SIGTERM while a device's push stream is open: the instance ends the stream and exits 0.
    @Test func anInstanceStopsCleanlyWithAPushStreamOpen() async throws {
        let cluster = try await Cluster.start()
        do {
            let token = try await cluster.first.addUser("ana")
            let device = try HTTPBackend(url: cluster.first.url, token: token)
            try await device.createZone(ZoneID("Docs"))
            let heard = NotificationCollector(device.changeNotifications())
            #expect(await eventually(timeout: .seconds(60)) { heard.zones.contains(ZoneID("Docs")) }, "the push stream is open")
            #expect(try await cluster.first.stop() == 0, "log:\n\(cluster.first.log)")
            await device.shutdown()
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    @Test func aUserSeesNothingOfAnotherAndAWrongTokenIsRefusedByEveryInstance() async throws {
        let cluster = try await Cluster.start()
        do {
            let ana = try await cluster.first.addUser("ana")
            let bob = try await cluster.second.addUser("bob")
            #expect(try await cluster.first.userCommand(["list"]) == "ana\t1 token\tno quota\nbob\t1 token\tno quota", "one list, whichever instance")
            let anaOnSecond = try HTTPBackend(url: cluster.second.url, token: ana)
            let bobOnFirst = try HTTPBackend(url: cluster.first.url, token: bob)
            try await anaOnSecond.createZone(ZoneID("Docs"))
            _ = try await anaOnSecond.save(TestRecords.folder(ZoneID("Docs"), "private"))
            #expect(try await bobOnFirst.listZones().isEmpty, "bob sees none of ana's zones")
            await expectSyncError(.zoneNotFound) { try await bobOnFirst.fetchChanges(in: ZoneID("Docs"), since: nil, limit: 10) }
            for instance in [cluster.first, cluster.second] {
                await expectSyncError(.notAuthenticated) { try await HTTPBackend(url: instance.url, token: "not-a-token").listZones() }
            }
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    @Test func killingAnInstanceMidSyncLosesNothing() async throws {
        let cluster = try await Cluster.start()
        do {
            let pair = try await DevicePair(servers: (cluster.first, cluster.second), user: "ana")
            try pair.startBoth()
            let total = 400
            try FileManager.default.createDirectory(at: pair.a.file("many"), withIntermediateDirectories: false)
            for index in 0 ..< total {
                try "file \(index)\n".write(to: pair.a.file("many/f\(index).txt"), atomically: false, encoding: .utf8)
            }
            try Data((0 ..< 4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 131) }).write(to: pair.a.file("large.bin"))
            // Some of it has arrived through the second instance: the first is in the middle of taking it.
            let store = try await cluster.storage.open()
            let midway = await eventually(timeout: .seconds(60), pollEvery: .milliseconds(2)) {
                guard let account = try? await store.accountID(named: "ana"), let usage = try? await store.backend(account: account).usage()
                else { return false }
                return usage.recordCount > 2
            }
            #expect(midway)
            #expect(try await cluster.first.stop(signal: SIGKILL) == SIGKILL, "killed")
            let replacement = try await ServerProcess(dataDirectory: cluster.logs.url.appendingPathComponent("replacement"),
                                                      listen: "127.0.0.1:\(cluster.first.port)", storeArguments: cluster.storage.serverArguments,
                                                      environment: cluster.storage.serverEnvironment)
            await pair.converge(timeout: .seconds(120), "after an instance was killed", also: {
                syncedNames(pair.b.file("many")).count == total && FileManager.default.fileExists(atPath: pair.b.file("large.bin").path)
            })
            #expect(syncedNames(pair.b.folder).sorted() == ["large.bin", "many"], "no conflict copy, no duplicate")
            let account = try #require(try await store.accountID(named: "ana"))
            #expect(try await store.backend(account: account).usage().recordCount == total + 2, "one record per file and directory")
            await pair.stopBoth()
            _ = try await replacement.stop()
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    @Test func twoDaemonsBehindTheBalancerConvergeAndAnInstanceMayDie() async throws {
        let cluster = try await Cluster.start(extraArguments: ["--trusted-proxy", "127.0.0.1"])
        do {
            let balancer = try await BalancerProcess(instances: [cluster.first, cluster.second])
            let pair = try await DevicePair(servers: (cluster.first, cluster.second), user: "ana",
                                            extraArguments: ["--ca-file", balancer.certificate.path], backend: balancer.url)
            try pair.startBoth()
            let a = pair.a, b = pair.b
            try "hello\n".write(to: a.file("notes.txt"), atomically: false, encoding: .utf8)
            await pair.converge("create through the balancer")
            try overwrite(b.file("notes.txt"), "edited on beta\n")
            await pair.converge("edit")
            try FileManager.default.moveItem(at: a.file("notes.txt"), to: a.file("renamed.txt"))
            await pair.converge("rename")
            #expect(contents(b.file("renamed.txt")) == "edited on beta\n")
            // One instance dies: the balancer sends everything to the other.
            #expect(try await cluster.first.stop(signal: SIGKILL) == SIGKILL)
            try "after the kill\n".write(to: b.file("after.txt"), atomically: false, encoding: .utf8)
            try FileManager.default.removeItem(at: a.file("renamed.txt"))
            await pair.converge(timeout: .seconds(90), "after an instance died", also: {
                contents(a.file("after.txt")) == "after the kill\n" && !FileManager.default.fileExists(atPath: b.file("renamed.txt").path)
            })
            #expect(syncedNames(a.folder).sorted() == ["after.txt"])
            await pair.stopBoth()
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    @Test func theRateLimitHoldsAcrossInstances() async throws {
        // 1 request a second, bursts of 10. Alternating between two instances, a device that
        // each instance limited on its own could make 20 requests at once, and 2 a second after.
        let cluster = try await Cluster.start(extraArguments: ["--rate-limit", "1"])
        do {
            let token = try await cluster.first.addUser("ana")
            let clients = [try HTTPBackend(url: cluster.first.url, token: token), try HTTPBackend(url: cluster.second.url, token: token)]
            let guesses = [try HTTPBackend(url: cluster.first.url, token: "guess"), try HTTPBackend(url: cluster.second.url, token: "guess")]
            for (label, backends, admittedCode) in [("a device", clients, SyncError.Code?.none), ("token guesses from one address", guesses, .notAuthenticated)] {
                let started = ContinuousClock.now
                var codes: [SyncError.Code?] = []
                for index in 0 ..< 40 { codes.append(await Self.listZones(backends[index % 2])?.code) }
                let elapsed = Double((ContinuousClock.now - started).components.seconds) + 1
                let admitted = codes.filter { $0 == admittedCode }.count
                #expect(codes.allSatisfy { $0 == admittedCode || $0 == .requestRateLimited }, "\(label): \(codes)")
                #expect(Double(admitted) <= 10 + elapsed + 1,
                        "\(label): \(admitted) admitted in \(elapsed) s; one shared bucket of 10 refilled at 1 a second allows no more")
            }
        } catch {
            await cluster.close()
            throw error
        }
        await cluster.close()
    }

    /// The error of one `listZones` call, `nil` when it succeeded.
    static func listZones(_ client: HTTPBackend) async -> SyncError? {
        do {
            _ = try await client.listZones()
            return nil
        } catch {
            return error
        }
    }
}
