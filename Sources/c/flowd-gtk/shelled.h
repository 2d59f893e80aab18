/* flowd-gtk under flowd-shell: one undecorated toplevel per screen, claimed with its display_token
 * (shelled.c). */
#ifndef FLOWD_GTK_SHELLED_H
#define FLOWD_GTK_SHELLED_H

#include <flowd/screen.h>
#include <gtk/gtk.h>

typedef struct shelled shelled;

/* True when GTK's display is flowd-shell (Wayland, with flowd_shell_v1). */
bool shelled_available(void);
shelled *shelled_new(void);
void shelled_free(shelled *shelled);
void shelled_set_host(shelled *shelled, flowd_screen_host *host);
void shelled_on_sent(shelled *shelled, void (*sent)(void *), void *user);
size_t shelled_count(shelled *shelled);

/* The library's callbacks, with the shelled host as `user`. */
void shelled_placed(flowd_screen_host *host, const flowd_place *place, void *user);
void shelled_updated(flowd_screen_host *host, const flowd_update *update, void *user);
void shelled_dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user);

#endif
