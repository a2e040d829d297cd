import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// The status page's door against a real daemon, asked with curl (SPEC §15): a `Host` that is
/// not the listening address 403, no session 401, a state change without its CSRF token 403;
/// a sign-in address works once; `/metrics` with the bearer token of a mode-600 file; a port
/// already taken leaves the page off, says why, and syncing goes on.
struct WebPageSystemTests {
    @Test func theDoorLetsInOnlyASignedInBrowserAtTheListeningAddress() async throws {
        let base = try TemporaryDirectory("docsync-web")
        let device = try DaemonProcess(name: "alpha", base: base.url, backend: base.url.appendingPathComponent("backend"))
        try Data("hello\n".utf8).write(to: device.file("a.txt"))
        try await closing({ await device.stop() }) {
            try device.start()
            let page = try await pageAddress(device)
            let port = try #require(URL(string: page)?.port)
            let jar = base.url.appendingPathComponent("cookies").path

            // No session: 401, and the page says how to sign in.
            var answer = try await curl([page + "/api/status"])
            #expect(answer.code == 401)
            answer = try await curl([page + "/"])
            #expect(answer.code == 401 && answer.body.contains("docs-status web"))
            // Another name or port for this listener (DNS rebinding): 403, signed in or not.
            for host in ["evil.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1", "localhost.evil.example:\(port)"] {
                answer = try await curl(["-H", "Host: \(host)", page + "/"])
                #expect(answer.code == 403, "Host: \(host)")
            }

            let signIn = try await device.docsStatus(["web"])
            #expect(signIn.status == 0, "\(signIn.errors)")
            let url = signIn.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(url.hasPrefix(page + "/signin?token="))
            answer = try await curl(["-c", jar, url])
            #expect(answer.code == 303)
            let cookie = try #require(answer.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
            #expect(cookie.contains("docsync_session_\(port)=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
            answer = try await curl([url])
            #expect(answer.code == 401, "a sign-in address works once")

            // Signed in: the page, its status, its headers.
            answer = try await curl(["-b", jar, page + "/"])
            #expect(answer.code == 200)
            #expect(answer.headers.contains("Content-Security-Policy: default-src 'none'"), "\(answer.headers)")
            #expect(!answer.body.contains("http://") && !answer.body.contains("https://"), "the page loads nothing from elsewhere")
            let csrf = try #require(answer.body.firstMatch(of: /name="csrf-token" content="([0-9a-f]+)"/)?.1)
            answer = try await curl(["-b", jar, page + "/api/status"])
            #expect(answer.code == 200 && answer.body.contains("\"id\":\"Docs\""))
            for host in ["localhost:\(port)", "[::1]:\(port)"] {
                answer = try await curl(["-b", jar, "-H", "Host: \(host)", page + "/api/status"])
                #expect(answer.code != 403, "Host: \(host) is this listener")
            }

            // A state change needs the CSRF token.
            answer = try await curl(["-b", jar, "-X", "POST", page + "/api/pause"])
            #expect(answer.code == 403)
            answer = try await curl(["-b", jar, "-X", "POST", "-H", "X-CSRF-Token: \(String(csrf.reversed()))", page + "/api/pause"])
            #expect(answer.code == 403)
            #expect(try await device.status()?.folders.first?.state == .idle, "nothing was paused")
            answer = try await curl(["-b", jar, "-X", "POST", "-H", "X-CSRF-Token: \(csrf)", "-H", "Content-Type: application/json",
                                     "--data", #"{"folder":"Docs"}"#, page + "/api/pause"])
            #expect(answer.code == 200)
            #expect(try await device.status()?.folders.first?.state == .paused)
            answer = try await curl(["-b", jar, "-X", "POST", "-H", "X-CSRF-Token: \(csrf)", page + "/api/resume"])
            #expect(answer.code == 200)
            #expect(try await device.status()?.folders.first?.state != .paused)

            // /metrics: the session or the token file's bearer token.
            let tokenFile = device.stateDirectory.appendingPathComponent("metrics-token")
            let mode = try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await curl([page + "/metrics"]).code == 401)
            #expect(try await curl(["-H", "Authorization: Bearer \(token)x", page + "/metrics"]).code == 401)
            let metrics = try await curl(["-H", "Authorization: Bearer \(token)", page + "/metrics"])
            #expect(metrics.code == 200 && metrics.body.contains(#"docsync_folder_state{folder="Docs",state="idle"} 1"#), "\(metrics.body.prefix(3000))")
            let exposition = base.url.appendingPathComponent("metrics.prom")
            try Data(metrics.body.utf8).write(to: exposition)
            let check = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "promtool check metrics < '\(exposition.path)'"])
            #expect(check.status == 0, "promtool: \(check.output)\(check.errors)")
            #expect(try await curl(["-b", jar, page + "/metrics"]).code == 200)
        }
    }

    @Test func aPortAlreadyTakenLeavesThePageOffAndSyncingGoesOn() async throws {
        let base = try TemporaryDirectory("docsync-web-taken")
        let backend = base.url.appendingPathComponent("backend")
        let alpha = try DaemonProcess(name: "alpha", base: base.url, backend: backend)
        try await closing({ await alpha.stop() }) {
            try alpha.start()
            let page = try await pageAddress(alpha)
            let port = try #require(URL(string: page)?.port)
            let beta = try DaemonProcess(name: "beta", base: base.url, backend: backend, extraArguments: ["--web-listen", "127.0.0.1:\(port)"])
            try await closing({ await beta.stop() }) {
                try beta.start()
                let off = await eventually(timeout: .seconds(30)) {
                    (try? await beta.status())?.web?.message?.contains("taken by another program") ?? false
                }
                #expect(off, "\(beta.logTextWithoutRequests().suffix(2000))")
                let overview = try await beta.docsStatus([])
                #expect(overview.output.contains("page:    off: 127.0.0.1:\(port) is taken"), "\(overview.output)")
                let web = try await beta.docsStatus(["web"])
                #expect(web.status == 1 && web.errors.contains("taken by another program"), "\(web)")

                try Data("from alpha\n".utf8).write(to: alpha.file("note.txt"))
                let arrived = await eventually(timeout: .seconds(30)) {
                    FileManager.default.contents(atPath: beta.file("note.txt").path) == Data("from alpha\n".utf8)
                }
                #expect(arrived, "beta syncs with its page off")
            }
        }
    }

    /// The page's address once the daemon listens.
    private func pageAddress(_ device: DaemonProcess) async throws -> String {
        var address: String?
        let listening = await eventually(timeout: .seconds(30)) {
            address = (try? await device.status())?.web?.address
            return address != nil
        }
        try #require(listening, "no page address:\n\(device.logTextWithoutRequests().suffix(2000))")
        return try #require(address)
    }

    /// curl's answer: status code, headers, body.
    private func curl(_ arguments: [String]) async throws -> (code: Int, headers: String, body: String) {
        let marker = "\n--docsync-code:"
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/curl"),
                                          ["-s", "-i", "--max-time", "10", "-w", marker + "%{http_code}"] + arguments)
        guard let range = result.output.range(of: marker, options: .backwards), let code = Int(result.output[range.upperBound...]) else {
            throw PosixError(0, "curl \(arguments): \(result.errors)")
        }
        let response = result.output[..<range.lowerBound]
        let split = response.range(of: "\r\n\r\n")
        return (code, split.map { String(response[..<$0.lowerBound]) } ?? String(response), split.map { String(response[$0.upperBound...]) } ?? "")
    }
}
