/* A display's internals that the tests and the fuzz target reach. Internal to libflowd-screen. */
#ifndef FLOWD_SCREEN_DISPLAY_H
#define FLOWD_SCREEN_DISPLAY_H

#include "link.h"

/* A display on a descriptor already connected to flowd (or to a test playing flowd): as
 * flowd_display_connect, without dialling the socket or checking who serves it. The display owns
 * `fd` from then on, also when it returns NULL. */
flowd_display *fl_display_on_fd(const flowd_display_options *options, int fd, flowd_error *error);

#endif
