import DocSyncCore

/// Who may do what in a zone (SPEC §11), decided once for every store and route: the
/// owner everything; a read-write participant reads, saves, deletes and recovers; a
/// read-only participant reads (fetches, lists Recently Deleted); only the owner purges,
/// creates, deletes or moves the zone and changes the share. A participant whose entry is
/// not `accepted` (invited, declined, removed, left, stopped), any other account, and a
/// request for a zone that does not exist all get the same answer, so none of them can
/// tell whether the zone exists. One zone is the exception: every account's public key
/// store (`~docsync.public`, SPEC §13), which any account may read and only its owner writes.
public enum ZoneAccess {
    /// The zone of an account's public key store, readable by every account.
    public static let publicKeysZone = KeyValueStoreID(KeyDirectory.publicStoreName).zone

    public enum Decision: Hashable, Sendable {
        /// The request goes ahead in this role.
        case allowed(ZoneRole)
        /// The caller takes part in the zone but may not do this (`permissionDenied`, 403).
        case denied(ZoneRole)
        /// The caller has nothing of the zone: answered as a zone that does not exist.
        case hidden
    }

    /// The decision for `caller` doing `operation` in `share` (the zone and its owner),
    /// given the caller's entry in that share (`nil`: none). The entry is ignored for the
    /// owner, and must be the caller's own entry of that very share.
    public static func decide(_ operation: ZoneOperation, caller: String, share: ShareName, entry: ShareEntry?) -> Decision {
        if caller == share.owner { return .allowed(.owner) }
        if share.zone == publicKeysZone { return operation == .read ? .allowed(.participant(.readOnly)) : .denied(.participant(.readOnly)) }
        guard let entry, entry.share == share, entry.participant == caller, entry.status == .accepted else { return .hidden }
        let role = ZoneRole.participant(entry.permission)
        return allows(role, operation) ? .allowed(role) : .denied(role)
    }

    /// Whether `role` may do `operation`.
    public static func allows(_ role: ZoneRole, _ operation: ZoneOperation) -> Bool {
        switch (role, operation) {
        case (.owner, _): true
        case (.participant, .read): true
        case (.participant(.readWrite), .save), (.participant(.readWrite), .recover): true
        case (.participant, _): false
        }
    }

    /// The role `decision` allows, or the error it answers: `permissionDenied` naming what
    /// the participant may not do, or the `zoneNotFound` of a zone that does not exist.
    public static func require(_ decision: Decision, _ operation: ZoneOperation, in share: ShareName) throws(SyncError) -> ZoneRole {
        switch decision {
        case .allowed(let role):
            return role
        case .denied(let role):
            let why = role.permission == .readOnly && (operation == .save || operation == .recover)
                ? "you may only read \(share), which \(share.owner) shares with you read-only; ask \(share.owner) for read-write"
                : "only \(share.owner), who owns \(share), may \(operation.phrase) there"
            throw SyncError(.permissionDenied, "cannot \(operation.phrase) in \(share): \(why)")
        case .hidden:
            throw SyncError.zoneNotFound(share.zone)
        }
    }
}
