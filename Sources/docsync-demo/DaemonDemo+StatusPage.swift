import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DaemonDemo {
    /// Step 14a: the laptop's status page, as a browser signs in to it, and its `/metrics`
    /// as Prometheus reads them.
    func statusPage(_ laptop: Device) async throws {
        step.title("14a. The laptop's status page and its metrics, on loopback only")
        let address = try laptop.docsStatus(["web"]).trimmingCharacters(in: .whitespacesAndNewlines)
        step.say("$ docs-status web   → \(address)")
        step.say("  (one-time: it signs one browser in, once, for ten minutes)")
        guard let signIn = URL(string: address), let page = URL(string: "/", relativeTo: signIn)?.absoluteURL else { return }
        let browser = URLSession(configuration: .ephemeral)
        let (html, first) = try await browser.data(from: signIn)
        step.say("a browser opening it: HTTP \((first as? HTTPURLResponse)?.statusCode ?? 0), the page (\(html.count) bytes), signed in by a cookie")
        let (_, again) = try await URLSession(configuration: .ephemeral).data(from: signIn)
        step.say("the same address in another browser: HTTP \((again as? HTTPURLResponse)?.statusCode ?? 0) (spent)")
        var rebound = URLRequest(url: page)
        rebound.setValue("docsync.attacker.example:\(page.port ?? 0)", forHTTPHeaderField: "Host")
        let (_, foreign) = try await browser.data(for: rebound)
        step.say("a request naming another host (DNS rebinding): HTTP \((foreign as? HTTPURLResponse)?.statusCode ?? 0)")

        let token = try String(contentsOf: laptop.stateDirectory.appendingPathComponent("metrics-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var scrape = URLRequest(url: URL(string: "/metrics", relativeTo: page)!.absoluteURL)
        scrape.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (body, _) = try await URLSession(configuration: .ephemeral).data(for: scrape)
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n")
        step.say("GET /metrics with the bearer token of \(laptop.stateDirectory.lastPathComponent)/metrics-token: \(lines.filter { !$0.hasPrefix("#") }.count) series, among them")
        for line in lines where !line.hasPrefix("#") && ((line.hasSuffix("} 1") || line.hasSuffix("} 1.0")) && line.contains("folder_state") || line.contains("folder_items")
            || line.contains("sent_bytes_total") || line.contains("received_bytes_total")) {
            step.say("  " + line)
        }
    }
}
