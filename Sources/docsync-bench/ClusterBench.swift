import AsyncHTTPClient
import Foundation
import NIOCore

/// The scale-out store (issue 26), beside the embedded one in the same run:
/// (a) the initial sync of `make bench`'s tree through one scale-out instance and through
/// the embedded store, with the statements to PostgreSQL and requests to S3 per file synced
/// (read from the instance's `/metrics`); (b) a change's propagation between two daemons
/// on one instance and on two instances (the push crossing PostgreSQL's LISTEN/NOTIFY).
/// Needs PostgreSQL and S3: `make bench` starts them (config/services/) and passes their
/// addresses as for the tests (`DOCSYNC_TEST_POSTGRES_URL`, `DOCSYNC_TEST_S3_*`).
enum ClusterBench {
    struct Report: Encodable {
        let embedded: SyncBench.InitialSync
        let scaleOut: SyncBench.InitialSync
        /// Scale-out over embedded initial sync.
        let ratio: Double
        /// CPU seconds the S3 store's and PostgreSQL's processes spent over the scale-out sync.
        let servicesCPUSeconds: [String: Double]
        let statementsPerFile: Double
        let s3RequestsPerFile: [String: Double]
        let oneInstance: SyncBench.Propagation
        let twoInstances: SyncBench.Propagation
        /// The first one-instance run, right after the initial sync.
        let oneInstanceFirst: SyncBench.Propagation
        /// What one small file saved through one instance and fetched through the other costs.
        let perSave: PerSave?
    }

    /// The steady-state cost of one small file saved by one device and fetched by another
    /// (a 4 KiB file, each its own upload and save, as a person's edits come): the numbers
    /// of the README's cost model.
    struct PerSave: Encodable {
        let instanceCPUMilliseconds: Double
        let statements: Double
        let s3Requests: Double
        let requests: Double
    }

    /// CPU seconds so far of the S3 store's processes (`DOCSYNC_S3_PIDS`, as config/services
    /// prints them) and of PostgreSQL (`DOCSYNC_PG_PID`, the postmaster), each with its
    /// descendants (`LoadBench.treeSeconds`); 0 for what cannot be found.
    static func servicesCPUSeconds(_ services: BenchServices) -> (s3: Double, postgres: Double) {
        let table = LoadBench.processTable()
        return (LoadBench.treeSeconds(services.s3PIDs ?? [], table), LoadBench.treeSeconds(services.postgresPIDs ?? [], table))
    }

    /// User and system CPU seconds of process `pid` so far (0 when it cannot be read).
    static func cpuSeconds(_ pid: Int32) -> Double {
        (try? ProcessSample(pid: pid)).map { Double($0.cpuTicks) / Double(sysconf(Int32(_SC_CLK_TCK))) } ?? 0
    }

    static func run(base: URL, samples: Int, initialFiles: Int) async throws -> Report {
        let services = try BenchServices.fromEnvironment(for: "the scale-out part")
        let name = BenchServices.storeName("docsync_bench")
        let database = try await services.makeDatabase(name)
        do {
            let report = try await run(base: base, samples: samples, initialFiles: initialFiles, services: services,
                                       store: ["--records", database.url, "--chunks", services.chunks(for: name)])
            await services.dropDatabase(name)
            return report
        } catch {
            await services.dropDatabase(name)
            throw error
        }
    }

    private static func run(base: URL, samples: Int, initialFiles: Int, services: BenchServices, store: [String]) async throws -> Report {
        let keys = ["S3_ACCESS_KEY": services.s3AccessKey, "S3_SECRET_KEY": services.s3SecretKey]

        print("\n== (a) Initial sync through the embedded store and through one scale-out instance: \(initialFiles) files + 20 × 10 MiB ==")
        let embeddedServer = try BenchServer(base: base.appendingPathComponent("embedded"))
        try embeddedServer.start()
        let embedded = try await SyncBench.initialSync(base: base.appendingPathComponent("embedded"), smallFiles: initialFiles,
                                                       backend: url(embeddedServer.port), tokenFile: embeddedServer.tokenFile, serverPID: embeddedServer.pid)
        embeddedServer.stop()
        print("embedded:  " + embedded.line)
        let first = try BenchServer(base: base.appendingPathComponent("scale-out"), name: "first", storeArguments: store, environment: keys)
        try first.start()
        defer { first.stop() }
        let before = try await scrape(first.port)
        let servicesBefore = servicesCPUSeconds(services)
        let scaleOut = try await SyncBench.initialSync(base: base.appendingPathComponent("scale-out"), smallFiles: initialFiles,
                                                       backend: url(first.port), tokenFile: first.tokenFile, serverPID: first.pid)
        let after = try await scrape(first.port)
        let servicesAfter = servicesCPUSeconds(services)
        print("scale-out: " + scaleOut.line)
        let servicesCPU = (s3: servicesAfter.s3 - servicesBefore.s3, postgres: servicesAfter.postgres - servicesBefore.postgres)
        let docsyncCPU = scaleOut.cpuSeconds.values.reduce(0, +)
        print(String(format: "the services over that sync (and the tree's making, which they take no part in): S3 store %.2f s CPU, PostgreSQL %.2f s; with docsync's %.2f s, at least %.2f s on 2 cores",
                     servicesCPU.s3, servicesCPU.postgres, docsyncCPU, (servicesCPU.s3 + servicesCPU.postgres + docsyncCPU) / 2))
        let ratio = scaleOut.docsyncSeconds / embedded.docsyncSeconds
        let files = Double(scaleOut.files)
        let statements = (after["docsync_postgres_statements_total"] ?? 0) - (before["docsync_postgres_statements_total"] ?? 0)
        var requests: [String: Double] = [:]
        for (key, value) in after where key.hasPrefix("docsync_s3_requests_total") {
            let method = key.split(separator: "\"").dropFirst().first.map(String.init) ?? key
            requests[method] = (value - (before[key] ?? 0)) / files
        }
        print(String(format: "scale-out / embedded: %.2f×; per file synced: %.1f PostgreSQL statements, S3 requests %@", ratio, statements / files,
                     requests.sorted { $0.key < $1.key }.map { String(format: "%@ %.3f", $0.key, $0.value) }.joined(separator: ", ")))

        print("\n== (b) A 4 KiB file's propagation, \(samples) samples: both daemons on one instance, then on two ==")
        let second = try BenchServer(base: base.appendingPathComponent("scale-out"), name: "second", storeArguments: store, environment: keys)
        try second.start(addUser: false)
        defer { second.stop() }
        var propagation: [SyncBench.Propagation] = []
        var perSave: PerSave?
        // Each configuration starts with nothing left to write back (`sync`, untimed), and one
        // is measured again at the end, so that the order is seen in the figures if it matters.
        for (label, ports) in [("one instance", (first.port, first.port)), ("two instances", (first.port, second.port)),
                               ("one instance, again", (first.port, first.port))] {
            _ = try SyncBench.timed("sync", [])
            let pairBase = base.appendingPathComponent("pair-\(propagation.count)")
            let zone = "Pair\(propagation.count)"
            let a = try BenchDaemon(name: "alpha", base: pairBase, backend: url(ports.0), tokenFile: first.tokenFile, zone: zone)
            let b = try BenchDaemon(name: "beta", base: pairBase, backend: url(ports.1), tokenFile: first.tokenFile, zone: zone)
            try a.start()
            try b.start()
            _ = await a.waitSettled()
            _ = await b.waitSettled()
            let before = try await ([scrape(first.port), scrape(second.port)], cpuSeconds(first.pid) + cpuSeconds(second.pid))
            let (create, _) = try await SyncBench.createAndModify(samples: samples, from: a, to: b)
            let after = try await ([scrape(first.port), scrape(second.port)], cpuSeconds(first.pid) + cpuSeconds(second.pid))
            a.stop()
            b.stop()
            print("\(label): " + create.line)
            propagation.append(create)
            if ports.0 != ports.1 {
                // Each sample saves a file and then changes it: two saves, each fetched by the other device.
                let saves = Double(2 * samples)
                func delta(_ name: String) -> Double { rise(name, from: before.0, to: after.0) }
                perSave = PerSave(instanceCPUMilliseconds: (after.1 - before.1) * 1000 / saves,
                                  statements: delta("docsync_postgres_statements_total") / saves,
                                  s3Requests: delta("docsync_s3_requests_total") / saves, requests: delta("hb_requests") / saves)
                print(String(format: "per file saved by one device and fetched by another: %.1f ms of instance CPU, %.1f PostgreSQL statements, %.2f S3 requests, %.1f HTTP requests",
                             perSave!.instanceCPUMilliseconds, perSave!.statements, perSave!.s3Requests, perSave!.requests))
            }
        }
        print(String(format: "added by crossing instances (against the second one-instance run): p50 %+.1f ms, p90 %+.1f ms",
                     propagation[1].p50 - propagation[2].p50, propagation[1].p90 - propagation[2].p90))
        return Report(embedded: embedded, scaleOut: scaleOut, ratio: ratio, servicesCPUSeconds: ["s3": servicesCPU.s3, "postgres": servicesCPU.postgres],
                      statementsPerFile: statements / files, s3RequestsPerFile: requests,
                      oneInstance: propagation[2], twoInstances: propagation[1], oneInstanceFirst: propagation[0], perSave: perSave)
    }

    static func url(_ port: UInt16) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How much the samples whose names start with `prefix` rose from `before` to `after`
    /// (a scrape of each instance, in the same order), summed over the instances.
    static func rise(_ prefix: String, from before: [[String: Double]], to after: [[String: Double]]) -> Double {
        func total(_ scrapes: [[String: Double]]) -> Double {
            scrapes.reduce(0) { sum, samples in sum + samples.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +) }
        }
        return total(after) - total(before)
    }

    /// The samples of an instance's `/metrics`, by name with labels.
    static func scrape(_ port: UInt16) async throws -> [String: Double] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        var samples: [String: Double] = [:]
        for line in String(buffer: body).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
