/// Why a frame of the control protocol could not be written or read (see `ControlFraming`).
public enum ControlFramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A line grew past `limit` bytes without a newline.
    case lineTooLong(limit: Int)
    /// The line is not valid JSON or not a valid request or response; the detail says why.
    case malformed(String)
    /// The line is a request for a call this side does not know (named here).
    case unknownRequest(String)
    /// A value could not be encoded as JSON (a bug: report it).
    case encodingFailed(String)
    /// The stream ended in the middle of a line.
    case truncatedLine

    public var description: String {
        switch self {
        case .lineTooLong(let limit):
            "line longer than \(limit) bytes"
        case .malformed(let detail):
            "malformed message: \(detail)"
        case .unknownRequest(let name):
            "unknown request \(name.debugDescription) (docsyncd may be older than docs-status: restart it after an upgrade)"
        case .encodingFailed(let detail):
            "could not encode a message: \(detail)"
        case .truncatedLine:
            "the connection ended in the middle of a line"
        }
    }

    /// The response a server sends for a request line that failed this way.
    public var failureResponse: ControlResponse {
        switch self {
        case .unknownRequest:
            .failure(code: ControlResponse.FailureCode.unknownRequest, message: description)
        default:
            .failure(code: ControlResponse.FailureCode.badRequest, message: "bad request: \(description)")
        }
    }
}
