/* libFuzzer target of libflowd-screen's reading side (scripts/libflowd-screen fuzz).
 *
 * Input: byte 0 seeds the chunk sizes, byte 1 picks the maximum frame size; the rest is what flowd
 * "sent" after its Welcome. Checks, under AddressSanitizer and UBSan:
 *  - the frame splitter gives the same frames whether the stream comes whole or in chunks, and
 *    decoding each (envelope, then its body with every decoder) never reads out of bounds;
 *  - a host fed the stream on a socket pair ends (or keeps running) without crashing, leaking or
 *    hanging, and what it wrote back is whole frames of bodies a screen host sends;
 *  - so does a display (DisplayScene frames: a tree no deeper than FLOWD_SCENE_MAX_DEPTH, every node
 *    readable), and it writes only what a display sends. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "display.h"
#include "host.h"

/* Every node of a decoded scene is readable, within the depth limit, with strings the body holds. */
static void walk_scene(const flowd_scene_node *node, unsigned depth, size_t body_size) {
    if (depth > FLOWD_SCENE_MAX_DEPTH || node->kind > FLOWD_NODE_SCREEN) abort();
    if (strlen(node->screen_kind) + strlen(node->flow_type) + strlen(node->display_token) > body_size) abort();
    if (node->child_count > body_size / 2) abort(); /* each child takes 2 bytes at least */
    for (size_t i = 0; i < node->child_count; i++) walk_scene(&node->children[i], depth + 1, body_size);
    if (node->presented) walk_scene(node->presented, depth + 1, body_size);
}

static void decode_every_way(fw_slice frame) {
    fw_envelope envelope;
    char why[256];
    if (fw_decode_envelope(frame, &envelope, why, sizeof why) < 0) return;
    fw_arena arena = {0};
    fw_welcome welcome;
    flowd_error error;
    uint64_t nonce;
    fw_shutdown shutdown;
    flowd_place place;
    flowd_update update;
    flowd_placement_changed change;
    flowd_dismiss dismiss;
    flowd_link_opened opened;
    fw_slice body = envelope.body;
    fw_decode_welcome(body, &arena, &welcome, why, sizeof why);
    fw_decode_error(body, &arena, &error, why, sizeof why);
    fw_decode_nonce(body, &nonce, why, sizeof why);
    fw_decode_shutdown(body, &arena, &shutdown, why, sizeof why);
    if (fw_decode_place(body, &arena, &place, why, sizeof why) == 0) {
        /* Every step of the path is readable, and the helpers stay inside it. */
        for (size_t i = 0; i < place.placement.path_count; i++)
            if (place.placement.path[i].kind > FLOWD_NODE_SCREEN) abort();
        flowd_placement_stack_index(&place.placement);
        flowd_placement_tab(&place.placement, NULL, NULL);
        flowd_placement_is_modal(&place.placement);
        if (strlen(place.kind) > body.size || place.state.size > body.size) abort();
    }
    fw_decode_update(body, &arena, &update, why, sizeof why);
    fw_decode_placement_changed(body, &arena, &change, why, sizeof why);
    fw_decode_dismiss(body, &dismiss, why, sizeof why);
    fw_decode_link_opened(body, &arena, &opened, why, sizeof why);
    flowd_scene scene;
    if (fw_decode_display_scene(body, &arena, &scene, why, sizeof why) == 0) {
        if (!scene.window || scene.transition > FLOWD_TRANSITION_REPLACE || strlen(scene.app) > body.size) abort();
        walk_scene(scene.window, 1, body.size);
    }
    fw_arena_reset(&arena);
}

/* The frames of `bytes`, split whole and in chunks: the same ones, in the same order. */
static void split_both_ways(const uint8_t *bytes, size_t size, uint32_t max_frame, uint8_t seed) {
    size_t whole_at = 0, count = 0;
    fw_slice frame;
    size_t used;
    char why[128];
    int got;
    while ((got = fw_next_frame(bytes + whole_at, size - whole_at, max_frame, &frame, &used, why, sizeof why)) == 1) {
        decode_every_way(frame);
        whole_at += used;
        count++;
    }
    int whole_result = got;
    /* Chunked: bytes arrive a few at a time into a buffer, as from a socket. */
    fw_buffer buffer = {0};
    size_t fed = 0, start = 0, chunked = 0, chunked_at = 0;
    unsigned state = seed | 1u;
    int chunked_result = 0;
    while (fed < size || chunked_result == 0) {
        state = state * 1103515245u + 12345u;
        size_t chunk = 1 + (state >> 16) % 64;
        if (chunk > size - fed) chunk = size - fed;
        fw_append(&buffer, bytes + fed, chunk);
        fed += chunk;
        while ((chunked_result = fw_next_frame(buffer.data + start, buffer.size - start, max_frame, &frame, &used, why,
                                               sizeof why)) == 1) {
            if (chunked_at + used > whole_at || memcmp(frame.data, bytes + chunked_at + 4, frame.size)) abort();
            start += used;
            chunked_at += used;
            chunked++;
        }
        if (chunked_result < 0 || fed == size) break;
    }
    if (chunked != count || chunked_result != whole_result) abort();
    fw_buffer_free(&buffer);
}

/* A spawned host on a socket pair: Welcome, then the fuzz bytes, then the end of the stream. */
static void feed_a_host(const uint8_t *bytes, size_t size, uint32_t max_frame) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) abort();
    char fd[16];
    snprintf(fd, sizeof fd, "%d", pair[1]);
    setenv("FLOWD_SOCKET_FD", fd, 1);
    setenv("FLOWD_TOKEN", "fuzz", 1);
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.max_frame_size = max_frame;
    flowd_error error;
    flowd_screen_host *host = flowd_screen_spawned(&options, &error);
    if (!host) abort();
    fw_buffer welcome = {0}, frame = {0};
    fw_put_varint_field(&welcome, 1, 1);
    fw_put_varint_field(&welcome, 4, max_frame);
    fw_put_frame(&frame, 1, 1, FW_WELCOME, &welcome);
    fw_append(&frame, bytes, size);
    /* The socket buffer holds far more than max_len; the host reads it all before the end. */
    if (write(pair[0], frame.data, frame.size) != (ssize_t)frame.size) abort();
    shutdown(pair[0], SHUT_WR);
    for (int round = 0; round < 64 && !flowd_screen_dispatch(host); round++) {
        /* A screen the stream placed gets an output and a navigation too: the writing side. */
        if (host->screen_count) {
            uint64_t id = host->screens[0].id;
            flowd_screen_send_json(host, id, "{\"didPressButton\":{\"index\":0}}", NULL);
            flowd_screen_back(host, id, FLOWD_PHASE_COMMIT, NULL);
            flowd_screen_save_state(host, id, "x", 1, NULL);
        }
    }
    if (!flowd_screen_end(host)->reason) abort(); /* the stream ended: so must the host */
    flowd_screen_free(host);
    /* What the host wrote: whole frames of what a screen host sends. */
    static uint8_t back[1 << 20];
    ssize_t got = read(pair[0], back, sizeof back);
    size_t at = 0;
    fw_slice sent;
    size_t used;
    char why[128];
    while (got > 0 && fw_next_frame(back + at, (size_t)got - at, 1u << 20, &sent, &used, why, sizeof why) == 1) {
        fw_envelope envelope;
        if (fw_decode_envelope(sent, &envelope, why, sizeof why) < 0) abort();
        switch (envelope.body_field) {
        case FW_HELLO: case FW_ERROR: case FW_PONG: case FW_ACK: case FW_OUTPUT: case FW_USER_NAVIGATION:
        case FW_SAVE_STATE: case FW_PING: case FW_SHUTDOWN:
            break;
        default:
            abort();
        }
        at += used;
    }
    close(pair[0]);
    fw_buffer_free(&welcome);
    fw_buffer_free(&frame);
}

/* A display answers a scene as a compositor would: back on the visible screen, and a Ping. */
static void display_scene(flowd_display *display, const flowd_scene *scene, void *user) {
    (void)user;
    walk_scene(scene->window, 1, SIZE_MAX);
    if (scene->visible_screen) flowd_display_back(display, scene->visible_screen, FLOWD_PHASE_IMMEDIATE, NULL);
    flowd_display_ping(display, NULL, NULL);
}

/* A display on a socket pair: Welcome, then the fuzz bytes, then the end of the stream. */
static void feed_a_display(const uint8_t *bytes, size_t size, uint32_t max_frame) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) abort();
    flowd_display_options options;
    flowd_display_options_init(&options);
    options.max_frame_size = max_frame;
    options.callbacks.scene = display_scene;
    flowd_error error;
    flowd_display *display = fl_display_on_fd(&options, pair[1], &error);
    if (!display) abort();
    fw_buffer welcome = {0}, frame = {0};
    fw_put_varint_field(&welcome, 1, 1);
    fw_put_varint_field(&welcome, 4, max_frame);
    fw_put_frame(&frame, 1, 1, FW_WELCOME, &welcome);
    fw_append(&frame, bytes, size);
    if (write(pair[0], frame.data, frame.size) != (ssize_t)frame.size) abort();
    shutdown(pair[0], SHUT_WR);
    for (int round = 0; round < 64 && !flowd_display_dispatch(display); round++) {}
    if (!flowd_display_end(display)->reason) abort(); /* the stream ended: so must the display */
    flowd_display_free(display);
    static uint8_t back[1 << 20];
    ssize_t got = read(pair[0], back, sizeof back);
    size_t at = 0;
    fw_slice sent;
    size_t used;
    char why[128];
    while (got > 0 && fw_next_frame(back + at, (size_t)got - at, 1u << 20, &sent, &used, why, sizeof why) == 1) {
        fw_envelope envelope;
        if (fw_decode_envelope(sent, &envelope, why, sizeof why) < 0) abort();
        switch (envelope.body_field) {
        case FW_HELLO: case FW_ERROR: case FW_PONG: case FW_PING: case FW_USER_NAVIGATION: case FW_SHUTDOWN:
            break;
        default:
            abort();
        }
        at += used;
    }
    close(pair[0]);
    fw_buffer_free(&welcome);
    fw_buffer_free(&frame);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    uint8_t seed = data[0];
    uint32_t max_frame = data[1] & 1 ? FW_MIN_MAX_FRAME : FW_DEFAULT_MAX_FRAME;
    split_both_ways(data + 2, size - 2, max_frame, seed);
    feed_a_host(data + 2, size - 2, max_frame);
    feed_a_display(data + 2, size - 2, max_frame);
    return 0;
}
