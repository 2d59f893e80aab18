/* flowd-gtk's scene inside: the model (the screens flowd placed), the widgets derived from it and
 * the desktop windows, shared by scene.c (the model and its widgets) and scene-probe.c (the test
 * channel's side: what a test presses, reads and photographs). Not part of scene.h's interface. */
#ifndef FLOWD_GTK_SCENE_PARTS_H
#define FLOWD_GTK_SCENE_PARTS_H

#include "scene.h"

#include "card.h"

typedef struct shown { /* a screen flowd placed here */
    uint64_t id;
    char *kind;
    card state;
    flowd_path_step *path; /* its display strings are not kept: `display` is the window's */
    size_t path_count;
    char *display; /* the display of the window it is in, when a flow opened that window; else NULL */
    bool visible;
    bool dirty; /* its state changed since its card was drawn */
} shown;

typedef enum { PART_CARD, PART_STACK, PART_TABS } part_kind;

typedef struct part { /* the widget of one node below the window */
    uint64_t id;
    part_kind kind;
    GtkWidget *widget; /* what the owner holds (a strong reference of ours) */
    GtkWidget *stack;  /* PART_STACK: the widget itself; PART_TABS: the GtkStack inside it */
    GtkWidget *owner;  /* the GtkStack or window box holding it */
    uint32_t index;    /* its position in its owner: stack depth or tab */
    bool wanted;
} part;

typedef struct frame { /* a desktop window: one per flowd window (root 0), one per modal presentation */
    uint64_t flowd_window; /* the flowd window it shows: 0 for the app's main one, else the window's id */
    char *display;         /* the display a flow opened that window on (NULL for the main window) */
    uint64_t root;         /* the modal presentation it shows, 0 for the window itself */
    GtkWidget *window, *content, *back, *title;
    uint64_t front; /* the screen in front */
    bool wanted;
} frame;

struct scene {
    flowd_screen_host *host;
    void (*sent)(void *); /* after every send outside a dispatch: the loop watches for writing again */
    void *sent_user;
    GPtrArray *screens; /* shown* */
    GPtrArray *parts;   /* part* */
    GPtrArray *frames;  /* frame*: [0] is the main window */
    GHashTable *selected_tab; /* tab bar id -> tab index + 1 */
    bool animate;             /* an event of this batch asked for animation */
    bool syncing;             /* widgets change because of flowd, not the person */
};

#define ID_KEY "flowd-id"
uint64_t id_of(gpointer object, const char *key);

shown *find_shown(scene *sc, uint64_t id);
part *find_part(scene *sc, uint64_t id);
/* The front desktop window of a flowd window: its newest modal one, else the window itself. */
frame *front_of(scene *sc, uint64_t flowd_window);
/* The window in front for the test channel: the main window's newest modal one, else the main window. */
frame *front_frame(scene *sc);
/* Escape in `f`: closes its modal presentation, or goes back (as the Escape key does). */
const char *escape_in(scene *sc, frame *f);

#endif
