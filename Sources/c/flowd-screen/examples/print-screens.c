/* A screen host in plain C on libflowd-screen: prints what flowd places, and sends what you type.
 *
 *   cc print-screens.c $(pkg-config --cflags --libs flowd-screen) -o print-screens
 *   flowd serve --app tutorial &
 *   ./print-screens tutorial            # the kinds to show (flowd describe APP lists them);
 *                                       # spawned by flowd it needs none
 *   2 {"didPressButton":{"index":1}}    # typed: an output for screen 2 (buttons count from 0)
 *   4 back                              # typed: back on screen 4
 *
 * One poll(2) loop watches the host and standard input: the library never blocks. The demo's
 * states are flowd.demo.v1.CardState (proto/flowd/demo/v1/cards.proto); the title and buttons
 * are read from its bytes here, other states are shown as JSON or by their size. */
#include <flowd/screen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Prints a CardState's title (field 1) and buttons (field 3, numbered from 0). */
static void print_card(const uint8_t *data, size_t size) {
    size_t at = 0;
    int button = 0;
    while (at < size) {
        uint8_t tag = data[at++];
        size_t length = 0;
        for (int shift = 0; at < size; shift += 7) { /* a varint length */
            length |= (size_t)(data[at] & 0x7f) << shift;
            if (!(data[at++] & 0x80)) break;
        }
        if ((tag & 7) != 2 || length > size - at) return;
        if (tag >> 3 == 1) printf("\"%.*s\"", (int)length, (const char *)data + at);
        if (tag >> 3 == 3) printf(" [%d %.*s]", button++, (int)length, (const char *)data + at);
        at += length;
    }
}

static void placed(flowd_screen_host *host, const flowd_place *place, void *user) {
    (void)host;
    (void)user;
    printf("+ screen %llu %s%s: ", (unsigned long long)place->screen_id, place->kind,
           place->placement.visible ? "" : " (hidden)");
    if (strstr(place->state.content_type, "proto=flowd.demo.v1.CardState"))
        print_card(place->state.data, place->state.size);
    else if (!*place->state.content_type || !strcmp(place->state.content_type, "application/json"))
        printf("%.*s", (int)place->state.size, (const char *)place->state.data);
    else
        printf("%zu bytes of %s", place->state.size, place->state.content_type);
    printf("\n");
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
    while (*rest == ' ') rest++;
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
    if (argc < 2 && !flowd_screen_is_spawned())
        fprintf(stderr, "print-screens: no kinds given: flowd places nothing here (flowd describe APP lists an app's kinds)\n");
    flowd_error error;
    flowd_screen_host *host = flowd_screen_open(&options, &error);
    if (!host) {
        fprintf(stderr, "print-screens: %s\n", error.message);
        return 1;
    }
    /* Standard input read with read(2), split into lines here: stdio's buffer would hide a second
     * line from poll. */
    char input[4096];
    size_t have = 0;
    int input_open = 1;
    while (!flowd_screen_end(host)->reason) {
        struct pollfd watch[2] = {{flowd_screen_fd(host), flowd_screen_events(host), 0}, {0, POLLIN, 0}};
        poll(watch, input_open ? 2 : 1, flowd_screen_timeout_ms(host));
        if (input_open && watch[1].revents) {
            ssize_t got = read(0, input + have, sizeof input - 1 - have);
            if (got <= 0) input_open = 0;
            else have += (size_t)got;
            char *newline;
            while ((newline = memchr(input, '\n', have))) {
                *newline = 0;
                typed(host, input);
                have -= (size_t)(newline + 1 - input);
                memmove(input, newline + 1, have);
            }
            if (have == sizeof input - 1) have = 0; /* a line too long: dropped */
        }
        flowd_screen_dispatch(host);
    }
    const flowd_end *end = flowd_screen_end(host);
    printf("ended: %d %s\n", end->reason, end->reason == FLOWD_END_ERROR ? end->error.message : end->shutdown_message);
    flowd_screen_free(host);
    return 0;
}
