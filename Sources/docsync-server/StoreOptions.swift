import ArgumentParser

/// The flags of the store settings every user's storage is kept by (the configuration file's
/// `deleted_retention`, `gc_interval`, `gc_grace`), shared by `serve` and `gc`.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("deleted-retention"),
            help: ArgumentHelp("How long deleted files and replaced versions are kept (default 30d).", valueName: "duration"))
    var deletedRetention: String?

    @Option(name: .customLong("gc-interval"),
            help: ArgumentHelp("How often each user's storage is collected (default 1d; 0: never on a schedule).", valueName: "duration"))
    var collectionInterval: String?

    @Option(name: .customLong("gc-grace"),
            help: ArgumentHelp("How long a stored chunk nothing references yet is kept (default 1h): uploads in flight.", valueName: "duration"))
    var collectionGrace: String?

    /// The flags given, by configuration key.
    var overrides: [String: String] {
        var values: [String: String] = [:]
        values["deleted_retention"] = deletedRetention
        values["gc_interval"] = collectionInterval
        values["gc_grace"] = collectionGrace
        return values
    }
}
