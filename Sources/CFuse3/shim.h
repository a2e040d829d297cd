// libfuse 3's low-level API (Debian: libfuse3-dev), and what Swift cannot reach in it:
// the FUSE_ARGS_INIT macro, the versioned fuse_session_loop_mt macro, and the bit fields
// of struct fuse_file_info.
#ifndef DOCSYNC_CFUSE3_SHIM_H
#define DOCSYNC_CFUSE3_SHIM_H

// No _GNU_SOURCE here: the C library's headers must read as they do for Swift's Glibc
// module (a struct seen two ways breaks the build); the two GNU calls are declared below.
#define FUSE_USE_VERSION 314
#include <stdio.h>
#include <fcntl.h>
#include <fuse3/fuse_lowlevel.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <errno.h>

/// Runs the session's loop on up to `max_threads` threads until it is exited or unmounted;
/// with 1, on the calling thread alone (`fuse_session_loop`).
static inline int docsync_fuse_loop(struct fuse_session *se, unsigned max_threads) {
    if (max_threads <= 1) return fuse_session_loop(se);
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    if (config == NULL) return -ENOMEM;
    fuse_loop_cfg_set_max_threads(config, max_threads);
    fuse_loop_cfg_set_idle_threads(config, 4);
    int result = fuse_session_loop_mt(se, config);
    fuse_loop_cfg_destroy(config);
    return result;
}

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
int fallocate(int fd, int mode, off_t offset, off_t len);

/// renameat2(2)'s flags.
static const unsigned docsync_rename_noreplace = 1;
static const unsigned docsync_rename_exchange = 2;

/// renameat2(2) with its flags (`docsync_rename_noreplace`, `docsync_rename_exchange`).
static inline int docsync_renameat2(const char *from, const char *to, unsigned flags) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, flags);
}

/// UTIME_NOW and UTIME_OMIT, which Swift does not import.
static const long docsync_utime_now = UTIME_NOW;
static const long docsync_utime_omit = UTIME_OMIT;

static inline int docsync_fallocate(int fd, int mode, off_t offset, off_t length) { return fallocate(fd, mode, offset, length); }
static inline int docsync_statvfs(const char *path, struct statvfs *status) { return statvfs(path, status); }

static inline void docsync_fuse_file_keep_cache(struct fuse_file_info *fi, int keep) { fi->keep_cache = keep ? 1 : 0; }
static inline void docsync_fuse_file_direct_io(struct fuse_file_info *fi, int direct) { fi->direct_io = direct ? 1 : 0; }
static inline void docsync_fuse_file_cache_readdir(struct fuse_file_info *fi, int cache) { fi->cache_readdir = cache ? 1 : 0; }

/// The capabilities the kernel offers and the filesystem asks for (FUSE_CAP_*).
static inline unsigned docsync_fuse_conn_capable(struct fuse_conn_info *conn) { return conn->capable; }
static inline void docsync_fuse_conn_want(struct fuse_conn_info *conn, unsigned flags) { conn->want |= (flags & conn->capable); }
static inline void docsync_fuse_conn_unwant(struct fuse_conn_info *conn, unsigned flags) { conn->want &= ~flags; }
static inline void docsync_fuse_conn_max_readahead(struct fuse_conn_info *conn, unsigned bytes) { conn->max_readahead = bytes; }

#endif
