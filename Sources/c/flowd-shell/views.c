/* Toplevels and claims: a client's toplevel is shown as screen N only after it claimed it with the
 * secret of N's current placement (flowd_shell_v1.claim), which the shell checks against flowd's
 * latest scene. A secret the shell does not know yet waits for a Ping barrier to flowd (the host's
 * Place and the shell's scene travel on different connections); still unknown after it, or held by
 * another client, the claim is a protocol error. An unclaimed toplevel is never shown. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include "flowd-shell-v1-server-protocol.h"
#include "shell.h"

/* A claim the shell cannot decide yet: its secret is not in the scene it has, or its toplevel
 * has not been announced (wlroots 0.15 announces it at its first commit). */
struct claim_wait {
    struct wl_list link;
    struct wl_resource *resource; /* the client's flowd_shell_v1, for the error */
    struct wl_client *client;
    struct wlr_surface *surface;
    struct wl_listener surface_destroy;
    char token[SHELL_TOKEN_MAX];
    uint64_t screen;      /* granted: the toplevel is not announced yet */
    uint64_t after_nonce; /* decided once a Pong with at least this nonce came (0: not pinged yet) */
};

static struct wlr_xdg_shell *xdg_shell;
static struct wl_listener new_xdg_surface_listener;

struct view *view_for_screen(uint64_t screen) {
    struct view *view;
    wl_list_for_each(view, &shell.views, link) {
        if (view->screen == screen) return view;
    }
    return NULL;
}

static struct view *view_for_surface(struct wlr_surface *surface) {
    struct view *view;
    wl_list_for_each(view, &shell.views, link) {
        if (view->xdg->surface == surface) return view;
    }
    return NULL;
}

static void wait_free(struct claim_wait *wait) {
    wl_list_remove(&wait->link);
    wl_list_remove(&wait->surface_destroy.link);
    free(wait);
}

static void wait_surface_destroyed(struct wl_listener *listener, void *data) {
    (void)data;
    struct claim_wait *wait = wl_container_of(listener, wait, surface_destroy);
    wait_free(wait);
}

/* The view shows `slot`'s screen from now on: any other view of that screen is detached. */
static void bind(struct view *view, struct slot *slot, const char *token) {
    struct view *other = view_for_screen(slot->screen);
    if (other && other != view) {
        other->screen = 0;
        other->token[0] = 0;
        if (other->node) wlr_scene_node_destroy(other->node);
        other->node = NULL;
    }
    bool same = view->screen == slot->screen;
    view->screen = slot->screen;
    snprintf(view->token, sizeof view->token, "%s", token);
    if (!same) view->drawn = false;
    pid_t pid = 0;
    wl_client_get_credentials(view->client, &pid, NULL, NULL);
    shell_say("claim: screen %llu (%s) by pid %d", (unsigned long long)slot->screen, slot->kind, (int)pid);
    shell_trace("granted", slot->screen);
    layout_attach(view);
    if (view->xdg->surface->buffer) layout_view_drawn(view);
}

/* Decides a claim: true once decided (granted or refused), false while it must wait. */
static bool decide(struct claim_wait *wait) {
    struct slot *slot = NULL, *candidate;
    wl_list_for_each(candidate, &shell.slots, link) {
        if (candidate->in_scene && !strcmp(candidate->token, wait->token)) slot = candidate;
    }
    if (!slot) {
        if (!shell.connected || wait->after_nonce == 0 || shell.last_pong < wait->after_nonce) {
            if (shell.connected && wait->after_nonce == 0 && !flowd_ping(&wait->after_nonce)) wait->after_nonce = 0;
            return false;
        }
        shell_say("refused claim: no screen has the secret %.8s...", wait->token);
        wl_resource_post_error(wait->resource, FLOWD_SHELL_V1_ERROR_INVALID_CLAIM,
                               "no screen of flowd's scene has this secret (flowd's Place.display_token)");
        return true;
    }
    struct view *view;
    wl_list_for_each(view, &shell.views, link) {
        if (view->client != wait->client && !strcmp(view->token, wait->token)) {
            shell_say("refused claim: screen %llu is claimed by another client", (unsigned long long)slot->screen);
            wl_resource_post_error(wait->resource, FLOWD_SHELL_V1_ERROR_ALREADY_CLAIMED,
                                   "another client claimed this screen's secret");
            return true;
        }
    }
    struct view *own = view_for_surface(wait->surface);
    if (own && own->screen != 0 && own->screen != slot->screen) {
        wl_resource_post_error(wait->resource, FLOWD_SHELL_V1_ERROR_ALREADY_CLAIMED,
                               "this surface shows another screen; make one toplevel per screen");
        return true;
    }
    if (!own) {
        wait->screen = slot->screen; /* granted: applied when the toplevel is announced */
        return false;
    }
    bind(own, slot, wait->token);
    return true;
}

static void decide_all(void) {
    struct claim_wait *wait, *next;
    wl_list_for_each_safe(wait, next, &shell.claim_waits, link) {
        if (wait->screen == 0 && decide(wait)) wait_free(wait);
    }
}

void views_scene_changed(void) { decide_all(); }

void views_flowd_lost(void) {
    struct claim_wait *wait;
    wl_list_for_each(wait, &shell.claim_waits, link) wait->after_nonce = 0;
}
void views_pong(uint64_t nonce) {
    (void)nonce;
    decide_all();
}

static void claim(struct wl_client *client, struct wl_resource *resource, struct wl_resource *surface_resource,
                  const char *secret) {
    struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
    /* A surface without a role yet may claim (GTK realizes its wl_surface before it makes the
     * toplevel): the claim applies when the toplevel is announced. Any other role may not. */
    bool xdg = wlr_surface_is_xdg_surface(surface);
    /* A destroyed xdg_surface leaves the role with no data behind it. */
    struct wlr_xdg_surface *xdg_surface = xdg ? wlr_xdg_surface_from_wlr_surface(surface) : NULL;
    if ((surface->role && !xdg) || (xdg && (!xdg_surface || xdg_surface->role == WLR_XDG_SURFACE_ROLE_POPUP))) {
        wl_resource_post_error(resource, FLOWD_SHELL_V1_ERROR_INVALID_CLAIM, "only an xdg_toplevel can show a screen");
        return;
    }
    if (strlen(secret) >= SHELL_TOKEN_MAX || !*secret) {
        wl_resource_post_error(resource, FLOWD_SHELL_V1_ERROR_INVALID_CLAIM, "a secret is 32 hex digits");
        return;
    }
    /* One claim waits per surface: a new one replaces it. */
    struct claim_wait *old, *next;
    wl_list_for_each_safe(old, next, &shell.claim_waits, link) {
        if (old->surface == surface) wait_free(old);
    }
    struct claim_wait *wait = calloc(1, sizeof *wait);
    if (!wait) {
        wl_client_post_no_memory(client);
        return;
    }
    shell_trace("claim", 0);
    wait->resource = resource;
    wait->client = client;
    wait->surface = surface;
    snprintf(wait->token, sizeof wait->token, "%s", secret);
    wait->surface_destroy.notify = wait_surface_destroyed;
    wl_signal_add(&surface->events.destroy, &wait->surface_destroy);
    wl_list_insert(shell.claim_waits.prev, &wait->link);
    if (decide(wait)) wait_free(wait);
}

static void shell_destroy(struct wl_client *client, struct wl_resource *resource) {
    (void)client;
    wl_resource_destroy(resource);
}

static const struct flowd_shell_v1_interface shell_implementation = {.destroy = shell_destroy, .claim = claim};

/* The client's flowd_shell_v1 is gone: its waiting claims cannot be answered any more. */
static void shell_resource_destroyed(struct wl_resource *resource) {
    struct claim_wait *wait, *next;
    wl_list_for_each_safe(wait, next, &shell.claim_waits, link) {
        if (wait->resource == resource) wait_free(wait);
    }
}

static void shell_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *resource = wl_resource_create(client, &flowd_shell_v1_interface, (int)version, id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &shell_implementation, NULL, shell_resource_destroyed);
}

/* The last frame of a view that is gone stays in its slot until the next view of the screen draws. */
void views_keep_last_frame(struct view *view, struct slot *slot) {
    struct wlr_surface *surface = view->xdg->surface;
    if (!slot || !view->drawn || !surface->buffer) return;
    if (slot->kept) wlr_scene_node_destroy(&slot->kept->node);
    slot->kept = wlr_scene_buffer_create(&slot->tree->node, &surface->buffer->base);
    if (slot->kept) wlr_scene_node_lower_to_bottom(&slot->kept->node);
    shell_say("kept: the last frame of screen %llu", (unsigned long long)slot->screen);
}

static void view_commit(struct wl_listener *listener, void *data) {
    (void)data;
    struct view *view = wl_container_of(listener, view, commit);
    if (view->screen && !view->drawn && view->xdg->surface->buffer && view->xdg->mapped) layout_view_drawn(view);
    /* A commit that asks for a frame callback and changes nothing on screen (GTK's frame clock asks
     * before it draws) gets its frame: a frame with no damage commits nothing, but its clients hear
     * frame done. */
    if (!wl_list_empty(&view->xdg->surface->current.frame_callback_list)) {
        shell_schedule_frame();
        windows_schedule_frames();
    }
}

static void view_map(struct wl_listener *listener, void *data) {
    (void)data;
    struct view *view = wl_container_of(listener, view, map);
    if (view->screen && !view->drawn && view->xdg->surface->buffer) layout_view_drawn(view);
}

static void view_title(struct wl_listener *listener, void *data) {
    (void)data;
    struct view *view = wl_container_of(listener, view, title);
    if (view->screen == shell.visible) layout_title_changed();
    else if (view->screen) windows_draw_titles(); /* it may be another output's visible screen */
}

static void view_destroy(struct wl_listener *listener, void *data) {
    (void)data;
    struct view *view = wl_container_of(listener, view, destroy);
    struct slot *slot = view->screen ? slot_for_screen(view->screen) : NULL;
    if (slot && slot->view == view) {
        views_keep_last_frame(view, slot);
        slot->view = NULL;
    }
    if (shell.seat->keyboard_state.focused_surface == view->xdg->surface) wlr_seat_keyboard_notify_clear_focus(shell.seat);
    wl_list_remove(&view->link);
    wl_list_remove(&view->map.link);
    wl_list_remove(&view->destroy.link);
    wl_list_remove(&view->commit.link);
    wl_list_remove(&view->title.link);
    free(view);
}

static void new_xdg_surface(struct wl_listener *listener, void *data) {
    (void)listener;
    struct wlr_xdg_surface *xdg = data;
    if (xdg->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL) return; /* popups are not shown */
    struct view *view = calloc(1, sizeof *view);
    if (!view) return;
    view->xdg = xdg;
    view->client = wl_resource_get_client(xdg->resource);
    view->map.notify = view_map;
    view->destroy.notify = view_destroy;
    view->commit.notify = view_commit;
    view->title.notify = view_title;
    wl_signal_add(&xdg->events.map, &view->map);
    wl_signal_add(&xdg->events.destroy, &view->destroy);
    wl_signal_add(&xdg->surface->events.commit, &view->commit);
    wl_signal_add(&xdg->toplevel->events.set_title, &view->title);
    wl_list_insert(&shell.views, &view->link);
    wlr_xdg_toplevel_set_maximized(xdg, true);
    wlr_xdg_toplevel_set_tiled(xdg, WLR_EDGE_TOP | WLR_EDGE_BOTTOM | WLR_EDGE_LEFT | WLR_EDGE_RIGHT);
    wlr_xdg_toplevel_set_size(xdg, (uint32_t)shell.width, (uint32_t)(shell.height - SHELL_HEADER));
    /* A claim granted before the toplevel was announced is decided again now, against the scene
     * of now: its secret may have been replaced since. */
    struct claim_wait *wait, *next;
    wl_list_for_each_safe(wait, next, &shell.claim_waits, link) {
        if (wait->surface != xdg->surface) continue;
        wait->screen = 0;
        if (decide(wait)) wait_free(wait);
    }
}

void views_init(void) {
    xdg_shell = wlr_xdg_shell_create(shell.display);
    new_xdg_surface_listener.notify = new_xdg_surface;
    wl_signal_add(&xdg_shell->events.new_surface, &new_xdg_surface_listener);
    wl_global_create(shell.display, &flowd_shell_v1_interface, 1, NULL, shell_bind);
}
