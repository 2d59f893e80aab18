/* A screen process for `flowd --spawn-screens` (the conformance suite's spawned test): shows its one
 * "item" screen, pushes from the stack's root and finishes above it, and says what happened on
 * flowd's stderr, one write per line (two processes share it). */
#include <stdio.h>
#include <string.h>

#include "support.h"

static char title[128];

void check_failed(const char *file, int line, const char *text) {
    fprintf(stderr, "spawned: %s:%d: %s\n", file, line, text);
    exit(1);
}

static void say(const char *text) {
    fprintf(stderr, "spawned: %s\n", text);
    fflush(stderr);
}

static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    (void)user;
    card state;
    card_decode(place->state.data, place->state.size, &state);
    snprintf(title, sizeof title, "%s", state.title);
    char text[200];
    snprintf(text, sizeof text, "placed %s animated=%d", title, place->animated);
    say(text);
    int index = flowd_placement_stack_index(&place->placement) == 0 ? 0 : 2; /* Push, or Finish */
    flowd_screen_send_json(host, place->screen_id, index == 0 ? PRESS(0) : PRESS(2), NULL);
}

static void dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    (void)host;
    (void)user;
    char text[200];
    snprintf(text, sizeof text, "dismissed %s %s", title,
             dismiss->reason == FLOWD_DISMISS_FLOW_FINISHED ? "FLOW_FINISHED" : "OTHER");
    say(text);
}

int main(void) {
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "spawned-item";
    options.callbacks.placed = placed;
    options.callbacks.dismissed = dismissed;
    flowd_error error;
    flowd_screen_host *host = flowd_screen_spawned(&options, &error);
    if (!host) {
        fprintf(stderr, "spawned: %s: %s\n", flowd_error_name(error.code), error.message);
        return 69;
    }
    int reason = flowd_screen_run(host);
    say(reason == FLOWD_END_SCREEN_DISMISSED ? "ended SCREEN_DISMISSED" : "ended otherwise");
    flowd_screen_free(host);
    return 0;
}
