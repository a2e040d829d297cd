import DocSyncDaemon

// Replaced by the argument parser entry point.
print("docsyncd")
