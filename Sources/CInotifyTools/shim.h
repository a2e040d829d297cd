#ifndef DOCSYNC_CINOTIFYTOOLS_SHIM_H
#define DOCSYNC_CINOTIFYTOOLS_SHIM_H

// libinotifytools from Debian's libinotifytools0-dev (no pkg-config file; the
// headers live in /usr/include/inotifytools). See ../shared/LINUX-NOTES.md.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

// Compound masks are macros Swift cannot import; name them here.
static const unsigned int docsync_IN_ALL_EVENTS = IN_ALL_EVENTS;
static const unsigned int docsync_IN_CLOSE = IN_CLOSE;
static const unsigned int docsync_IN_MOVE = IN_MOVE;

// `struct inotify_event`'s flexible `name` member is invisible to Swift.
// Returns the event's file name, or NULL when the event carries none.
static inline const char *docsync_inotify_event_name(const struct inotify_event *event) {
    return event->len > 0 ? event->name : (const char *)0;
}

#endif
