import DocSyncCore
import Foundation
import Synchronization

/// Where an encrypted folder's engine gets its keys (SPEC §13), and why it has none when it
/// has none. The daemon owns it and updates it as keys arrive (an approval, a new epoch);
/// the engine reads it whenever it seals or opens, so a change takes effect at its next
/// turn. Safe to share between threads.
public final class FolderKeySource: Sendable {
    /// What the folder's keys are like right now.
    public enum State: Sendable, Equatable {
        /// Every epoch this device may read: seal with the newest, open with any.
        case available(FolderKeyring)
        /// This device is not trusted yet: it uploads nothing until a trusted device
        /// approves it (`docs-status devices approve`) or the recovery key is entered.
        case awaitingApproval
        /// The keys are gone (the device's key file, or every device and the recovery key):
        /// the folder "cannot be decrypted" — shown loudly, and nothing is deleted.
        case cannotDecrypt(reason: String)

        public static func == (lhs: State, rhs: State) -> Bool {
            switch (lhs, rhs) {
            case let (.available(a), .available(b)): a.epochs.keys.sorted() == b.epochs.keys.sorted() && a.current.epoch == b.current.epoch
            case (.awaitingApproval, .awaitingApproval): true
            case let (.cannotDecrypt(a), .cannotDecrypt(b)): a == b
            default: false
            }
        }
    }

    private let state: Mutex<State>

    public init(_ state: State) { self.state = Mutex(state) }

    /// A source holding `keyring`.
    public convenience init(_ keyring: FolderKeyring) { self.init(.available(keyring)) }

    /// The state now.
    public var current: State { state.withLock { $0 } }

    /// The keyring when the keys are available, else nil.
    public var keyring: FolderKeyring? {
        if case let .available(keyring) = current { keyring } else { nil }
    }

    /// Replaces the state (keys arrived, an epoch was added, the keys were lost).
    public func update(_ new: State) { state.withLock { $0 = new } }
}
