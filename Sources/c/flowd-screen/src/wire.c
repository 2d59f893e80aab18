/* Frames and the protobuf encoding of a screen host's messages (docs/protocol.md 2, 3, 17). */
#include "wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Writing ------------------------------------------------------------------------------- */

void fw_buffer_free(fw_buffer *buffer) {
    free(buffer->data);
    *buffer = (fw_buffer){0};
}

bool fw_reserve(fw_buffer *buffer, size_t more) {
    if (buffer->failed) return false;
    if (more > SIZE_MAX - buffer->size) {
        buffer->failed = true;
        return false;
    }
    size_t needed = buffer->size + more;
    if (needed <= buffer->capacity) return true;
    size_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (!data) {
        buffer->failed = true;
        return false;
    }
    buffer->data = data;
    buffer->capacity = capacity;
    return true;
}

void fw_append(fw_buffer *buffer, const void *bytes, size_t size) {
    if (size == 0 || !fw_reserve(buffer, size)) return;
    memcpy(buffer->data + buffer->size, bytes, size);
    buffer->size += size;
}

static size_t varint_size(uint64_t value) {
    size_t size = 1;
    while (value >= 0x80) {
        value >>= 7;
        size++;
    }
    return size;
}

static void put_varint(fw_buffer *buffer, uint64_t value) {
    uint8_t bytes[10];
    size_t count = 0;
    while (value >= 0x80) {
        bytes[count++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    bytes[count++] = (uint8_t)value;
    fw_append(buffer, bytes, count);
}

static void put_tag(fw_buffer *buffer, uint32_t field, unsigned wire_type) {
    put_varint(buffer, ((uint64_t)field << 3) | wire_type);
}

void fw_put_varint_field(fw_buffer *buffer, uint32_t field, uint64_t value) {
    if (value == 0) return;
    put_tag(buffer, field, 0);
    put_varint(buffer, value);
}

void fw_put_bytes_field(fw_buffer *buffer, uint32_t field, const void *bytes, size_t size) {
    if (size == 0) return;
    put_tag(buffer, field, 2);
    put_varint(buffer, size);
    fw_append(buffer, bytes, size);
}

void fw_put_string_field(fw_buffer *buffer, uint32_t field, const char *text) {
    if (text) fw_put_bytes_field(buffer, field, text, strlen(text));
}

void fw_put_message_field(fw_buffer *buffer, uint32_t field, const fw_buffer *message) {
    if (message->failed) {
        buffer->failed = true;
        return;
    }
    put_tag(buffer, field, 2);
    put_varint(buffer, message->size);
    fw_append(buffer, message->data, message->size);
}

size_t fw_envelope_size(uint64_t seq, uint64_t reply_to, uint32_t body_field, size_t body_size) {
    size_t length = varint_size(((uint64_t)body_field << 3) | 2) + varint_size(body_size);
    if (body_size > SIZE_MAX - length - 22) return SIZE_MAX;
    length += body_size;
    if (seq) length += 1 + varint_size(seq);
    if (reply_to) length += 1 + varint_size(reply_to);
    return length;
}

void fw_put_frame(fw_buffer *out, uint64_t seq, uint64_t reply_to, uint32_t body_field, const fw_buffer *body) {
    if (body->failed) {
        out->failed = true;
        return;
    }
    size_t length = fw_envelope_size(seq, reply_to, body_field, body->size);
    if (length > UINT32_MAX) {
        out->failed = true;
        return;
    }
    uint8_t prefix[4] = {(uint8_t)length, (uint8_t)(length >> 8), (uint8_t)(length >> 16), (uint8_t)(length >> 24)};
    fw_append(out, prefix, 4);
    fw_put_varint_field(out, 1, seq);
    fw_put_varint_field(out, 2, reply_to);
    fw_put_message_field(out, body_field, body);
}

void fw_encode_hello(fw_buffer *out, const fw_hello *hello) {
    fw_put_varint_field(out, 1, FLOWD_SCREEN_PROTOCOL_VERSION);
    fw_put_varint_field(out, 2, FLOWD_SCREEN_PROTOCOL_VERSION);
    fw_put_varint_field(out, 3, hello->role);
    fw_put_string_field(out, 4, hello->token);
    fw_put_string_field(out, 5, hello->name);
    for (size_t i = 0; i < hello->provides_count; i++) fw_put_string_field(out, 6, hello->provides[i]);
    fw_put_varint_field(out, 7, hello->max_frame_size);
    fw_put_varint_field(out, 8, (uint64_t)(uint32_t)getpid());
    fw_put_string_field(out, 9, hello->resume_token);
}

void fw_encode_navigation(fw_buffer *out, uint64_t screen_id, uint32_t action, uint64_t value, uint64_t key) {
    fw_buffer inner = {0};
    fw_put_varint_field(&inner, 1, value);
    fw_put_varint_field(out, 1, screen_id);
    fw_put_message_field(out, action, &inner);
    fw_put_varint_field(out, 5, key);
    fw_buffer_free(&inner);
}

/* ---- Reading ------------------------------------------------------------------------------- */

struct fw_chunk {
    struct fw_chunk *next;
    max_align_t align[]; /* the allocation itself */
};

void *fw_arena_alloc(fw_arena *arena, size_t size) {
    if (size > SIZE_MAX - sizeof(struct fw_chunk)) return NULL;
    struct fw_chunk *chunk = malloc(sizeof(struct fw_chunk) + (size ? size : 1));
    if (!chunk) return NULL;
    chunk->next = arena->chunks;
    arena->chunks = chunk;
    return chunk->align;
}

char *fw_arena_string(fw_arena *arena, fw_slice bytes) {
    if (bytes.size == SIZE_MAX) return NULL;
    char *text = fw_arena_alloc(arena, bytes.size + 1);
    if (!text) return NULL;
    if (bytes.size) memcpy(text, bytes.data, bytes.size);
    text[bytes.size] = 0;
    return text;
}

void fw_arena_reset(fw_arena *arena) {
    while (arena->chunks) {
        struct fw_chunk *next = arena->chunks->next;
        free(arena->chunks);
        arena->chunks = next;
    }
}

static int fail(char *why, size_t why_size, const char *format, ...) {
    if (why && why_size) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(why, why_size, format, arguments);
        va_end(arguments);
    }
    return -1;
}

int fw_next_frame(const uint8_t *bytes, size_t size, uint32_t max_frame, fw_slice *frame, size_t *used,
                  char *why, size_t why_size) {
    if (size < 4) return 0;
    uint32_t length = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    if (length == 0) return fail(why, why_size, "a frame of length 0");
    if (length > max_frame)
        return fail(why, why_size, "a frame of %u bytes, over the maximum frame size of %u", length, max_frame);
    if (size - 4 < length) return 0;
    frame->data = bytes + 4;
    frame->size = length;
    *used = 4 + (size_t)length;
    return 1;
}

typedef struct reader {
    const uint8_t *at;
    const uint8_t *end;
} reader;

typedef struct field {
    uint32_t number;
    unsigned type;   /* 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
    uint64_t varint; /* type 0 */
    fw_slice bytes;  /* type 2 */
} field;

static int read_varint(reader *r, uint64_t *value) {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (r->at >= r->end) return -1;
        uint8_t byte = *r->at++;
        if (shift == 63 && byte > 1) return -1; /* over 64 bits */
        result |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return 0;
        }
    }
    return -1;
}

/* 1 and `f` set; 0 at the end; -1 when the bytes are not a protobuf message. */
static int next_field(reader *r, field *f) {
    if (r->at >= r->end) return 0;
    uint64_t tag;
    if (read_varint(r, &tag) < 0) return -1;
    if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return -1;
    f->number = (uint32_t)(tag >> 3);
    f->type = (unsigned)(tag & 7);
    size_t left;
    switch (f->type) {
    case 0:
        return read_varint(r, &f->varint) < 0 ? -1 : 1;
    case 1:
    case 5: {
        size_t width = f->type == 1 ? 8 : 4;
        if ((size_t)(r->end - r->at) < width) return -1;
        r->at += width;
        return 1;
    }
    case 2: {
        uint64_t length;
        if (read_varint(r, &length) < 0) return -1;
        left = (size_t)(r->end - r->at);
        if (length > left) return -1;
        f->bytes.data = r->at;
        f->bytes.size = (size_t)length;
        r->at += length;
        return 1;
    }
    default: /* groups (3, 4) are not proto3; 6 and 7 do not exist */
        return -1;
    }
}

static reader reader_of(fw_slice bytes) {
    return (reader){bytes.data, bytes.data + bytes.size};
}

/* The loop every decoder runs: for each field, `body` with `f` set; a known field of the wrong wire
 * type, or bytes that are not a message, fail with `what`. */
#define FOR_EACH_FIELD(slice, what)                                                              \
    reader r_ = reader_of(slice);                                                                \
    field f;                                                                                     \
    for (int got_; (got_ = next_field(&r_, &f)) != 0;)                                           \
        if (got_ < 0) return fail(why, why_size, "%s does not decode", what);                    \
        else

#define WANT(wire_type, what)                                                                    \
    if (f.type != (wire_type))                                                                   \
        return fail(why, why_size, "%s field %u has wire type %u", what, f.number, f.type)

static const char *string_of(fw_arena *arena, fw_slice bytes, char *why, size_t why_size) {
    char *text = fw_arena_string(arena, bytes);
    if (!text) fail(why, why_size, "out of memory");
    return text;
}

int fw_decode_envelope(fw_slice frame, fw_envelope *envelope, char *why, size_t why_size) {
    *envelope = (fw_envelope){0};
    FOR_EACH_FIELD(frame, "the frame") {
        switch (f.number) {
        case 1: WANT(0, "Envelope"); envelope->seq = f.varint; break;
        case 2: WANT(0, "Envelope"); envelope->reply_to = f.varint; break;
        case FW_HELLO: case FW_WELCOME: case FW_ERROR: case FW_PING: case FW_PONG: case FW_SHUTDOWN:
        case FW_PLACE: case FW_UPDATE: case FW_PLACEMENT_CHANGED: case FW_DISMISS: case FW_ACK:
        case FW_OUTPUT: case FW_USER_NAVIGATION: case FW_OPEN_LINK: case FW_LINK_OPENED: case FW_SAVE_STATE:
        case 40: case 41: case 42: case 43: case 44: case 45: case 46: case 47: case 48: case 49:
        case 50: case 51: case 52: case 53: case FW_DISPLAY_SCENE:
            WANT(2, "Envelope");
            envelope->body_field = f.number; /* a oneof: the last one wins */
            envelope->body = f.bytes;
            break;
        default: break; /* unknown fields are ignored (section 18) */
        }
    }
    if (envelope->body_field == 0) return fail(why, why_size, "an envelope without a body");
    return 0;
}

int fw_decode_welcome(fw_slice body, fw_arena *arena, fw_welcome *out, char *why, size_t why_size) {
    *out = (fw_welcome){.welcome = {.server = "", .app = ""}, .resume_token = ""};
    flowd_welcome *w = &out->welcome;
    FOR_EACH_FIELD(body, "Welcome") {
        switch (f.number) {
        case 1: WANT(0, "Welcome"); w->version = (uint32_t)f.varint; break;
        case 2: WANT(0, "Welcome"); w->connection_id = f.varint; break;
        case 3: WANT(2, "Welcome"); if (!(w->server = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 4: WANT(0, "Welcome"); w->max_frame_size = (uint32_t)f.varint; break;
        case 5: WANT(2, "Welcome"); if (!(w->app = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 6:
            WANT(2, "Welcome");
            if (!(out->resume_token = string_of(arena, f.bytes, why, why_size))) return -1;
            break;
        case 7: WANT(0, "Welcome"); w->resume_grace_ms = (uint32_t)f.varint; break;
        case 8: WANT(0, "Welcome"); w->resumed = f.varint != 0; break;
        default: break;
        }
    }
    return 0;
}

static void copy_text(char *into, size_t size, fw_slice bytes) {
    size_t count = bytes.size < size - 1 ? bytes.size : size - 1;
    if (count) memcpy(into, bytes.data, count);
    into[count] = 0;
}

int fw_decode_error(fw_slice body, fw_arena *arena, flowd_error *out, char *why, size_t why_size) {
    (void)arena;
    *out = (flowd_error){0};
    FOR_EACH_FIELD(body, "Error") {
        switch (f.number) {
        case 1: WANT(0, "Error"); out->code = f.varint < 1000 ? (int)f.varint : FLOWD_ERROR_UNSPECIFIED; break;
        case 2: WANT(2, "Error"); copy_text(out->message, sizeof out->message, f.bytes); break;
        case 3: WANT(0, "Error"); out->fatal = f.varint != 0; break;
        case 4: WANT(0, "Error"); out->screen_id = f.varint; break;
        case 5: WANT(0, "Error"); out->serial = f.varint; break;
        default: break;
        }
    }
    return 0;
}

int fw_decode_nonce(fw_slice body, uint64_t *nonce, char *why, size_t why_size) {
    *nonce = 0;
    FOR_EACH_FIELD(body, "Ping") {
        if (f.number == 1) {
            WANT(0, "Ping");
            *nonce = f.varint;
        }
    }
    return 0;
}

int fw_decode_shutdown(fw_slice body, fw_arena *arena, fw_shutdown *out, char *why, size_t why_size) {
    *out = (fw_shutdown){.message = ""};
    FOR_EACH_FIELD(body, "Shutdown") {
        switch (f.number) {
        case 1: WANT(0, "Shutdown"); out->reason = f.varint <= FLOWD_SHUTDOWN_HUNG ? (int)f.varint : 0; break;
        case 2: WANT(2, "Shutdown"); if (!(out->message = string_of(arena, f.bytes, why, why_size))) return -1; break;
        default: break;
        }
    }
    return 0;
}

static int decode_payload(fw_slice body, fw_arena *arena, flowd_payload *out, char *why, size_t why_size) {
    *out = (flowd_payload){.content_type = "", .data = (const uint8_t *)""};
    FOR_EACH_FIELD(body, "Payload") {
        switch (f.number) {
        case 1:
            WANT(2, "Payload");
            if (!(out->content_type = string_of(arena, f.bytes, why, why_size))) return -1;
            break;
        case 2: WANT(2, "Payload"); out->data = f.bytes.data; out->size = f.bytes.size; break;
        default: break;
        }
    }
    return 0;
}

/* A string field: "" costs no allocation (a scene node has three, mostly empty; a path element one). */
static const char *text_of(fw_arena *arena, fw_slice bytes, char *why, size_t why_size) {
    return bytes.size ? string_of(arena, bytes, why, why_size) : "";
}

static int decode_step(fw_slice body, fw_arena *arena, flowd_path_step *out, char *why, size_t why_size) {
    *out = (flowd_path_step){.display = ""};
    FOR_EACH_FIELD(body, "PathElement") {
        switch (f.number) {
        case 1: WANT(0, "PathElement"); out->kind = f.varint <= FLOWD_NODE_SCREEN ? (int)f.varint : 0; break;
        case 2: WANT(0, "PathElement"); out->id = f.varint; break;
        case 3: WANT(0, "PathElement"); out->index = (uint32_t)f.varint; break;
        case 4: WANT(0, "PathElement"); out->presented = f.varint != 0; break;
        case 5: WANT(0, "PathElement"); out->tab_count = (uint32_t)f.varint; break;
        case 6: WANT(0, "PathElement"); out->presenter_id = f.varint; break;
        case 7: WANT(2, "PathElement"); if (!(out->display = text_of(arena, f.bytes, why, why_size))) return -1; break;
        default: break;
        }
    }
    return 0;
}

static int decode_placement(fw_slice body, fw_arena *arena, flowd_placement *out, char *why, size_t why_size) {
    *out = (flowd_placement){0};
    size_t steps = 0;
    {
        FOR_EACH_FIELD(body, "Placement") {
            if (f.number == 1) {
                WANT(2, "Placement");
                steps++;
            }
        }
    }
    flowd_path_step *path = NULL;
    if (steps) {
        if (steps > SIZE_MAX / sizeof *path || !(path = fw_arena_alloc(arena, steps * sizeof *path)))
            return fail(why, why_size, "out of memory");
    }
    size_t at = 0;
    FOR_EACH_FIELD(body, "Placement") {
        switch (f.number) {
        case 1:
            if (decode_step(f.bytes, arena, &path[at++], why, why_size) < 0) return -1;
            break;
        case 2: WANT(0, "Placement"); out->visible = f.varint != 0; break;
        case 3: WANT(0, "Placement"); out->top_most = f.varint != 0; break;
        default: break;
        }
    }
    out->path = path;
    out->path_count = steps;
    return 0;
}

int fw_decode_place(fw_slice body, fw_arena *arena, flowd_place *out, char *why, size_t why_size) {
    *out = (flowd_place){.kind = "", .flow_type = "", .saved_state = (const uint8_t *)"", .display_token = "",
                         .state = {.content_type = "", .data = (const uint8_t *)""}};
    FOR_EACH_FIELD(body, "Place") {
        switch (f.number) {
        case 1: WANT(0, "Place"); out->screen_id = f.varint; break;
        case 2: WANT(2, "Place"); if (!(out->kind = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 3: WANT(2, "Place"); if (decode_payload(f.bytes, arena, &out->state, why, why_size) < 0) return -1; break;
        case 4:
            WANT(2, "Place");
            if (decode_placement(f.bytes, arena, &out->placement, why, why_size) < 0) return -1;
            break;
        case 5: WANT(0, "Place"); out->serial = f.varint; break;
        case 6: WANT(0, "Place"); out->animated = f.varint != 0; break;
        case 7: WANT(0, "Place"); out->flow_id = f.varint; break;
        case 8: WANT(2, "Place"); if (!(out->flow_type = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 9: WANT(2, "Place"); out->saved_state = f.bytes.data; out->saved_state_size = f.bytes.size; break;
        case 10:
            WANT(2, "Place");
            if (!(out->display_token = string_of(arena, f.bytes, why, why_size))) return -1;
            break;
        default: break;
        }
    }
    return 0;
}

int fw_decode_update(fw_slice body, fw_arena *arena, flowd_update *out, char *why, size_t why_size) {
    *out = (flowd_update){.state = {.content_type = "", .data = (const uint8_t *)""}};
    FOR_EACH_FIELD(body, "Update") {
        switch (f.number) {
        case 1: WANT(0, "Update"); out->screen_id = f.varint; break;
        case 2: WANT(0, "Update"); out->serial = f.varint; break;
        case 3: WANT(2, "Update"); if (decode_payload(f.bytes, arena, &out->state, why, why_size) < 0) return -1; break;
        default: break;
        }
    }
    return 0;
}

int fw_decode_placement_changed(fw_slice body, fw_arena *arena, flowd_placement_changed *out, char *why,
                                size_t why_size) {
    *out = (flowd_placement_changed){0};
    FOR_EACH_FIELD(body, "PlacementChanged") {
        switch (f.number) {
        case 1: WANT(0, "PlacementChanged"); out->screen_id = f.varint; break;
        case 2: WANT(0, "PlacementChanged"); out->serial = f.varint; break;
        case 3:
            WANT(0, "PlacementChanged");
            out->change = f.varint <= FLOWD_CHANGE_TAB_DESELECTED ? (int)f.varint : 0;
            break;
        case 4:
            WANT(2, "PlacementChanged");
            if (decode_placement(f.bytes, arena, &out->placement, why, why_size) < 0) return -1;
            break;
        default: break;
        }
    }
    return 0;
}

int fw_decode_dismiss(fw_slice body, flowd_dismiss *out, char *why, size_t why_size) {
    *out = (flowd_dismiss){0};
    FOR_EACH_FIELD(body, "Dismiss") {
        switch (f.number) {
        case 1: WANT(0, "Dismiss"); out->screen_id = f.varint; break;
        case 2: WANT(0, "Dismiss"); out->serial = f.varint; break;
        case 3: WANT(0, "Dismiss"); out->animated = f.varint != 0; break;
        case 4: WANT(0, "Dismiss"); out->reason = f.varint <= FLOWD_DISMISS_REMOVED ? (int)f.varint : 0; break;
        default: break;
        }
    }
    return 0;
}

int fw_decode_link_opened(fw_slice body, fw_arena *arena, flowd_link_opened *out, char *why, size_t why_size) {
    *out = (flowd_link_opened){.link = "", .place = "", .message = ""};
    FOR_EACH_FIELD(body, "LinkOpened") {
        switch (f.number) {
        case 1: WANT(2, "LinkOpened"); if (!(out->link = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 5: WANT(0, "LinkOpened"); out->visible_screen = f.varint; break;
        case 6: WANT(2, "LinkOpened"); if (!(out->message = string_of(arena, f.bytes, why, why_size))) return -1; break;
        case 7: WANT(2, "LinkOpened"); if (!(out->place = string_of(arena, f.bytes, why, why_size))) return -1; break;
        default: break; /* started, reused, unwound: the flows' ids, for debug clients */
        }
    }
    return 0;
}

/* ---- DisplayScene -------------------------------------------------------------------------------- */

/* A DisplayNode at `depth` (the window is 1), then its children and the node presented on it. The
 * recursion is bounded by FLOWD_SCENE_MAX_DEPTH, so a hostile frame cannot exhaust the stack. A
 * singular message field sent twice (`presented`): the last one wins (protobuf would merge them;
 * flowd never sends one twice). */
static int decode_node(fw_slice body, unsigned depth, fw_arena *arena, flowd_scene_node *out, char *why,
                       size_t why_size) {
    if (depth > FLOWD_SCENE_MAX_DEPTH)
        return fail(why, why_size, "a DisplayScene deeper than %d levels (FLOWD_SCENE_MAX_DEPTH)", FLOWD_SCENE_MAX_DEPTH);
    *out = (flowd_scene_node){.screen_kind = "", .flow_type = "", .display_token = ""};
    size_t children = 0;
    fw_slice presented = {0};
    bool has_presented = false;
    {
        FOR_EACH_FIELD(body, "DisplayNode") {
            switch (f.number) {
            case 1: WANT(0, "DisplayNode"); out->id = f.varint; break;
            case 2: WANT(0, "DisplayNode"); out->kind = f.varint <= FLOWD_NODE_SCREEN ? (int)f.varint : 0; break;
            case 3: WANT(2, "DisplayNode"); children++; break;
            case 4: WANT(2, "DisplayNode"); presented = f.bytes; has_presented = true; break;
            case 5: WANT(0, "DisplayNode"); out->selected_tab = (uint32_t)f.varint; break;
            case 6:
                WANT(2, "DisplayNode");
                if (!(out->screen_kind = text_of(arena, f.bytes, why, why_size))) return -1;
                break;
            case 7: WANT(0, "DisplayNode"); out->visible = f.varint != 0; break;
            case 8: WANT(0, "DisplayNode"); out->flow_id = f.varint; break;
            case 9:
                WANT(2, "DisplayNode");
                if (!(out->flow_type = text_of(arena, f.bytes, why, why_size))) return -1;
                break;
            case 10:
                WANT(2, "DisplayNode");
                if (!(out->display_token = text_of(arena, f.bytes, why, why_size))) return -1;
                break;
            default: break;
            }
        }
    }
    if (children) {
        /* At least 2 bytes of the frame per child: the count is bounded by the frame size. */
        flowd_scene_node *nodes = NULL;
        if (children > SIZE_MAX / sizeof *nodes || !(nodes = fw_arena_alloc(arena, children * sizeof *nodes)))
            return fail(why, why_size, "out of memory");
        size_t at = 0;
        FOR_EACH_FIELD(body, "DisplayNode") {
            if (f.number == 3 && decode_node(f.bytes, depth + 1, arena, &nodes[at++], why, why_size) < 0) return -1;
        }
        out->children = nodes;
        out->child_count = children;
    }
    if (has_presented) {
        flowd_scene_node *node = fw_arena_alloc(arena, sizeof *node);
        if (!node) return fail(why, why_size, "out of memory");
        if (decode_node(presented, depth + 1, arena, node, why, why_size) < 0) return -1;
        out->presented = node;
    }
    return 0;
}

/* SceneTransition's fields onto `out`: sent twice, the two merge, as protobuf merges them. */
/* A transition's fields, for the scene's main window or one of its other windows. */
typedef struct {
    int *kind;
    bool *animated;
    uint64_t *from, *to;
} transition_out;

static int decode_transition(fw_slice body, transition_out out, char *why, size_t why_size) {
    FOR_EACH_FIELD(body, "SceneTransition") {
        switch (f.number) {
        case 1:
            WANT(0, "SceneTransition");
            /* A kind added after this library: some other change of the visible screen. */
            *out.kind = f.varint <= FLOWD_TRANSITION_REPLACE ? (int)f.varint : FLOWD_TRANSITION_REPLACE;
            break;
        case 2: WANT(0, "SceneTransition"); *out.animated = f.varint != 0; break;
        case 3: WANT(0, "SceneTransition"); *out.from = f.varint; break;
        case 4: WANT(0, "SceneTransition"); *out.to = f.varint; break;
        default: break;
        }
    }
    return 0;
}

/* A node from `body`, or an empty window node when nothing was sent, so a display never meets NULL. */
static const flowd_scene_node *window_node(fw_slice body, bool sent, fw_arena *arena, char *why, size_t why_size) {
    flowd_scene_node *root = fw_arena_alloc(arena, sizeof *root);
    if (!root) {
        fail(why, why_size, "out of memory");
        return NULL;
    }
    if (sent) {
        if (decode_node(body, 1, arena, root, why, why_size) < 0) return NULL;
    } else {
        *root = (flowd_scene_node){.kind = FLOWD_NODE_WINDOW, .screen_kind = "", .flow_type = "", .display_token = ""};
    }
    return root;
}

static int decode_window(fw_slice body, fw_arena *arena, flowd_scene_window *out, char *why, size_t why_size) {
    *out = (flowd_scene_window){.display = ""};
    fw_slice window = {0};
    bool has_window = false;
    transition_out transition = {&out->transition, &out->animated, &out->from_screen, &out->to_screen};
    {
        FOR_EACH_FIELD(body, "DisplayWindow") {
            switch (f.number) {
            case 1: WANT(2, "DisplayWindow"); window = f.bytes; has_window = true; break;
            case 2: WANT(2, "DisplayWindow"); if (!(out->display = text_of(arena, f.bytes, why, why_size))) return -1; break;
            case 3: WANT(0, "DisplayWindow"); out->visible_screen = f.varint; break;
            case 4: WANT(2, "DisplayWindow"); if (decode_transition(f.bytes, transition, why, why_size) < 0) return -1; break;
            default: break;
            }
        }
    }
    return (out->window = window_node(window, has_window, arena, why, why_size)) ? 0 : -1;
}

int fw_decode_display_scene(fw_slice body, fw_arena *arena, flowd_scene *out, char *why, size_t why_size) {
    *out = (flowd_scene){.app = ""};
    fw_slice window = {0};
    bool has_window = false;
    size_t windows = 0;
    transition_out transition = {&out->transition, &out->animated, &out->from_screen, &out->to_screen};
    {
        FOR_EACH_FIELD(body, "DisplayScene") {
            switch (f.number) {
            case 1: WANT(0, "DisplayScene"); out->seq = f.varint; break;
            case 2: WANT(2, "DisplayScene"); if (!(out->app = text_of(arena, f.bytes, why, why_size))) return -1; break;
            case 3: WANT(2, "DisplayScene"); window = f.bytes; has_window = true; break; /* the last wins */
            case 4: WANT(2, "DisplayScene"); if (decode_transition(f.bytes, transition, why, why_size) < 0) return -1; break;
            case 5: WANT(0, "DisplayScene"); out->visible_screen = f.varint; break;
            case 6: WANT(2, "DisplayScene"); windows++; break;
            default: break;
            }
        }
    }
    if (windows) {
        /* At least 2 bytes of the frame per window: the count is bounded by the frame size. */
        flowd_scene_window *list = NULL;
        if (windows > SIZE_MAX / sizeof *list || !(list = fw_arena_alloc(arena, windows * sizeof *list)))
            return fail(why, why_size, "out of memory");
        size_t at = 0;
        FOR_EACH_FIELD(body, "DisplayScene") {
            if (f.number == 6 && decode_window(f.bytes, arena, &list[at++], why, why_size) < 0) return -1;
        }
        out->other_windows = list;
        out->other_window_count = windows;
    }
    return (out->window = window_node(window, has_window, arena, why, why_size)) ? 0 : -1;
}
