@testable import DocSyncEngine
import DocSyncCore
import Foundation
import Testing

/// The deletion-safety state is stored as JSON in the index: a state written before a field
/// was added must load whole, never fall back to an empty state (which would forget the root
/// marker's instance and the brake's count).
@Suite struct SafetyStateTests {
    @Test func aStateWrittenBeforeTheAskedForCountLoadsWhole() throws {
        let older = #"{"markerInstance":"5F0C","deletionsSentSinceSettled":40,"deletionsConfirmed":true}"#
        let state = SafetyState.load(Data(older.utf8))
        #expect(state.markerInstance == "5F0C")
        #expect(state.deletionsSentSinceSettled == 40)
        #expect(state.deletionsConfirmed)
        #expect(state.deletionsAskedFor == 0)
    }

    @Test func everyFieldSurvivesARoundTrip() {
        var state = SafetyState()
        state.markerInstance = "A1"
        state.heldReason = .markerMissing
        state.heldSince = Timestamp(seconds: 1_800_000_000, nanoseconds: 5)
        state.deletionsSentSinceSettled = 3
        state.brakeEngagedAt = Timestamp(seconds: 1_800_000_100, nanoseconds: 0)
        state.deletionsConfirmed = true
        state.deletionsAskedFor = 7
        #expect(SafetyState.load(state.encoded) == state)
    }
}
