/// Which content a person keeps when settling a conflict (`docs-status resolve --keep`).
public enum ConflictKeep: String, Codable, Sendable, Hashable, CaseIterable {
    /// This device's side.
    case local
    /// The other device's side.
    case remote
    /// Both: the conflict copy becomes an ordinary file.
    case both

    /// What the conflict log records for it.
    public var outcome: ConflictOutcome {
        switch self {
        case .local: .resolvedLocal
        case .remote: .resolvedRemote
        case .both: .resolvedBoth
        }
    }
}

/// How a person's choice settles one conflict (SPEC §4, `docs-status resolve`): which file
/// holds which side, and what happens to each. Pure: what is on disk and in the index is
/// passed in.
///
/// **Which file holds which side.** A conflict is an original (at its path, holding the
/// server's content when the copy was made) and a conflict copy beside it, named
/// `<stem> (conflict <device> <time>)<.ext>` by the device whose content lost the race to the
/// server (`ConflictName`). So:
/// - a copy whose name carries *this* device holds this device's content (**local**), and
///   the original holds the other side (**remote**: what the server had);
/// - a copy whose name carries *another* device arrived from it and holds its content
///   (**remote**), and the original holds the side this device has (**local**): its own
///   edit that reached the server first — or, on a device that took no part, the version
///   it holds at the path.
///
/// Device names are compared as copies' names carry them (`ConflictName.safeDevice`).
///
/// **What happens.** The kept content ends at the original's path (the item keeps its
/// identity); the other goes to the version store; the copy's name goes. `--keep both` turns
/// each copy into an ordinary file named `<stem> 2<.ext>` (then ` 3`, …) after the original,
/// as the Finder names a second file kept beside another: the copy no longer looks like,
/// nor counts as, a conflict. Named by its copy, one conflict is settled; named by its
/// original, every copy beside it is.
public enum ConflictResolution {
    /// What is done to one conflict copy.
    public enum Step: Sendable, Hashable {
        /// The copy holds the kept content: it takes the original's place (the original's
        /// content goes to the version store) and its own name goes.
        case takeCopy(RelativePath)
        /// The original holds the kept content: the copy goes to the version store.
        case dropCopy(RelativePath)
        /// Both are kept: the copy becomes the ordinary file `to`.
        case renameCopy(RelativePath, to: RelativePath)

        /// The copy the step acts on.
        public var copy: RelativePath {
            switch self {
            case .takeCopy(let copy), .dropCopy(let copy), .renameCopy(let copy, _): copy
            }
        }
    }

    /// The steps that settle the conflict of `original` with `copies` (its conflict copies,
    /// each beside it) as `keep` asks, for the path a person `named` (the original: every
    /// copy; a copy: that one). `device` is this device; `isTaken` says whether a path is in
    /// use (on disk or in the index), for `--keep both`'s new names. At most one step takes
    /// a copy, and it comes first.
    ///
    /// Throws `.invalidArguments`, with what to do instead, when the choice is ambiguous:
    /// the original named with several copies that could each be the side asked for.
    public static func plan(
        original: RelativePath, copies: [RelativePath], named: RelativePath, keep: ConflictKeep, device: String,
        isTaken: (RelativePath) -> Bool
    ) throws(SyncError) -> [Step] {
        if named != original {
            // One copy named: that conflict alone, by the rule of sides.
            guard copies.contains(named) else { return [] }
            let copyIsLocal = isLocal(named, device: device)
            switch keep {
            case .both: return [.renameCopy(named, to: keptCopyPath(for: original, isTaken: isTaken))]
            case .local: return [copyIsLocal ? .takeCopy(named) : .dropCopy(named)]
            case .remote: return [copyIsLocal ? .dropCopy(named) : .takeCopy(named)]
            }
        }
        let chosen = copies.sorted()
        guard !chosen.isEmpty else { return [] }
        let local = chosen.filter { isLocal($0, device: device) }
        switch keep {
        case .both:
            var given = Set<RelativePath>()
            return chosen.map { copy in
                let target = keptCopyPath(for: original) { isTaken($0) || given.contains($0) }
                given.insert(target)
                return .renameCopy(copy, to: target)
            }
        case .local:
            // This device's content: in the one copy it made, else at the original.
            guard local.count <= 1 else { throw ambiguous(original, local.count, "this device's") }
            return ordered(kept: local.first, of: chosen)
        case .remote:
            // The other side: every copy another device made, and the original when this
            // device made a copy.
            let others = chosen.filter { !isLocal($0, device: device) }
            let candidates = others.count + (local.isEmpty ? 0 : 1)
            guard candidates <= 1 else { throw ambiguous(original, candidates, "other devices'") }
            return ordered(kept: others.first, of: chosen)
        }
    }

    /// True when `copy`'s name carries `device`: this device made it, and it holds this
    /// device's content.
    public static func isLocal(_ copy: RelativePath, device: String) -> Bool {
        ConflictName.device(of: copy.name).bytesEqual(ConflictName.safeDevice(device))
    }

    /// The path a copy kept with `--keep both` takes: `<stem> 2<.ext>` beside `original`
    /// (its stem and extension as `ConflictName.split` has them), or ` 3`, ` 4`… while
    /// `isTaken` says a candidate is in use. The name stays within 255 bytes (the stem is
    /// shortened on a character boundary) and is never a conflict copy's name.
    public static func keptCopyPath(for original: RelativePath, isTaken: (RelativePath) -> Bool) -> RelativePath {
        let (stem, ext) = ConflictName.split(original.name)
        let parentBytes = original.parent.map { $0.string.utf8.count + 1 } ?? 0
        let budget = min(255, 4096 - parentBytes)
        var number = 2
        while true {
            let suffix = " \(number)" + ext
            let room = budget - suffix.utf8.count
            let short = room > 0 ? ConflictName.truncated(stem, toBytes: room) : ""
            let name = short.isEmpty ? ConflictName.truncated("\(number)" + ext, toBytes: budget) : short + suffix
            let candidate = original.parent.map { RelativePath($0.string + "/" + name) } ?? RelativePath(name)
            if !isTaken(candidate), !ConflictName.isConflictCopy(name) { return candidate }
            number += 1
        }
    }

    // MARK: - Private

    /// The steps when `kept` (a copy, or `nil`: the original) holds the content kept: it takes
    /// the original's place first, every other copy goes.
    private static func ordered(kept: RelativePath?, of chosen: [RelativePath]) -> [Step] {
        (kept.map { [Step.takeCopy($0)] } ?? []) + chosen.filter { $0 != kept }.map { Step.dropCopy($0) }
    }

    private static func ambiguous(_ original: RelativePath, _ count: Int, _ whose: String) -> SyncError {
        SyncError(.invalidArguments, "\(original.name): \(count) of its conflict's files hold \(whose) versions: "
                  + "resolve each conflict copy by its own path (docs-status resolve COPY --keep …), or keep both")
    }
}
