import DocSyncControl

// Replaced by the argument parser entry point.
print("docs-status")
