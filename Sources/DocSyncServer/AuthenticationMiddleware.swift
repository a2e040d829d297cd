import DocSyncCore
import DocSyncStorage
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Authenticates every request by its `Authorization: Bearer TOKEN` header and applies the
/// rate limit: an absent or unknown token is `notAuthenticated` (401), a token over its rate
/// is `requestRateLimited` (429 with `Retry-After`). Requests without a known token are
/// limited by the client's address (`ClientAddress`: `X-Forwarded-For` is believed only
/// from a trusted proxy), so guessing tokens is as slow as the rate. Sets `context.user`
/// and `context.device`.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let store: any ServerStore
    let rateLimiter: any RequestAdmission
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            try await admitUnknown(request, context)
            throw SyncError(.notAuthenticated, "the request has no Authorization header; send `Authorization: Bearer TOKEN` with a token from `docsync-server user add`")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            try await admitUnknown(request, context)
            throw SyncError(.notAuthenticated, "the Authorization header is not `Bearer TOKEN`")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard let account = try await store.authenticate(token) else {
            context.logger.notice("unknown token", metadata: ["path": "\(request.uri.path)"])
            try await admitUnknown(request, context)
            throw SyncError(.notAuthenticated, "the server does not know this token; ask its administrator for one (docsync-server user token NAME)")
        }
        let user = account.user
        if let wait = await rateLimiter.admit(AccessToken.hash(token)) {
            context.logger.info("rate limited", metadata: ["user": "\(user)", "retryAfter": "\(wait)"])
            throw Self.limited(wait, rateLimiter.ratePerSecond, "this device")
        }
        var context = context
        context.user = user
        context.device = account.device
        context.logger[metadataKey: "user"] = "\(user)"
        return try await next(request, context)
    }

    /// Applies the rate limit of the client's address to a request without a known token.
    private func admitUnknown(_ request: Request, _ context: Context) async throws {
        let forwarded = request.headers[values: HTTPField.Name("X-Forwarded-For")!]
        guard let address = ClientAddress.resolve(peer: context.peerAddress, forwardedFor: forwarded, trustedProxies: trustedProxies) else { return }
        if let wait = await rateLimiter.admit("address:" + address) {
            context.logger.info("rate limited", metadata: ["address": "\(address)", "retryAfter": "\(wait)"])
            throw Self.limited(wait, rateLimiter.ratePerSecond, "this address without a valid token")
        }
    }

    private static func limited(_ wait: Double, _ rate: Double, _ who: String) -> SyncError {
        SyncError(.requestRateLimited, "more than \(Int(rate)) requests a second from \(who); wait \(String(format: "%.2f", wait)) s", retryAfter: wait)
    }
}
