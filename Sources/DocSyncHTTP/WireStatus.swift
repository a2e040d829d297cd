import DocSyncCore

/// How `SyncError` codes travel as HTTP statuses, both ways.
///
/// Every error response of `docsync-server` carries the full `SyncError` as its JSON body,
/// so the client rebuilds it exactly; the status is for proxies, logs and people with curl,
/// and it is what the client falls back on when a body is missing (a proxy's error page).
public enum WireStatus {
    /// The status the server answers `code` with.
    public static func status(for code: SyncError.Code) -> Int {
        switch code {
        case .invalidArguments: 400
        case .notAuthenticated: 401
        case .permissionDenied: 403
        case .zoneNotFound, .unknownItem, .chunkNotFound: 404
        case .serverRecordChanged, .partialFailure, .batchRequestFailed: 409
        case .changeTokenExpired, .userDeletedZone, .zoneMoved: 410
        case .limitExceeded: 413
        case .chunkDigestMismatch, .assetFileModified: 422
        case .zoneBusy: 423
        case .requestRateLimited: 429
        case .internalError, .chunkCorrupt: 500
        case .networkFailure: 502
        case .serviceUnavailable, .networkUnavailable: 503
        case .quotaExceeded: 507
        }
    }

    /// The error a response with `status` and no readable `SyncError` body stands for, or
    /// `nil` for a success status. `retryAfter` is the `Retry-After` header's seconds.
    public static func error(forStatus status: Int, retryAfter: Double?, context: String) -> SyncError? {
        switch status {
        case 200 ..< 300:
            return nil
        case 400:
            return SyncError(.invalidArguments, "\(context): the server refused the request as malformed (400)")
        case 401, 403:
            // docsync-server's own 403 (permissionDenied) carries its error; a bare one is a
            // proxy's refusal of the credentials.
            return SyncError(.notAuthenticated,
                             "\(context): the server refused the token (\(status)); ask its administrator for a new one (docsync-server user token NAME)")
        case 408, 502, 504:
            return SyncError(.networkFailure, "\(context): the connection to the server failed on the way (\(status)); retrying later", retryAfter: retryAfter)
        case 413:
            return SyncError(.limitExceeded, "\(context): the request is larger than the server accepts (413); split it")
        case 429:
            return SyncError(.requestRateLimited, "\(context): too many requests (429); waiting before retrying",
                             retryAfter: retryAfter ?? 1)
        case 507:
            return SyncError(.quotaExceeded, "\(context): the server has no room left for this account (507)")
        case 500, 503:
            return SyncError(.serviceUnavailable, "\(context): the server is unavailable (\(status)); retrying later", retryAfter: retryAfter)
        default:
            return SyncError(.internalError,
                             "\(context): unexpected HTTP status \(status); is the backend URL a docsync-server of a compatible version?")
        }
    }

    /// Parses a `Retry-After` header given in seconds (the only form the server sends);
    /// `nil` for anything else.
    public static func retryAfterSeconds(_ header: String?) -> Double? {
        guard let header, let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0, seconds.isFinite
        else { return nil }
        return seconds
    }

    /// The `Retry-After` header for a wait of `seconds`: whole seconds, rounded up, at least 1.
    public static func retryAfterHeader(_ seconds: Double) -> String {
        String(max(1, Int(seconds.rounded(.up))))
    }
}
