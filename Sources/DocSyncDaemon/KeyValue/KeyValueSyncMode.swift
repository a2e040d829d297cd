import DocSyncCore
import DocSyncEngine

/// How a key-value store syncs (SPEC §12, §13): in its own zone as plain Values (a plain
/// account), sealed in the account's opaque zone (a trusted device of an encrypted account),
/// or not at all while this device cannot seal (it awaits approval, its keys cannot be
/// trusted, the server has not said whether the account is encrypted): its writes stay here.
enum KeyValueSyncMode: Sendable {
    case plain
    case sealed(KeyValueEncryption)
    case held(String)
}

/// A store's sealing: its opaque zone and record names, and the keys of that zone.
struct KeyValueEncryption: Sendable {
    let sealing: KeyValueSealing
    let keys: FolderKeySource
}
