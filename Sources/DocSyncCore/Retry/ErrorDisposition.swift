/// What the engine does with each `SyncError.Code` (SPEC §5), one behaviour each.
///
/// `of(_:)` is an exhaustive switch, so a new code does not compile until it has a behaviour.
public enum ErrorDisposition: Sendable, Hashable, CaseIterable {
    /// Keep the work queued; retry after `RetryPolicy.delay` (networkFailure,
    /// networkUnavailable, serviceUnavailable, zoneBusy, internalError).
    case retryWithBackoff
    /// Wait at least the error's `retryAfter`, then retry (requestRateLimited).
    case retryAfterDelay
    /// Three-way merge into the error's `serverRecord`, resend (serverRecordChanged).
    case mergeAndResend
    /// Handle each item's own error from `itemErrors`; the good items stand (partialFailure).
    case handleEachItem
    /// Split the batch, resend (limitExceeded).
    case splitAndResend
    /// Create the zone, resend (zoneNotFound).
    case createZoneAndResend
    /// Recreate the zone and upload the folder again (userDeletedZone).
    case recreateZoneAndReupload
    /// Drop the change token, refetch everything, reconcile (changeTokenExpired).
    case refetchFromScratch
    /// Stop uploading, show it in status, keep everything local (quotaExceeded).
    case pauseUploads
    /// Stop, show "not authenticated", keep everything local (notAuthenticated).
    case stopUntilSignedIn
    /// Discard that upload and read the file again later (assetFileModified).
    case rereadLater
    /// Keep the change on this device and show why; never retry it in a loop, send it once
    /// the permission allows (permissionDenied: a read-only share, SPEC §11).
    case keepLocal
    /// Stop syncing the zone and sync the one it moved into (`movedTo`), matching what is on
    /// disk; never write into the old one again (zoneMoved, SPEC §13).
    case followMovedZone
    /// A problem of one item, handled per item (invalidArguments, unknownItem, chunkNotFound,
    /// chunkCorrupt, chunkDigestMismatch, batchRequestFailed).
    case itemError

    /// The behaviour for `code`.
    public static func of(_ code: SyncError.Code) -> ErrorDisposition {
        switch code {
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .zoneBusy, .internalError: .retryWithBackoff
        case .requestRateLimited: .retryAfterDelay
        case .serverRecordChanged: .mergeAndResend
        case .partialFailure: .handleEachItem
        case .limitExceeded: .splitAndResend
        case .zoneNotFound: .createZoneAndResend
        case .userDeletedZone: .recreateZoneAndReupload
        case .changeTokenExpired: .refetchFromScratch
        case .quotaExceeded: .pauseUploads
        case .notAuthenticated: .stopUntilSignedIn
        case .permissionDenied: .keepLocal
        case .assetFileModified: .rereadLater
        case .zoneMoved: .followMovedZone
        case .invalidArguments, .unknownItem, .chunkNotFound, .chunkCorrupt, .chunkDigestMismatch, .batchRequestFailed:
            .itemError
        }
    }

    /// The behaviour for `error`'s code.
    public static func of(_ error: SyncError) -> ErrorDisposition { of(error.code) }
}
