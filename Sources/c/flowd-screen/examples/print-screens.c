/* A screen host in plain C on libflowd-screen: prints what flowd places, and sends what you type.
 *
 *   cc print-screens.c $(pkg-config --cflags --libs flowd-screen) -o print-screens
 *   flowd serve --app tutorial &
 *   ./print-screens tutorial            # the kinds to show; spawned by flowd it needs none
 *   7 {"didPressButton":{"index":1}}    # typed: an output for screen 7
 *   7 back                              # typed: back on screen 7
 *
 * One poll(2) loop watches the host and standard input: the library never blocks. */
#include <flowd/screen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    (void)host;
    (void)user;
    int json = !*place->state.content_type || !strcmp(place->state.content_type, "application/json");
    printf("+ screen %llu %s at depth %zu%s: ", (unsigned long long)place->screen_id, place->kind,
           place->placement.path_count, place->placement.visible ? "" : " (hidden)");
    if (json)
        printf("%.*s\n", (int)place->state.size, (const char *)place->state.data);
    else
        printf("%zu bytes of %s\n", place->state.size, place->state.content_type);
    fflush(stdout);
}

static void dismissed(flowd_screen_host *host, const flowd_dismiss *dismiss, void *user) {
    (void)host;
    (void)user;
    printf("- screen %llu\n", (unsigned long long)dismiss->screen_id);
    fflush(stdout);
}

static void refused(flowd_screen_host *host, const flowd_error *error, void *user) {
    (void)host;
    (void)user;
    printf("! %s: %s\n", flowd_error_name(error->code), error->message);
    fflush(stdout);
}

/* "ID JSON" sends an output, "ID back" goes back. */
static void typed(flowd_screen_host *host, char *line) {
    char *rest = NULL;
    unsigned long long id = strtoull(line, &rest, 10);
    while (rest && *rest == ' ') rest++;
    rest[strcspn(rest, "\n")] = 0;
    flowd_error error;
    int sent = !strcmp(rest, "back") ? flowd_screen_back(host, id, FLOWD_PHASE_IMMEDIATE, &error)
                                     : flowd_screen_send_json(host, id, rest, &error);
    if (sent < 0) printf("! %s\n", error.message);
    fflush(stdout);
}

int main(int argc, char **argv) {
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "print-screens";
    options.provides = (const char *const *)argv + 1;
    options.provides_count = (size_t)argc - 1;
    options.callbacks.placed = placed;
    options.callbacks.dismissed = dismissed;
    options.callbacks.error = refused;
    flowd_error error;
    flowd_screen_host *host = flowd_screen_open(&options, &error);
    if (!host) {
        fprintf(stderr, "print-screens: %s\n", error.message);
        return 1;
    }
    int input_open = 1;
    while (!flowd_screen_end(host)->reason) {
        struct pollfd watch[2] = {{flowd_screen_fd(host), flowd_screen_events(host), 0}, {0, POLLIN, 0}};
        poll(watch, input_open ? 2 : 1, flowd_screen_timeout_ms(host));
        if (input_open && watch[1].revents) {
            char line[4096];
            if (fgets(line, sizeof line, stdin))
                typed(host, line);
            else
                input_open = 0;
        }
        flowd_screen_dispatch(host);
    }
    const flowd_end *end = flowd_screen_end(host);
    printf("ended: %d %s\n", end->reason, end->reason == FLOWD_END_ERROR ? end->error.message : end->shutdown_message);
    flowd_screen_free(host);
    return 0;
}
