import AsyncHTTPClient
import DocSyncCore
import DocSyncHTTP
import DocSyncPlatform
import DocSyncScaleOut
import DocSyncStorage
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The load test of the scale-out store: many simulated devices, each a task of this
/// process with its own `HTTPBackend` (its own token and connections), saving small
/// batches and fetching changes in a loop for a fixed time, as fast as they are answered
/// (a closed loop: no pause between requests, so the figures are what the machine
/// sustains with that many devices at once). Users have ten devices each, sharing one
/// zone, so every device fetches the others' saves. Run against (A) one instance, devices
/// connected directly over HTTP, and (B) two instances behind HAProxy
/// (`config/cluster/haproxy.cfg.template`, TLS with a self-signed certificate), each on a
/// fresh database and bucket. Reports records saved per second, fetches per second, the
/// latency of saves (upload + modify) and fetches (every page), errors by code, the CPU
/// seconds of each process concerned (instances, HAProxy, PostgreSQL, the S3 store, this
/// process) and of the whole machine, against its capacity (cores × seconds).
/// Needs PostgreSQL and S3 as `ClusterBench` does (`make bench-load` starts them).
enum LoadBench {
    struct Report: Encodable {
        let devices: Int
        let users: Int
        let devicesPerUser: Int
        let filesPerSave: Int
        let fileBytes: String
        let secondsPerConfiguration: Int
        let cores: Int
        let oneInstance: Configuration
        let twoInstances: Configuration
    }

    struct Configuration: Encodable {
        let label: String
        let instances: Int
        /// Where the devices connect.
        let url: String
        /// From the first request of the timed loop to the last answer.
        let seconds: Double
        let saves: Int
        let recordsSaved: Int
        let recordsPerSecond: Double
        let savesPerSecond: Double
        let fetches: Int
        let fetchesPerSecond: Double
        let recordsFetched: Int
        let saveP50Milliseconds: Double
        let saveP99Milliseconds: Double
        /// The two halves of a save: the chunks' upload and the records' modify.
        let uploadP50Milliseconds: Double
        let uploadP99Milliseconds: Double
        let modifyP50Milliseconds: Double
        let modifyP99Milliseconds: Double
        let fetchP50Milliseconds: Double
        let fetchP99Milliseconds: Double
        /// Failed calls and failed items, by `SyncError` code.
        let errors: [String: Int]
        /// The first message of each code.
        let errorMessages: [String: String]
        let cpu: CPU
        let perRecord: PerRecord
        /// Seconds to issue the users' tokens (`docsync-server user add/token`, not timed above).
        let tokenSeconds: Double
        /// This process's resident memory after the run (200 `HTTPBackend`s and their connections).
        let benchResidentMegabytes: Double
    }

    /// CPU seconds over the timed loop.
    struct CPU: Encodable {
        let instances: [Double]
        let haproxy: Double?
        /// The postmaster and its backends (`DOCSYNC_PG_PID`), when known.
        let postgres: Double?
        /// The S3 store's processes and their children (`DOCSYNC_S3_PIDS`), when known.
        let s3: Double?
        /// The same by process name (the Swift proxy, object, container and account servers, memcached).
        let s3Processes: [String: Double]
        /// This process: the simulated devices.
        let bench: Double
        /// Every CPU of the machine (/proc/stat, everything but idle and iowait).
        let machine: Double
        /// What the machine spent beyond the processes above (the kernel's own work, others' processes).
        let other: Double
        /// The busiest of those other processes, by name (processes that ended during the run are missing).
        let otherProcesses: [String: Double]
        /// Cores × seconds.
        let capacity: Double
        /// machine / capacity.
        let machineFraction: Double
    }

    /// Per record saved (and fetched by the user's nine other devices), summed over instances.
    struct PerRecord: Encodable {
        let statements: Double
        let s3Requests: Double
        let httpRequests: Double
        let instanceCPUMilliseconds: Double
        let machineCPUMilliseconds: Double
    }

    static let devicesPerUser = 10
    static let filesPerSave = 3
    static let fileSizes = 1024...4096

    static func run(base: URL, devices: Int, seconds: Int) async throws -> Report {
        let bench = try BenchServices.fromEnvironment(for: "the load test")
        let services = Services(postgres: bench.postgresPIDs, s3: bench.s3PIDs)
        let tools = try Tools.find()
        let credentials = base.appendingPathComponent("s3.credentials")
        try Data("access_key = \"\(bench.s3AccessKey)\"\nsecret_key = \"\(bench.s3SecretKey)\"\n".utf8).write(to: credentials)
        chmod(credentials.path, 0o600)
        let users = (devices + devicesPerUser - 1) / devicesPerUser
        print("\(devices) devices (\(users) users × up to \(devicesPerUser), one zone per user), each saving \(filesPerSave) files of 1–4 KiB "
              + "(one upload, one modify) then fetching changes, in a loop for \(seconds) s; rate limit 100,000/s")
        if services.postgres == nil || services.s3 == nil {
            print("(DOCSYNC_PG_PID / DOCSYNC_S3_PIDS not set: PostgreSQL's and the S3 store's CPU are counted under other)")
        }

        var results: [Configuration] = []
        for (label, instances) in [("one instance", 1), ("two instances behind HAProxy", 2)] {
            let name = BenchServices.storeName("docsync_load")
            let database = try await bench.makeDatabase(name)
            let outcome: Result<Configuration, any Error>
            do {
                let configFile = base.appendingPathComponent("\(name).toml")
                try Data("""
                    # docsync-bench --only load: the instances and the user commands read this file.
                    rate_limit = 100000
                    trusted_proxies = ["127.0.0.1"]
                    [storage]
                    records = "\(database.url)"
                    chunks = "\(bench.chunks(for: name))"
                    credentials = "\(credentials.path)"

                    """.utf8).write(to: configFile)
                print("\n== \(label) ==")
                outcome = .success(try await measure(label: label, instances: instances, base: base.appendingPathComponent(name),
                                                     configFile: configFile, devices: devices, seconds: seconds, services: services, tools: tools))
            } catch {
                outcome = .failure(error)
            }
            await bench.dropDatabase(name)
            results.append(try outcome.get())
        }
        let (one, two) = (results[0], results[1])
        print(String(format: "\ntwo instances / one: %.2f× the records/s, save p50 %.2f×, fetch p50 %.2f×; machine busy %.0f%% and %.0f%% of %d cores",
                     two.recordsPerSecond / max(one.recordsPerSecond, 1e-9), two.saveP50Milliseconds / max(one.saveP50Milliseconds, 1e-9),
                     two.fetchP50Milliseconds / max(one.fetchP50Milliseconds, 1e-9), one.cpu.machineFraction * 100, two.cpu.machineFraction * 100, cores))
        return Report(devices: devices, users: users, devicesPerUser: devicesPerUser, filesPerSave: filesPerSave,
                      fileBytes: "\(fileSizes.lowerBound)-\(fileSizes.upperBound)", secondsPerConfiguration: seconds, cores: cores,
                      oneInstance: one, twoInstances: two)
    }

    /// One configuration on a fresh store: instances, tokens, the balancer (for two), the devices.
    static func measure(label: String, instances count: Int, base: URL, configFile: URL, devices: Int, seconds: Int,
                        services: Services, tools: Tools) async throws -> Configuration {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        // One after the other: the first migrates the schema and creates the bucket.
        var servers: [BenchServer] = []
        defer { for server in servers { server.stop() } }
        for index in 1 ... count {
            let server = try BenchServer(base: base, name: "s\(index)", storeArguments: ["--config", configFile.path])
            try server.start(addUser: false)
            servers.append(server)
        }
        let tokenStart = ContinuousClock.now
        let tokens = try await issueTokens(executable: tools.server, configFile: configFile, devices: devices)
        let tokenSeconds = (ContinuousClock.now - tokenStart) / .seconds(1)
        print(String(format: "%d users and %d device tokens issued in %.1f s (docsync-server user add/token)", tokens.count,
                     tokens.reduce(0) { $0 + $1.count }, tokenSeconds))

        var balancer: Balancer?
        defer { balancer?.stop() }
        let url: URL
        var options = HTTPBackend.Options()
        if count == 1 {
            url = ClusterBench.url(servers[0].port)
        } else {
            let started = try await Balancer.start(base: base.appendingPathComponent("haproxy"), servers: servers.map(\.port), tools: tools)
            balancer = started
            url = URL(string: "https://127.0.0.1:\(started.port)")!
            options.trustedCertificateFile = started.certificate
            print("HAProxy \(started.version) on \(url.absoluteString) (TLS, round-robin over \(servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ", ")); both UP)")
        }

        // The devices: a backend each, each user's zone made, a first fetch (connections and
        // TLS handshakes happen here, before the timed loop).
        let zone = ZoneID("Load")
        var fleet: [Device] = []
        for (user, userTokens) in tokens.enumerated() {
            for (index, token) in userTokens.enumerated() {
                fleet.append(Device(name: String(format: "u%02d-d%d", user, index), user: user,
                                    backend: try HTTPBackend(url: url, token: token, options: options)))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in fleet where device.name.hasSuffix("-d0") {
                group.addTask { try await device.backend.createZone(zone) }
            }
            try await group.waitForAll()
        }
        let startTokens = try await withThrowingTaskGroup(of: (Int, ChangeToken).self) { group in
            for (index, device) in fleet.enumerated() {
                group.addTask { (index, try await device.backend.fetchChanges(in: zone, since: nil, limit: StorageLimits.maximumPageSize).token) }
            }
            var tokens = [ChangeToken?](repeating: nil, count: fleet.count)
            for try await (index, token) in group { tokens[index] = token }
            return tokens
        }
        print("\(fleet.count) devices connected to \(url.absoluteString); measuring for \(seconds) s…")

        let instancePIDs = servers.map(\.pid)
        let metricsBefore = try await servers.asyncMap { try await ClusterBench.scrape($0.port) }
        let before = Snapshot.take(instances: instancePIDs, haproxy: balancer?.pid, services: services)
        let deadline = before.at + .seconds(seconds)
        let tallies = await withTaskGroup(of: Tally.self) { group in
            for (index, device) in fleet.enumerated() {
                let token = startTokens[index]
                group.addTask { await drive(device, zone: zone, token: token, until: deadline) }
            }
            var all: [Tally] = []
            for await tally in group { all.append(tally) }
            return all
        }
        let after = Snapshot.take(instances: instancePIDs, haproxy: balancer?.pid, services: services)
        let metricsAfter = try await servers.asyncMap { try await ClusterBench.scrape($0.port) }
        // (On the way out by an error, each backend closes its connections when dropped.)
        for device in fleet { await device.backend.shutdown() }

        // Figures.
        let elapsed = (after.at - before.at) / .seconds(1)
        var total = Tally()
        for tally in tallies { total.merge(tally) }
        let saveLatencies = total.saveLatencies.sorted()
        let fetchLatencies = total.fetchLatencies.sorted()
        let uploadLatencies = total.uploadLatencies.sorted()
        let modifyLatencies = total.modifyLatencies.sorted()
        let capacity = Double(cores) * elapsed
        let instanceCPU = zip(after.instances, before.instances).map { $0 - $1 }
        let haproxyCPU = after.haproxy.flatMap { a in before.haproxy.map { a - $0 } }
        let postgresCPU = after.postgres.flatMap { a in before.postgres.map { a - $0 } }
        let s3CPU = after.s3.flatMap { a in before.s3.map { a - $0 } }
        let benchCPU = after.bench - before.bench
        let machineCPU = after.machine - before.machine
        let known = instanceCPU.reduce(0, +) + (haproxyCPU ?? 0) + (postgresCPU ?? 0) + (s3CPU ?? 0) + benchCPU
        let knownPIDs = instancePIDs + [getpid()] + (balancer.map { [$0.pid] } ?? []) + (services.postgres ?? []) + (services.s3 ?? [])
        let cpu = CPU(instances: instanceCPU, haproxy: haproxyCPU, postgres: postgresCPU, s3: s3CPU,
                      s3Processes: byName(services.s3 ?? [], before: before.table, after: after.table), bench: benchCPU,
                      machine: machineCPU, other: machineCPU - known,
                      otherProcesses: busiestOthers(before: before.table, after: after.table, known: knownPIDs),
                      capacity: capacity, machineFraction: machineCPU / capacity)
        func delta(_ prefix: String) -> Double { ClusterBench.rise(prefix, from: metricsBefore, to: metricsAfter) }
        let records = Double(max(total.recordsSaved, 1))
        let perRecord = PerRecord(statements: delta("docsync_postgres_statements_total") / records,
                                  s3Requests: delta("docsync_s3_requests_total") / records,
                                  httpRequests: delta("hb_requests") / records,
                                  instanceCPUMilliseconds: instanceCPU.reduce(0, +) * 1000 / records,
                                  machineCPUMilliseconds: machineCPU * 1000 / records)
        let configuration = Configuration(
            label: label, instances: count, url: url.absoluteString, seconds: elapsed, saves: total.saves, recordsSaved: total.recordsSaved,
            recordsPerSecond: Double(total.recordsSaved) / elapsed, savesPerSecond: Double(total.saves) / elapsed,
            fetches: total.fetches, fetchesPerSecond: Double(total.fetches) / elapsed, recordsFetched: total.recordsFetched,
            saveP50Milliseconds: percentile(saveLatencies, 0.50), saveP99Milliseconds: percentile(saveLatencies, 0.99),
            uploadP50Milliseconds: percentile(uploadLatencies, 0.50), uploadP99Milliseconds: percentile(uploadLatencies, 0.99),
            modifyP50Milliseconds: percentile(modifyLatencies, 0.50), modifyP99Milliseconds: percentile(modifyLatencies, 0.99),
            fetchP50Milliseconds: percentile(fetchLatencies, 0.50), fetchP99Milliseconds: percentile(fetchLatencies, 0.99),
            errors: total.errors, errorMessages: total.errorMessages, cpu: cpu, perRecord: perRecord, tokenSeconds: tokenSeconds,
            benchResidentMegabytes: residentMegabytes())
        for line in configuration.lines { print(line) }
        guard total.recordsSaved > 0 else {
            throw BenchError("\(label): no record was saved; errors: \(total.errorMessages)")
        }
        return configuration
    }

    // MARK: - One device

    struct Device: Sendable {
        let name: String
        let user: Int
        let backend: HTTPBackend
    }

    /// What one device did in the timed loop (latencies in milliseconds).
    struct Tally: Sendable {
        var saveLatencies: [Double] = []
        var uploadLatencies: [Double] = []
        var modifyLatencies: [Double] = []
        var fetchLatencies: [Double] = []
        var saves = 0
        var recordsSaved = 0
        var fetches = 0
        var recordsFetched = 0
        var errors: [String: Int] = [:]
        var errorMessages: [String: String] = [:]

        mutating func count(_ error: any Error) {
            let code = (error as? SyncError)?.code.rawValue ?? "other"
            errors[code, default: 0] += 1
            if errorMessages[code] == nil { errorMessages[code] = (error as? SyncError)?.message ?? "\(error)" }
        }

        mutating func merge(_ other: Tally) {
            saveLatencies += other.saveLatencies
            uploadLatencies += other.uploadLatencies
            modifyLatencies += other.modifyLatencies
            fetchLatencies += other.fetchLatencies
            saves += other.saves
            recordsSaved += other.recordsSaved
            fetches += other.fetches
            recordsFetched += other.recordsFetched
            errors.merge(other.errors, uniquingKeysWith: +)
            errorMessages.merge(other.errorMessages) { first, _ in first }
        }
    }

    /// Saves a batch of new files and fetches what changed since its token, until `deadline`
    /// (a round under way then is finished). A failed call is counted and the round starts
    /// again after 100 ms.
    static func drive(_ device: Device, zone: ZoneID, token: ChangeToken?, until deadline: ContinuousClock.Instant) async -> Tally {
        var tally = Tally()
        var token = token
        var generator = SplitMix64(seed: UInt64.random(in: 0 ... .max))
        var counter = 0
        let clock = ContinuousClock()
        while clock.now < deadline {
            let (uploads, records) = makeBatch(device: device.name, zone: zone, counter: &counter, generator: &generator)
            var start = clock.now
            do {
                try await device.backend.uploadChunks(uploads)
                let uploaded = clock.now
                let result = try await device.backend.modifyRecords(RecordBatch(zone: zone, saves: records, knownToken: token))
                let end = clock.now
                tally.saveLatencies.append((end - start) / .milliseconds(1))
                tally.uploadLatencies.append((uploaded - start) / .milliseconds(1))
                tally.modifyLatencies.append((end - uploaded) / .milliseconds(1))
                tally.saves += 1
                tally.recordsSaved += result.saved.count
                for error in result.failed.values { tally.count(error) }
                if let next = result.token { token = next }
            } catch {
                tally.count(error)
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            start = clock.now
            do {
                var more = true
                while more {
                    let page = try await device.backend.fetchChanges(in: zone, since: token, limit: StorageLimits.maximumPageSize)
                    tally.recordsFetched += page.changed.count + page.deleted.count
                    token = page.token
                    more = page.moreComing
                }
                tally.fetchLatencies.append((clock.now - start) / .milliseconds(1))
                tally.fetches += 1
            } catch {
                tally.count(error)
                if error.code == .changeTokenExpired { token = nil }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        return tally
    }

    /// `filesPerSave` new files of random content: their chunks (and manifest nodes, none at
    /// this size) and their records, built as the engine builds them (the documents chunker).
    static func makeBatch(device: String, zone: ZoneID, counter: inout Int, generator: inout SplitMix64) -> ([ChunkUpload], [Record]) {
        var uploads: [ChunkUpload] = []
        var records: [Record] = []
        for _ in 0 ..< filesPerSave {
            counter += 1
            let content = RandomBytes.generate(count: Int.random(in: fileSizes, using: &generator), seed: generator.next())
            var pieces: [(ChunkRef, Range<Int>)] = []
            let manifest = content.withUnsafeBytes { raw in
                AssetChunker(parameters: .documents, bufferSize: 1 << 16).chunk(raw) { ref, range in pieces.append((ref, range)) }
            }
            let (reference, nodes) = ManifestTree.build(manifest)
            uploads += pieces.map { ChunkUpload(digest: $0.0.digest, bytes: content.subdata(in: $0.1), isVerified: true) }
            uploads += nodes.map { ChunkUpload(digest: $0.ref.digest, bytes: $0.bytes, isVerified: true) }
            records.append(Record(id: RecordID(zone: zone, recordName: RecordID.newName()), type: .document,
                                  path: RelativePath("\(device)-\(counter).txt"), size: Int64(content.count), modified: .now, mode: 0o644,
                                  contentDigest: reference.contentDigest, asset: reference, lastModifiedBy: device))
        }
        return (uploads, records)
    }

    // MARK: - Users and tokens

    /// `docsync-server user add` for each user and `user token` for its other devices (two
    /// users at a time): the tokens, by user.
    static func issueTokens(executable: URL, configFile: URL, devices: Int) async throws -> [[String]] {
        let users = (devices + devicesPerUser - 1) / devicesPerUser
        let log = configFile.deletingPathExtension().appendingPathExtension("users.log")
        let results = Mutex([[String]](repeating: [], count: users))
        let failure = Mutex<String?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: users) { user in
                    let name = String(format: "load%02d", user)
                    var tokens: [String] = []
                    for index in 0 ..< min(devicesPerUser, devices - user * devicesPerUser) {
                        guard failure.withLock({ $0 == nil }) else { return }
                        let arguments = ["user", index == 0 ? "add" : "token", name, "--device", String(format: "u%02d-d%d", user, index),
                                         "--config", configFile.path]
                        do {
                            let run = try LoadBench.run(executable, arguments, errors: log)
                            let token = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
                            guard run.status == 0, !token.isEmpty else {
                                throw BenchError("docsync-server \(arguments.joined(separator: " ")) failed with \(run.status); see \(log.path)")
                            }
                            tokens.append(token)
                        } catch {
                            failure.withLock { $0 = $0 ?? "\(error)" }
                            return
                        }
                    }
                    results.withLock { $0[user] = tokens }
                }
                done.resume()
            }
        }
        if let message = failure.withLock({ $0 }) { throw BenchError(message) }
        return results.withLock { $0 }
    }

    /// `executable` run to its end, its stderr appended to `errors`.
    static func run(_ executable: URL, _ arguments: [String], errors: URL) throws -> MeasuredProcess {
        try MeasuredProcess.run(URL(fileURLWithPath: "/bin/sh"),
                                ["-c", "log=$1; shift; exec \"$@\" 2>>\"$log\"", "sh", errors.path, executable.path] + arguments)
    }

    // MARK: - HAProxy

    /// The programs the test runs: docsync-server beside this one, haproxy and openssl
    /// (installed with apt-get when missing, as config/cluster/cluster-demo.sh does), and the
    /// HAProxy configuration template of config/cluster/.
    struct Tools {
        let server: URL
        let haproxy: URL
        let openssl: URL
        let template: URL

        static func find() throws -> Tools {
            let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            let server = here.appendingPathComponent("docsync-server")
            guard FileManager.default.isExecutableFile(atPath: server.path) else { throw BenchError("\(server.path) is missing: build it (make release)") }
            var haproxy = locate("haproxy"), openssl = locate("openssl")
            if haproxy == nil || openssl == nil {
                print("installing haproxy and openssl (apt-get)…")
                let apt = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "--no-install-recommends", "haproxy", "openssl"]
                let command = getuid() == 0 ? apt : ["sudo", "-n"] + apt
                var run = try MeasuredProcess.run(URL(fileURLWithPath: "/usr/bin/env"), command)
                if run.status != 0 {
                    let update = getuid() == 0 ? ["apt-get", "update", "-q"] : ["sudo", "-n", "apt-get", "update", "-q"]
                    _ = try MeasuredProcess.run(URL(fileURLWithPath: "/usr/bin/env"), update)
                    run = try MeasuredProcess.run(URL(fileURLWithPath: "/usr/bin/env"), command)
                }
                haproxy = locate("haproxy")
                openssl = locate("openssl")
            }
            guard let haproxy, let openssl else {
                throw BenchError("the load test's second configuration needs haproxy and openssl: apt-get install haproxy openssl")
            }
            // The repository's template: from the working directory (make, swift run) or above the build directory.
            var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
            var directory = here
            for _ in 0 ..< 4 { directory = directory.deletingLastPathComponent(); candidates.append(directory) }
            guard let template = candidates.map({ $0.appendingPathComponent("config/cluster/haproxy.cfg.template") })
                .first(where: { FileManager.default.fileExists(atPath: $0.path) })
            else { throw BenchError("config/cluster/haproxy.cfg.template not found: run from the repository") }
            return Tools(server: server, haproxy: haproxy, openssl: openssl, template: template)
        }

        static func locate(_ program: String) -> URL? {
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
            return path.map { URL(fileURLWithPath: $0).appendingPathComponent(program) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        }
    }

    /// HAProxy with the repository's configuration: TLS on a free loopback port with a
    /// self-signed certificate for 127.0.0.1, round-robin over the instances, health checks.
    final class Balancer: @unchecked Sendable {
        let port: UInt16
        let certificate: URL
        let version: String
        private let process = Process()
        private let exit: ProcessExit

        private init(port: UInt16, certificate: URL, version: String) {
            self.port = port
            self.certificate = certificate
            self.version = version
            exit = ProcessExit(of: process)
        }

        var pid: Int32 { process.processIdentifier }

        static func start(base: URL, servers: [UInt16], tools: Tools) async throws -> Balancer {
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            let key = base.appendingPathComponent("key.pem"), cert = base.appendingPathComponent("cert.pem")
            let pem = base.appendingPathComponent("haproxy.pem"), log = base.appendingPathComponent("haproxy.log")
            let setup = base.appendingPathComponent("setup.log")
            let openssl = try LoadBench.run(tools.openssl, [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key.path, "-out", cert.path], errors: setup)
            guard openssl.status == 0 else { throw BenchError("openssl could not make the certificate (status \(openssl.status)); see \(setup.path)") }
            try (try Data(contentsOf: cert) + Data(contentsOf: key)).write(to: pem)
            chmod(key.path, 0o600)
            chmod(pem.path, 0o600)

            let port = try freePort(), stats = try freePort()
            let lines = try String(contentsOf: tools.template, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let text = lines.map { line -> String in
                if line.trimmingCharacters(in: .whitespaces) == "@SERVERS@" {
                    return servers.enumerated().map { "    server s\($0.offset + 1) 127.0.0.1:\($0.element)" }.joined(separator: "\n")
                }
                return String(line).replacingOccurrences(of: "@BIND@", with: "127.0.0.1:\(port)").replacingOccurrences(of: "@PEM@", with: pem.path)
                    .replacingOccurrences(of: "@STATS_BIND@", with: "127.0.0.1:\(stats)")
                    .replacingOccurrences(of: "@ADMIN_SOCKET@", with: base.appendingPathComponent("admin.sock").path)
            }.joined(separator: "\n")
            let configuration = base.appendingPathComponent("haproxy.cfg")
            try Data(text.utf8).write(to: configuration)
            let check = try LoadBench.run(tools.haproxy, ["-c", "-q", "-f", configuration.path], errors: setup)
            guard check.status == 0 else { throw BenchError("haproxy -c refused \(configuration.path) (status \(check.status)); see \(setup.path)") }
            let version = try MeasuredProcess.run(tools.haproxy, ["-v"]).output.split(separator: " ").dropFirst(2).first.map(String.init) ?? "?"

            let balancer = Balancer(port: port, certificate: cert, version: version)
            balancer.process.executableURL = tools.haproxy
            balancer.process.arguments = ["-db", "-f", configuration.path]
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            balancer.process.standardOutput = handle
            balancer.process.standardError = handle
            try balancer.process.run()
            // Both instances UP in its statistics (column 18 of the CSV) before the devices come.
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                guard balancer.process.isRunning else { throw BenchError("haproxy exited; see \(log.path)") }
                if let up = try? await upServers(stats: stats), up == servers.count { break }
                guard ContinuousClock.now < deadline else { balancer.stop(); throw BenchError("HAProxy did not see the instances UP within 30 s; see \(log.path)") }
                try await Task.sleep(for: .milliseconds(100))
            }
            return balancer
        }

        static func upServers(stats: UInt16) async throws -> Int {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(stats)/stats;csv"), timeout: .seconds(3))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            return body.split(separator: "\n").filter { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                return fields.count > 17 && fields[0] == "docsync_instances" && fields[1] != "BACKEND" && fields[17] == "UP"
            }.count
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            exit.wait()
        }

        deinit { stop() }
    }

    /// A port free on 127.0.0.1 now (the kernel's pick).
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("cannot bind a port on 127.0.0.1") }
        return UInt16(bigEndian: address.sin_port)
    }

    // MARK: - CPU

    /// The service processes whose CPU is counted, from the variables the start scripts print.
    struct Services {
        let postgres: [Int32]?
        let s3: [Int32]?
    }

    static var cores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// CPU seconds so far of each process group concerned and of the machine.
    struct Snapshot {
        let at: ContinuousClock.Instant
        let instances: [Double]
        let haproxy: Double?
        let postgres: Double?
        let s3: Double?
        let bench: Double
        let machine: Double
        let table: ProcessTable

        static func take(instances: [Int32], haproxy: Int32?, services: Services) -> Snapshot {
            let table = processTable()
            return Snapshot(at: .now, instances: instances.map { treeSeconds([$0], table) }, haproxy: haproxy.map { treeSeconds([$0], table) },
                            postgres: services.postgres.map { treeSeconds($0, table) }, s3: services.s3.map { treeSeconds($0, table) },
                            bench: table[getpid()]?.own ?? 0, machine: machineSeconds(), table: table)
        }
    }

    typealias ProcessTable = [Int32: (parent: Int32, seconds: Double, own: Double, name: String, started: Int)]

    /// Every process: its parent, its CPU seconds (its own and those of the children it
    /// has waited for, so that a PostgreSQL backend that ended during the run still counts) and its name.
    static func processTable() -> ProcessTable {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var table: ProcessTable = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 19, let parent = Int32(fields[1]), let started = Int(fields[19]) else { continue }
            let own = [11, 12].compactMap { Double(fields[$0]) }.reduce(0, +) / ticks
            let seconds = own + [13, 14].compactMap { Double(fields[$0]) }.reduce(0, +) / ticks
            table[pid] = (parent, seconds, own, String(text[text.index(after: open) ..< close]), started)
        }
        return table
    }

    /// CPU seconds of `roots` and all their descendants.
    static func treeSeconds(_ roots: [Int32], _ table: ProcessTable) -> Double {
        tree(roots, table).reduce(0) { $0 + (table[$1]?.seconds ?? 0) }
    }

    /// `roots` and all their descendants that run.
    static func tree(_ roots: [Int32], _ table: ProcessTable) -> Set<Int32> {
        var children: [Int32: [Int32]] = [:]
        for (pid, entry) in table { children[entry.parent, default: []].append(pid) }
        var seen = Set<Int32>()
        var queue = roots
        while let pid = queue.popLast() {
            guard table[pid] != nil, seen.insert(pid).inserted else { continue }
            queue += children[pid] ?? []
        }
        return seen
    }

    /// CPU seconds between the two tables of `roots`' trees, by process name.
    static func byName(_ roots: [Int32], before: ProcessTable, after: ProcessTable) -> [String: Double] {
        var names: [String: Double] = [:]
        for pid in tree(roots, after) {
            guard let entry = after[pid] else { continue }
            let used = entry.seconds - (before[pid].map { $0.started == entry.started ? $0.seconds : 0 } ?? 0)
            names[entry.name, default: 0] += used
        }
        return names
    }

    /// The processes outside `known` (and their trees) that used the most CPU between the
    /// two tables, by name, at most `count` of them: what else loaded the machine.
    static func busiestOthers(before: ProcessTable, after: ProcessTable, known: [Int32], count: Int = 4) -> [String: Double] {
        let excluded = tree(known, after).union(tree(known, before))
        var byName: [String: Double] = [:]
        for (pid, entry) in after where !excluded.contains(pid) {
            // The same process when it started at the same time (a kernel worker's name changes with its work).
            // Their own CPU only: a shell's count of its waited-for children would bring in a
            // whole build that ended during the run.
            let used = entry.own - (before[pid].map { $0.started == entry.started ? $0.own : 0 } ?? 0)
            // Kernel workers by kind (kworker/1:1-events → kworker).
            let name = entry.name.hasPrefix("kworker/") ? "kworker" : entry.name
            if used > 0 { byName[name, default: 0] += used }
        }
        return Dictionary(uniqueKeysWithValues: byName.sorted { $0.value > $1.value }.prefix(count).filter { $0.value >= 0.05 }.map { ($0.key, $0.value) })
    }

    /// Busy CPU seconds of the whole machine so far (all but idle and iowait).
    static func machineSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 7 else { return 0 }
        // user nice system idle iowait irq softirq steal (guest time is within user)
        let busy = values[0] + values[1] + values[2] + values[5] + values[6] + (values.count > 7 ? values[7] : 0)
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// This process's resident memory in MiB (0 when it cannot be read).
    static func residentMegabytes() -> Double {
        (try? ProcessSample(pid: getpid())).map { Double($0.residentBytes) / 1_048_576 } ?? 0
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

extension LoadBench.Configuration {
    /// One line per figure group.
    var lines: [String] {
        let errorText = errors.isEmpty ? "none"
            : errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) (\(errorMessages[$0.key] ?? ""))" }.joined(separator: "; ")
        func share(_ seconds: Double) -> String { String(format: "%.1f s (%.2f cores)", seconds, seconds / self.seconds) }
        var parts = cpu.instances.enumerated().map { "instance s\($0.offset + 1) \(share($0.element))" }
        if let haproxy = cpu.haproxy { parts.append("HAProxy \(share(haproxy))") }
        if let postgres = cpu.postgres { parts.append("PostgreSQL \(share(postgres))") }
        if let s3 = cpu.s3 {
            let split = cpu.s3Processes.sorted { $0.value > $1.value }.map { String(format: "%@ %.1f", $0.key, $0.value) }
            parts.append("S3 store \(share(s3))" + (split.isEmpty ? "" : " [" + split.joined(separator: ", ") + "]"))
        }
        parts.append("devices (this process) \(share(cpu.bench))")
        let others = cpu.otherProcesses.sorted { $0.value > $1.value }.map { String(format: "%@ %.1f s", $0.key, $0.value) }
        parts.append("other \(share(cpu.other))" + (others.isEmpty ? "" : " (of which " + others.joined(separator: ", ") + ")"))
        return [
            String(format: "throughput over %.1f s: %.0f records/s saved (%.0f saves/s of %d files), %.0f fetches/s (%.0f records/s fetched)",
                   seconds, recordsPerSecond, savesPerSecond, LoadBench.filesPerSave, fetchesPerSecond, Double(recordsFetched) / seconds),
            String(format: "latency: save p50 %.1f ms, p99 %.1f ms (upload p50 %.1f, p99 %.1f; modify p50 %.1f, p99 %.1f); fetch (all pages) p50 %.1f ms, p99 %.1f ms",
                   saveP50Milliseconds, saveP99Milliseconds, uploadP50Milliseconds, uploadP99Milliseconds, modifyP50Milliseconds,
                   modifyP99Milliseconds, fetchP50Milliseconds, fetchP99Milliseconds),
            "errors: \(errorText)",
            "CPU over the run: " + parts.joined(separator: ", "),
            String(format: "machine: %.1f of %.1f CPU seconds busy (%.0f%% of %d cores)", cpu.machine, cpu.capacity, cpu.machineFraction * 100, LoadBench.cores),
            String(format: "per record saved: %.1f PostgreSQL statements, %.2f S3 requests, %.2f HTTP requests, %.2f ms of instance CPU, %.2f ms of machine CPU; this process holds %.0f MB",
                   perRecord.statements, perRecord.s3Requests, perRecord.httpRequests, perRecord.instanceCPUMilliseconds, perRecord.machineCPUMilliseconds,
                   benchResidentMegabytes),
        ]
    }
}

private extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
