import DocSyncCore
import HTTPTypes
import Hummingbird

/// Answers a request whose path has a route but not for its method with 405 and `Allow`
/// naming the methods the route has (RFC 9110 §15.5.6), instead of the router's 404. A path
/// no route has stays 404. Both carry an `invalidArguments` `SyncError` (`ErrorMiddleware`).
/// Placed before authentication: which methods a route has is no secret.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // A route that served the request and threw 404 itself is not a missing method.
            guard let methods = routes.methods(at: request.uri.path), !methods.contains(request.method) else { throw error }
            let allowed = methods.map(\.rawValue).sorted().joined(separator: ", ")
            let problem = SyncError(.invalidArguments, "\(request.method) is not a method of \(request.uri.path) on this docsync-server (API v1), which answers \(allowed)")
            var response = ErrorResponse.make(problem, status: HTTPResponse.Status.methodNotAllowed.code)
            response.headers[.allow] = allowed
            return response
        }
    }
}
