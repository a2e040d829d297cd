import DocSyncControl
import Foundation
import HTTPTypes
import Hummingbird

/// The status page's answers: JSON in the control protocol's coding (sorted keys, ISO 8601
/// dates), problems as `{"error": …}`, and the page's own text.
enum WebResponses {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        do {
            let data = try ControlFraming.makeEncoder().encode(value)
            return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            return problem(.internalServerError, "cannot encode the answer: \(error)")
        }
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(["error": message], status: status)
    }

    static func text(_ body: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The page a browser without a session gets: how to sign in.
    static func signInNeeded() -> Response {
        text(WebAssets.signInPage, type: "text/html; charset=utf-8", status: .unauthorized)
    }

    /// A handler's failure as HTTP: a path or folder not found 404, a bad argument 400, what
    /// waits for a person or is held 409, what the backend does not offer 501, the rest 502.
    static func failure(code: String, message: String) -> Response {
        let status: HTTPResponse.Status = switch code {
        case ControlResponse.FailureCode.notFound: .notFound
        case ControlResponse.FailureCode.badRequest, ControlResponse.FailureCode.badPredicate,
             ControlResponse.FailureCode.invalidArguments, ControlResponse.FailureCode.badFolder: .badRequest
        case ControlResponse.FailureCode.held: .conflict
        case ControlResponse.FailureCode.unsupported: .notImplemented
        default: .badGateway
        }
        return json(["error": message, "code": code], status: status)
    }
}
