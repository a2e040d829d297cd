import DocSyncTestSupport
import Foundation

/// HAProxy in front of `docsync-server` instances, configured from the template the project
/// ships (`config/cluster/haproxy.cfg.template`), with TLS on a self-signed certificate for
/// 127.0.0.1 made by openssl: what `make cluster-demo` runs, for tests. Killed when the last
/// reference goes away.
final class BalancerProcess: @unchecked Sendable {
    let directory: TemporaryDirectory
    /// `https://127.0.0.1:PORT`.
    let url: URL
    /// The certificate the daemons must trust (`--ca-file`).
    let certificate: URL
    private let process = Process()

    init(instances: [ServerProcess]) async throws {
        directory = try TemporaryDirectory("docsync-balancer")
        let base = directory.url
        certificate = base.appendingPathComponent("cert.pem")
        let key = base.appendingPathComponent("key.pem")
        let made = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key.path, "-out", certificate.path,
        ])
        guard made.status == 0 else { throw ServerProcessError("openssl could not make a certificate: \(made.errors)") }
        let pem = base.appendingPathComponent("haproxy.pem")
        try (String(contentsOf: certificate, encoding: .utf8) + String(contentsOf: key, encoding: .utf8)).write(to: pem, atomically: true, encoding: .utf8)
        let port = try Self.freePort(), stats = try Self.freePort()
        let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/cluster/haproxy.cfg.template")
        let servers = instances.enumerated().map { "    server s\($0.offset + 1) 127.0.0.1:\($0.element.port)" }.joined(separator: "\n")
        let configuration = try String(contentsOf: template, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) == "@SERVERS@" ? servers : String($0) }
            .joined(separator: "\n")
            .replacingOccurrences(of: "@BIND@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "@PEM@", with: pem.path)
            .replacingOccurrences(of: "@STATS_BIND@", with: "127.0.0.1:\(stats)")
            .replacingOccurrences(of: "@ADMIN_SOCKET@", with: base.appendingPathComponent("admin.sock").path)
        let file = base.appendingPathComponent("haproxy.cfg")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : "/usr/bin/haproxy")
        process.arguments = ["-db", "-f", file.path]
        let log = base.appendingPathComponent("haproxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        url = URL(string: "https://127.0.0.1:\(port)")!
        let statsURL = "http://127.0.0.1:\(stats)/stats;csv"
        // Ready once every instance is UP in its health checks.
        let up = await eventually(timeout: .seconds(30), pollEvery: .milliseconds(100)) {
            let csv = (try? await runProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "--max-time", "2", statsURL]))?.output ?? ""
            return csv.split(separator: "\n").filter { $0.hasPrefix("docsync_instances,s") && $0.contains(",UP,") }.count == instances.count
        }
        guard up else {
            throw ServerProcessError("HAProxy did not report every instance up; log:\n\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerProcessError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw ServerProcessError("bind: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
