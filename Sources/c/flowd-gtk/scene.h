/* The screens flowd placed on this host, drawn as GTK 4 widgets: a window with a header bar (back,
 * title) for the app's main window and one for each window a flow opened on another display, a
 * GtkStack per navigation stack (slide transitions when flowd says `animated`), a
 * GtkStack with a GtkStackSwitcher per tab bar, a modal window per modal presentation, and a card
 * per screen (title, body, entry, buttons). Events from libflowd-screen change the model; sync()
 * makes the widgets match it; what the person does goes back to flowd as outputs and navigation. */
#ifndef FLOWD_GTK_SCENE_H
#define FLOWD_GTK_SCENE_H

#include <flowd/screen.h>
#include <gtk/gtk.h>

typedef struct scene scene;

scene *scene_new(flowd_screen_host *host, const char *title);
void scene_free(scene *scene);
void scene_set_host(scene *scene, flowd_screen_host *host);
/* Called after every output or navigation the scene sends (the loop watches for writing again). */
void scene_on_sent(scene *scene, void (*sent)(void *), void *user);
/* The main window (closing it ends the host: main.c's business). */
GtkWidget *scene_main_window(scene *scene);

/* The library's callbacks, with the scene as `user`. */
void scene_placed(flowd_screen_host *host, const flowd_place *place, void *user);
void scene_updated(flowd_screen_host *host, const flowd_update *update, void *user);
void scene_placement_changed(flowd_screen_host *host, const flowd_placement_changed *change, void *user);
void scene_dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user);

/* Makes the widgets match the screens (after each dispatch). */
void scene_sync(scene *scene);

/* What a person does, also driven by the test channel: each returns NULL, or why it cannot. */
const char *scene_press(scene *scene, const char *label);
const char *scene_type(scene *scene, const char *text, bool enter); /* enter: then Enter, as typed and sent */
const char *scene_back(scene *scene);
const char *scene_escape(scene *scene);
const char *scene_close(scene *scene);
const char *scene_close_window(scene *scene); /* the first window a flow opened, as its close button does */
const char *scene_tab(scene *scene, int tab); /* 1-based, as people count */

/* The front screen of the front window: its id, kind, title and body (NULL if none). */
bool scene_front(scene *scene, uint64_t *id, const char **kind, const char **title, const char **body);
/* The widget tree as text lines, for the tests (docs/native.md, "The GTK host"). */
void scene_dump(scene *scene, GString *out);
/* True while a stack is still sliding. */
bool scene_animating(scene *scene);
/* A PNG of the front window (the modal one when one is open); NULL, or why not. */
const char *scene_screenshot(scene *scene, const char *path);

#endif
