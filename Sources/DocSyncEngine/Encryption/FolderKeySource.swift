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
        /// A shared folder's keys are not here yet, for `reason` (the owner has not
        /// confirmed this account's fingerprint, or this account is not encrypted): it
        /// uploads nothing and waits, as a device awaiting approval does.
        case waiting(reason: String)
        /// The keys are gone (the device's key file, or every device and the recovery key):
        /// the folder "cannot be decrypted" — shown loudly, and nothing is deleted.
        case cannotDecrypt(reason: String)

        public static func == (lhs: State, rhs: State) -> Bool {
            switch (lhs, rhs) {
            case let (.available(a), .available(b)): a.epochs.keys.sorted() == b.epochs.keys.sorted() && a.current.epoch == b.current.epoch
            case (.awaitingApproval, .awaitingApproval): true
            case let (.waiting(a), .waiting(b)): a == b
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

    /// Replaces the state (keys arrived, an epoch was added, the keys were lost). When a
    /// record needed an epoch not held then (`noteMissingEpoch`) and the epochs held now
    /// differ, tells `whenMissingKeysArrive`'s callback.
    public func update(_ new: State) {
        state.withLock { $0 = new }
        guard case let .available(keyring) = new else { return }
        let arrived = hooks.withLock { hooks in
            hooks.missedWith.map { $0 != Set(keyring.epochs.keys) } == true ? hooks.arrived : nil
        }
        arrived?()
    }

    // MARK: epochs not held yet

    private struct Hooks {
        var missing: (@Sendable () -> Void)?
        var arrived: (@Sendable () -> Void)?
        /// The epochs held when a record first needed another one; `nil`: none needed.
        var missedWith: Set<UInt32>?
    }

    private let hooks = Mutex(Hooks())

    /// Calls `body` whenever a record needs an epoch this device does not hold (a new epoch
    /// started elsewhere): the daemon reads the keys again.
    public func whenKeysAreMissing(_ body: @escaping @Sendable () -> Void) { hooks.withLock { $0.missing = body } }

    /// Calls `body` when the epochs held change after a record needed one not held: the
    /// engine fetches again.
    public func whenMissingKeysArrive(_ body: @escaping @Sendable () -> Void) { hooks.withLock { $0.arrived = body } }

    /// A record was sealed in an epoch not held: noted, and the daemon told.
    func noteMissingEpoch() {
        let held = Set(keyring?.epochs.keys.map { $0 } ?? [])
        let missing = hooks.withLock { hooks in
            if hooks.missedWith == nil { hooks.missedWith = held }
            return hooks.missing
        }
        missing?()
    }

    /// True once after the epochs held changed since a record needed one not held: what was
    /// fetched since then is fetched again (records refused for a missing epoch open now).
    func takeRefetch() -> Bool {
        guard let keyring else { return false }
        return hooks.withLock { hooks in
            guard let missed = hooks.missedWith, missed != Set(keyring.epochs.keys) else { return false }
            hooks.missedWith = nil
            return true
        }
    }
}
