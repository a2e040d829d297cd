// libdbus-1, the reference D-Bus client library (Debian: libdbus-1-dev), for the desktop
// notifications of docsyncd (org.freedesktop.Notifications on the session bus).
#ifndef DOCSYNC_CDBUS_SHIM_H
#define DOCSYNC_CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
