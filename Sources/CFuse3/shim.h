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
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/// The process's environment (declared here in a block: unistd.h declares `environ` only
/// under _GNU_SOURCE, and a second file-scope declaration would clash in Swift).
static inline char **docsync_environment(void) { extern char **environ; return environ; }

/// Mounts FUSE at `mountpoint` through the setuid `fusermount3` (`options` as its `-o`), as
/// libfuse does for an unprivileged process, and returns the `/dev/fuse` descriptor it passes
/// back (serve it with `fuse_session_mount(se, "/dev/fd/N")`), or -errno. Works where this
/// user cannot open `/dev/fuse` itself; spawns with `posix_spawnp`, safe in a threaded process.
static inline int docsync_fusermount_mount(const char *mountpoint, const char *options) {
    int sockets[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) == -1) return -errno;
    (void)fcntl(sockets[1], F_SETFD, FD_CLOEXEC);
    char commfd[32];
    snprintf(commfd, sizeof commfd, "_FUSE_COMMFD=%d", sockets[0]);
    char **environment = docsync_environment();
    size_t count = 0;
    while (environment[count] != NULL) count++;
    char **envp = calloc(count + 2, sizeof(char *));
    if (envp == NULL) { close(sockets[0]); close(sockets[1]); return -ENOMEM; }
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (strncmp(environment[i], "_FUSE_COMMFD=", 13) != 0) envp[kept++] = environment[i];
    }
    envp[kept++] = commfd;
    envp[kept] = NULL;
    char *argv[] = { "fusermount3", "-o", (char *)options, "--", (char *)mountpoint, NULL };
    pid_t pid;
    int spawned = posix_spawnp(&pid, "fusermount3", NULL, NULL, argv, envp);
    free(envp);
    close(sockets[0]);
    if (spawned != 0) { close(sockets[1]); return -spawned; }
    char byte;
    struct iovec iov = { &byte, 1 };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t received;
    do { received = recvmsg(sockets[1], &message, 0); } while (received == -1 && errno == EINTR);
    int status = 0;
    while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {}
    close(sockets[1]);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (received <= 0 || header == NULL || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) return -EIO;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof fd);
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

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
