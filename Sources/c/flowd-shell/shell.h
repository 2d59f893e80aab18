/* flowd-shell: a Wayland compositor whose scene is flowd's navigation model (docs/shell.md).
 *
 * One output, one content area. flowd tells the shell the model (the display role, DisplayScene);
 * each screen is drawn by its own host process, whose toplevel is shown as screen N only after the
 * host claimed it with N's secret (flowd_shell_v1.claim). The shell draws the chrome (header with
 * back and title, tab bar) and turns back, close and tab from the chrome, keys and the control
 * channel into flowd's user navigation. It survives flowd (keeps the picture, reconnects, applies
 * the first scene) and its screens (a dead client's last frame stays until its successor draws). */
#ifndef FLOWD_SHELL_H
#define FLOWD_SHELL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <flowd/screen.h>

#define SHELL_HEADER 56      /* the header's height, at the top */
#define SHELL_TABBAR 56      /* the tab bar's height, at the bottom, when the visible screen is in tabs */
#define SHELL_MODAL_INSET 32 /* a modal layer's margin on every side of the layer under it */
#define SHELL_ANIMATION_MS 220
/* A frame at 60 Hz: the headless output's frame clock. */
#define SHELL_FRAME_MS 16
#define SHELL_TOKEN_MAX 64
#define SHELL_SWIPE_EDGE 24      /* a back swipe starts this close to the visible screen's left edge */
#define SHELL_SWIPE_COMMIT 0.35  /* let go past this fraction of the width, a back swipe commits */

struct wlr_scene_tree;
struct wlr_screencopy_manager_v1;
struct wlr_scene_buffer;
struct wlr_scene_node;
struct wlr_scene_rect;
struct wlr_xdg_surface;
struct wlr_surface;

/* A client's toplevel. Shown only once claimed for a screen, and only in that screen's slot. */
struct view {
    struct wl_list link;
    struct wlr_xdg_surface *xdg;
    struct wl_client *client;
    uint64_t screen;             /* the screen it was claimed for; 0: unclaimed */
    char token[SHELL_TOKEN_MAX]; /* the secret it was claimed with */
    struct wlr_scene_node *node; /* in its slot's tree while the slot exists */
    bool drawn;                  /* committed a buffer since it was claimed */
    struct wl_listener map, destroy, commit, title;
};

/* One screen of the latest scene (or one that is leaving with an animation). */
struct slot {
    struct wl_list link;
    uint64_t screen;
    char token[SHELL_TOKEN_MAX];
    char kind[64];
    struct wlr_scene_tree *tree;   /* positioned by the layout */
    struct view *view;             /* the claimed toplevel showing it, if any */
    struct wlr_scene_buffer *kept; /* the last frame of a view that is gone, until the next one draws */
    int width, height;             /* the size its toplevel is configured to */
    bool in_scene;                 /* in the latest scene; false: leaving, destroyed after its animation */
    int layer;                     /* 0: the window's content; k: the k-th modal presentation */
    int window;                    /* 0: the main window; k > 0: the window on output k + 1; -1: a window no output shows */
};

/* A motion between two scenes: one slot enters from an offset, another leaves to one. */
struct motion {
    bool running;
    bool waiting;                    /* held at its first step until the entering screen has a frame */
    uint64_t start_ms;
    uint64_t entering, leaving;      /* screens (0: none) */
    int enter_dx, enter_dy;          /* where the entering slot starts, relative to its place */
    int leave_dx, leave_dy;          /* where the leaving slot ends */
    bool dims;                       /* fades a modal's dim in (present) or out (dismiss) */
    bool dim_in;
};

/* A back swipe in progress: dragged from the visible screen's left edge (pointer or touch), or the
 * control channel's `swipe`. */
struct swipe {
    bool active;
    bool committed;   /* let go past SHELL_SWIPE_COMMIT: waits for flowd's pop */
    uint64_t screen;
    double progress;  /* 0..1 of the width */
    int32_t touch_id; /* the touch point dragging it, -1: the pointer or the control channel */
    bool dragging;    /* a pointer or touch point holds it */
    double origin_x;  /* where the drag began */
};

struct claim_wait;

struct shell {
    struct wl_display *display;
    struct wl_event_loop *loop;
    struct wlr_backend *backend;
    struct wlr_renderer *renderer;
    struct wlr_allocator *allocator;
    struct wlr_scene *scene;
    struct wlr_output_layout *layout;
    struct wlr_seat *seat;
    struct wlr_output *output;
    struct wlr_screencopy_manager_v1 *screencopy;
    struct wl_event_source *vblank; /* headless: our own frame clock (see output_frame) */
    bool headless;
    bool trace; /* FLOWD_SHELL_TRACE: timed lines for scripts/shell-figures' breakdown */
    int width, height;

    /* the scene graph: background, one tree per layer with a dim rect under it, chrome on top */
    struct wlr_scene_rect *background;
    struct wlr_scene_tree *layers;
    struct wlr_scene_tree *chrome;
    struct wlr_scene_node *chrome_header, *chrome_tabs; /* cairo buffers, replaced when they change */
    struct wlr_scene_rect *dims[8];

    struct wl_list views; /* struct view */
    struct wl_list slots; /* struct slot */
    struct wl_list claim_waits;

    /* flowd */
    const char *flowd_socket; /* NULL: libflowd-screen's default search */
    flowd_display *flowd;
    struct wl_event_source *flowd_io, *flowd_timer, *reconnect_timer;
    int flowd_io_fd;
    unsigned reconnects;
    bool connected;
    uint64_t scene_seq;
    uint64_t visible;             /* the scene's visible screen */
    bool back_applies, in_modal, visible_stacked; /* what back does on the visible screen */
    uint32_t tab_count, selected_tab; uint64_t tab_bar_screens[16];
    uint64_t below_visible; /* the screen under the visible one in its stack: a back swipe shows it */
    uint64_t last_pong;
    uint64_t presented; /* the visible screen last reported as presented */
    uint64_t own_back; /* the screen the shell's own back (a tap, a key) left: its pop is animated here */

    struct motion motion;
    struct wl_event_source *motion_wait; /* starts a held motion anyway after hold_ms */
    int hold_ms; /* --hold: how long a motion waits for its entering screen's first frame */
    struct swipe swipe;

    /* the control channel (--control): commands on stdin, answers on stdout */
    bool control;
    struct wl_event_source *control_io;
    char control_buffer[1024];
    size_t control_length;
    bool sync_waiting;
    uint64_t sync_nonce, sync_deadline_ms;
    struct wl_event_source *sync_timer;

    const char *name;
};

extern struct shell shell;

uint64_t shell_now_ms(void);
void shell_schedule_frame(void);
void shell_advertise_refresh(struct wlr_output *output); /* headless: clients hear SHELL_FRAME_MS's rate */
void shell_say(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* With FLOWD_SHELL_TRACE: `trace: EVENT screen N at SECONDS` (CLOCK_MONOTONIC). */
void shell_trace(const char *event, uint64_t screen);

/* views.c: toplevels and claims */
void views_init(void);
struct view *view_for_screen(uint64_t screen);
void views_scene_changed(void);   /* claims that waited for the scene are decided again */
void views_pong(uint64_t nonce);  /* claims that waited for this barrier are decided */
void views_flowd_lost(void);      /* their barriers were the old connection's */
void views_keep_last_frame(struct view *view, struct slot *slot);

/* layout.c: the scene from flowd, slots, positions, motion, chrome */
void layout_init(void);
void layout_apply(const flowd_scene *scene);
void layout_visible_area(int *x, int *y, int *width, int *height); /* the visible screen's layer */
void layout_place(void);
void layout_take_window(const flowd_scene_node *window, int index); /* a window a flow opened: its screens' slots */

/* windows.c: windows flows opened, each on an output of its own after the first */
bool windows_set_names(const char *list);           /* --displays NAME,NAME */
bool windows_add_output(struct wlr_output *output);  /* an output after the first */
void windows_apply(const flowd_scene *scene);        /* which window each output shows */
struct wlr_scene_tree *windows_tree(int window);
bool windows_shows(int window, uint64_t screen);
void windows_area(int window, int *width, int *height);
int windows_layout_width(void);
void windows_state(char *line, size_t size);
void windows_schedule_frames(void); /* a frame on every other output (frame callbacks) */
/* The displays this shell draws, for flowd: the first output as "main", each further one by its
 * --displays name; -1 when an output has no name (it shows any window, so no list is true). */
int windows_provided(flowd_provided_display *into, int max);
void windows_draw_titles(void);
/* A tap at (x, y) on another output's title bar: on its close button, closes that output's window
 * (CloseWindow); true when a title bar took it. */
bool windows_close_at(double x, double y); /* each output's title bar: its window's visible screen's title */
const char *layout_screen_title(uint64_t screen);
struct wlr_scene_node *layout_title_bar(struct wlr_scene_tree *parent, int width, const char *title);          /* positions every slot for the current motion and swipe */
bool layout_tick(uint64_t now);   /* advances the motion; true while it runs */
struct slot *slot_for_screen(uint64_t screen);
void layout_attach(struct view *view); /* puts a claimed view into its slot (or nowhere) */
void layout_view_drawn(struct view *view);
void layout_title_changed(void);
bool layout_settled(const char **why);
bool layout_visible_drawn(void);
int layout_tab_at(double x, double y); /* the tab under (x, y), or -1 */ /* the visible screen's own surface has a frame in its slot */

/* flowd.c: the display connection */
void flowd_start(void);
void flowd_provide_displays(void); /* tells flowd the displays the outputs draw (ProvideDisplays) */
void flowd_back(int phase);          /* back or close-modal on the visible screen, as it applies */
void flowd_select_tab(uint32_t index);
void flowd_close_window(uint64_t screen, int phase); /* the window `screen` is in, a window a flow opened */
uint64_t windows_visible(int output); /* the visible screen of output `output` (2 and on), or 0 */
bool flowd_ping(uint64_t *nonce);

/* input.c: keyboards and the control channel */
void input_init(void);
void control_start(void);
void control_synced(void);
#endif
