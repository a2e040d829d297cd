import Foundation
import HTTPTypes
import Hummingbird

/// The status page's door (SPEC §15), in front of every route:
/// - a `Host` other than the listening address, as `127.0.0.1`, `localhost` or `[::1]` with
///   the listening port (a DNS-rebinding page's name, another port, two `Host` headers), 403;
/// - no session cookie (or an unknown one), 401 — except for signing in, the page's script
///   and style, and `/metrics` with the bearer token of `STATE_DIR/metrics-token`;
/// - a state change (any method but GET and HEAD) without its session's CSRF token in
///   `X-CSRF-Token`, 403.
/// Every answer says, in `Content-Security-Policy`, that the page loads nothing from elsewhere
/// and may not be framed.
struct WebGuard: RouterMiddleware {
    typealias Context = WebRequestContext
    let page: WebPageState
    let metricsToken: String

    /// Routes served without a session.
    static let open: Set<String> = ["/signin", "/app.js", "/app.css", "/favicon.ico"]
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let securityHeaders: [(HTTPField.Name, String)] = [
        (HTTPField.Name("Content-Security-Policy")!,
         "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (HTTPField.Name("X-Frame-Options")!, "DENY"),
        (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
        (.cacheControl, "no-store"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await decide(request, context: context, next: next)
        for (name, value) in Self.securityHeaders where response.headers[name] == nil { response.headers[name] = value }
        return response
    }

    private func decide(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let port = page.port, Self.hostAllowed(request, port: port) else {
            return WebResponses.problem(.forbidden, "this page answers only at its own address (127.0.0.1, localhost or [::1] with its port)")
        }
        let path = request.uri.path
        if Self.open.contains(path) { return try await next(request, context) }
        if path == "/metrics", Self.bearer(request).map({ WebSessions.secretsMatch($0, metricsToken) }) == true {
            return try await next(request, context)
        }
        guard let id = request.cookies[Self.cookieName(port: port)]?.value, let session = page.sessions.session(id) else {
            return path == "/"
                ? WebResponses.signInNeeded()
                : WebResponses.problem(.unauthorized, "not signed in: run 'docs-status web' and open the address it prints")
        }
        if request.method != .get, request.method != .head, !WebSessions.csrfMatches(request.headers[Self.csrfHeader], session) {
            return WebResponses.problem(.forbidden, "a change needs the page's CSRF token in X-CSRF-Token; reload the page")
        }
        var context = context
        context.session = session
        return try await next(request, context)
    }

    /// The session cookie's name: with the port, since a browser sends a host's cookies to
    /// every port of it (two users' daemons on one machine).
    static func cookieName(port: Int) -> String { "docsync_session_\(port)" }

    /// True when the request names this listener: one `Host` (HTTP/1's `Host` arrives as the
    /// authority), `127.0.0.1`, `localhost` or `[::1]`, with `port`.
    static func hostAllowed(_ request: Request, port: Int) -> Bool {
        guard request.headers[values: HTTPField.Name("Host")!].isEmpty, let authority = request.head.authority else { return false }
        return hostAllowed(authority, port: port)
    }

    static func hostAllowed(_ authority: String, port: Int) -> Bool {
        ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"].contains(authority.lowercased())
    }

    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
