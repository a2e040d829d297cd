import DocSyncCore
import Foundation
import Hummingbird
import Logging

/// Authenticates every request by its `Authorization: Bearer TOKEN` header and applies the
/// token's rate limit: an absent or unknown token is `notAuthenticated` (401), a token over
/// its rate is `requestRateLimited` (429 with `Retry-After`). Sets `context.user` and
/// `context.device`.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let store: any ServerStore
    let rateLimiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw SyncError(.notAuthenticated, "the request has no Authorization header; send `Authorization: Bearer TOKEN` with a token from `docsync-server user add`")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw SyncError(.notAuthenticated, "the Authorization header is not `Bearer TOKEN`")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard let account = try await store.authenticate(token) else {
            context.logger.notice("unknown token", metadata: ["path": "\(request.uri.path)"])
            throw SyncError(.notAuthenticated, "the server does not know this token; ask its administrator for one (docsync-server user token NAME)")
        }
        let user = account.user
        if let wait = rateLimiter.admit(AccessToken.hash(token)) {
            context.logger.info("rate limited", metadata: ["user": "\(user)", "retryAfter": "\(wait)"])
            throw SyncError(.requestRateLimited,
                            "more than \(Int(rateLimiter.ratePerSecond)) requests a second from this device; wait \(String(format: "%.2f", wait)) s",
                            retryAfter: wait)
        }
        var context = context
        context.user = user
        context.device = account.device
        context.logger[metadataKey: "user"] = "\(user)"
        return try await next(request, context)
    }
}
