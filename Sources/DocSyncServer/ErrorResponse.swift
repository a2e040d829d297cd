import DocSyncCore
import DocSyncHTTP
import Foundation
import Hummingbird
import NIOCore

/// The response for a `SyncError`: the status `WireStatus` gives its code and the whole
/// error as JSON, so the client rebuilds it exactly; `Retry-After` when it says when to
/// retry, `WWW-Authenticate` on 401.
enum ErrorResponse {
    static func make(_ error: SyncError, status: Int? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = WireRoute.json
        if let retryAfter = error.retryAfter {
            headers[.retryAfter] = WireStatus.retryAfterHeader(retryAfter)
        }
        if error.code == .notAuthenticated {
            headers[.wwwAuthenticate] = "Bearer realm=\"docsync\""
        }
        let body = (try? WireCoding.encoder.encode(error)) ?? Data("{\"code\":\"internalError\",\"message\":\"unencodable error\"}".utf8)
        return Response(status: .init(code: status ?? WireStatus.status(for: error.code)), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Turns every error a route throws into an `ErrorResponse`, and logs the server's own
/// failures: `SyncError`s pass as they are, Hummingbird's `HTTPError`s and anything else
/// become the nearest code.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SyncError {
            ServerMetrics.count(error.code)
            if error.code == .internalError || error.code == .chunkCorrupt {
                context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "user": "\(context.user ?? "-")", "error": "\(error)"])
            }
            return ErrorResponse.make(error)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            let problem = SyncError(.invalidArguments,
                                    "\(request.method) \(request.uri.path) is not a route of this docsync-server (API v1); is the client a compatible version?")
            return ErrorResponse.make(problem, status: error.status.code)
        } catch let error as HTTPError {
            let code: SyncError.Code = switch error.status.code {
            case 401: .notAuthenticated
            case 413: .limitExceeded
            case 400 ..< 500: .invalidArguments
            default: .internalError
            }
            return ErrorResponse.make(SyncError(code, "\(request.method) \(request.uri.path): \(error.body ?? error.status.reasonPhrase)"))
        } catch is NIOTooManyBytesError {
            return ErrorResponse.make(SyncError(.limitExceeded, "\(request.method) \(request.uri.path): the body is larger than this route accepts; split it"))
        } catch is CancellationError {
            return ErrorResponse.make(SyncError(.serviceUnavailable, "the server is shutting down; retry shortly"))
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return ErrorResponse.make(SyncError(.internalError, "\(request.method) \(request.uri.path): \(error)"))
        }
    }
}
