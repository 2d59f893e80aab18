/* The wire of docs/protocol.md, sections 2, 3 and 17: length-prefixed frames of one Envelope, and
 * the protobuf encoding of the messages a screen host and a display send and receive, written by
 * hand (the messages are few and small; no dependency beyond libc). Internal to libflowd-screen. */
#ifndef FLOWD_SCREEN_WIRE_H
#define FLOWD_SCREEN_WIRE_H

#include "flowd/screen.h"

/* Envelope body field numbers (docs/protocol.md section 3). */
enum {
    FW_HELLO = 10, FW_WELCOME = 11, FW_ERROR = 12, FW_PING = 13, FW_PONG = 14, FW_SHUTDOWN = 15,
    FW_PLACE = 20, FW_UPDATE = 21, FW_PLACEMENT_CHANGED = 22, FW_DISMISS = 23, FW_ACK = 24,
    FW_OUTPUT = 30, FW_USER_NAVIGATION = 31, FW_OPEN_LINK = 32, FW_LINK_OPENED = 33, FW_SAVE_STATE = 34,
    FW_DISPLAY_SCENE = 60, FW_PROVIDE_DISPLAYS = 61,
};

/* The frame size limit before the handshake, and the default after it. */
#define FW_DEFAULT_MAX_FRAME (1u << 20)
#define FW_MIN_MAX_FRAME 4096u

/* ---- Writing ---- */

/* A growing byte buffer; `failed` is set (and stays) when memory runs out. */
typedef struct fw_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
    bool failed;
} fw_buffer;

void fw_buffer_free(fw_buffer *buffer);
/* Room for `more` bytes after `size`; false (and `failed`) when memory runs out. */
bool fw_reserve(fw_buffer *buffer, size_t more);
void fw_append(fw_buffer *buffer, const void *bytes, size_t size);
/* Each skips a proto3 default (0, false, empty), as every protobuf encoder does. */
void fw_put_varint_field(fw_buffer *buffer, uint32_t field, uint64_t value);
void fw_put_bytes_field(fw_buffer *buffer, uint32_t field, const void *bytes, size_t size);
void fw_put_string_field(fw_buffer *buffer, uint32_t field, const char *text);
/* A submessage: written even when empty (a oneof case that is set). */
void fw_put_message_field(fw_buffer *buffer, uint32_t field, const fw_buffer *message);

/* The bytes of Envelope {seq, reply_to, body} whose body takes `body_size`: a frame's length N. */
size_t fw_envelope_size(uint64_t seq, uint64_t reply_to, uint32_t body_field, size_t body_size);
/* Appends one frame: the length prefix and Envelope {seq, reply_to, body = message}. */
void fw_put_frame(fw_buffer *out, uint64_t seq, uint64_t reply_to, uint32_t body_field, const fw_buffer *body);

/* Hello.role (docs/protocol.md section 4). */
enum { FW_ROLE_SCREEN_HOST = 1, FW_ROLE_DEBUG = 2, FW_ROLE_DISPLAY = 3 };

typedef struct fw_hello {
    uint32_t role;
    const char *token;           /* spawned screens: FLOWD_TOKEN */
    const char *name;
    char *const *provides;       /* attached screen hosts */
    size_t provides_count;
    uint32_t max_frame_size;     /* 0: the default */
    const char *resume_token;    /* a screen host reconnecting */
} fw_hello;

/* Hello {min_version, max_version, role, token, name, provides, max_frame_size, pid, resume_token}. */
void fw_encode_hello(fw_buffer *out, const fw_hello *hello);

/* UserNavigation's actions: the oneof's field numbers. */
enum { FW_NAVIGATION_BACK = 2, FW_NAVIGATION_SELECT_TAB = 3, FW_NAVIGATION_CLOSE_MODAL = 4, FW_NAVIGATION_CLOSE_WINDOW = 6 };

/* UserNavigation {screen_id, action = {value (a phase, or the tab's index)}, key (0: none)}. */
void fw_encode_navigation(fw_buffer *out, uint64_t screen_id, uint32_t action, uint64_t value, uint64_t key);

/* ---- Reading ---- */

typedef struct fw_slice {
    const uint8_t *data;
    size_t size;
} fw_slice;

/* Memory for one frame's decoded strings and paths, freed all at once. */
typedef struct fw_arena {
    struct fw_chunk *chunks;
} fw_arena;

void *fw_arena_alloc(fw_arena *arena, size_t size);
/* A NUL-terminated copy; NULL when memory runs out. */
char *fw_arena_string(fw_arena *arena, fw_slice bytes);
void fw_arena_reset(fw_arena *arena);

/* The next whole frame in `bytes`: 1 and `frame`/`used` set; 0 when more bytes are needed; -1 when
 * the length prefix is over `max_frame` or is 0 (`why` says which). Reads no body of an over-size
 * frame: it decides from the 4 header bytes. */
int fw_next_frame(const uint8_t *bytes, size_t size, uint32_t max_frame, fw_slice *frame, size_t *used,
                  char *why, size_t why_size);

typedef struct fw_envelope {
    uint64_t seq;
    uint64_t reply_to;
    uint32_t body_field; /* 0: none */
    fw_slice body;
} fw_envelope;

/* 0, or -1 with `why` (MALFORMED_FRAME: not an Envelope, or no body). Unknown fields are skipped,
 * a body field this library does not know leaves the envelope without a body. */
int fw_decode_envelope(fw_slice frame, fw_envelope *envelope, char *why, size_t why_size);

/* Body decoders: 0, or -1 with `why`. Strings and paths live in `arena`. */
typedef struct fw_welcome {
    flowd_welcome welcome;
    const char *resume_token;
} fw_welcome;

typedef struct fw_shutdown {
    int reason;
    const char *message;
} fw_shutdown;

int fw_decode_welcome(fw_slice body, fw_arena *arena, fw_welcome *out, char *why, size_t why_size);
int fw_decode_error(fw_slice body, fw_arena *arena, flowd_error *out, char *why, size_t why_size);
int fw_decode_nonce(fw_slice body, uint64_t *nonce, char *why, size_t why_size);
int fw_decode_shutdown(fw_slice body, fw_arena *arena, fw_shutdown *out, char *why, size_t why_size);
int fw_decode_place(fw_slice body, fw_arena *arena, flowd_place *out, char *why, size_t why_size);
int fw_decode_update(fw_slice body, fw_arena *arena, flowd_update *out, char *why, size_t why_size);
int fw_decode_placement_changed(fw_slice body, fw_arena *arena, flowd_placement_changed *out, char *why,
                                size_t why_size);
int fw_decode_dismiss(fw_slice body, flowd_dismiss *out, char *why, size_t why_size);
int fw_decode_link_opened(fw_slice body, fw_arena *arena, flowd_link_opened *out, char *why, size_t why_size);
/* DisplayScene (display.proto): the tree lives in `arena`. A tree deeper than FLOWD_SCENE_MAX_DEPTH
 * fails (the recursion stops there); the nodes are as many as the body's bytes allow, no more. */
int fw_decode_display_scene(fw_slice body, fw_arena *arena, flowd_scene *out, char *why, size_t why_size);

#endif
