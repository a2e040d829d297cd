#ifndef DOCSYNC_CINOTIFYTOOLS_SHIM_H
#define DOCSYNC_CINOTIFYTOOLS_SHIM_H

// libinotifytools from Debian's libinotifytools0-dev (no pkg-config file; the
// headers live in /usr/include/inotifytools). See ../shared/LINUX-NOTES.md.
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <inotifytools/inotifytools.h>

// Compound masks are macros Swift cannot import; name them here.
static const unsigned int docsync_IN_ALL_EVENTS = IN_ALL_EVENTS;
static const unsigned int docsync_IN_CLOSE = IN_CLOSE;
static const unsigned int docsync_IN_MOVE = IN_MOVE;

// The size of `struct inotify_event` without its name: where each event's name starts.
static const unsigned int docsync_inotify_event_header_size = sizeof(struct inotify_event);

// Variadic C functions (ioctl, fcntl) do not import into Swift; wrap the calls the watcher
// makes. Each returns -1 with errno set on failure, like the call it wraps.

// How many bytes of events wait in the kernel queue of inotify instance `fd` (FIONREAD).
static inline int docsync_inotify_pending_bytes(int fd) {
    int bytes = 0;
    return ioctl(fd, FIONREAD, &bytes) == 0 ? bytes : -1;
}

// Makes reads of `fd` return EAGAIN instead of blocking when nothing is queued.
static inline int docsync_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// A non-blocking, close-on-exec eventfd: one thread writes to it to wake another's poll(2).
static inline int docsync_make_wake_fd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

// `struct inotify_event`'s flexible `name` member is invisible to Swift.
// Returns the event's file name, or NULL when the event carries none.
static inline const char *docsync_inotify_event_name(const struct inotify_event *event) {
    return event->len > 0 ? event->name : (const char *)0;
}

#endif
