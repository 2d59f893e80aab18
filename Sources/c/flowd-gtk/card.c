/* CardState from protobuf bytes (five fields, all length-delimited), outputs as JSON. */
#include "card.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t size, const char *text) {
    snprintf(why, size, "%s", text);
    return -1;
}

static int varint(const uint8_t **at, const uint8_t *end, uint64_t *value) {
    *value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*at >= end) return -1;
        uint8_t byte = *(*at)++;
        *value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return 0;
    }
    return -1;
}

static char *copy(const uint8_t *bytes, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return NULL;
    memcpy(text, bytes, size);
    text[size] = 0;
    return text;
}

int card_decode(const uint8_t *data, size_t size, card *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    const uint8_t *at = data, *end = data + size;
    while (at < end) {
        uint64_t tag, length;
        if (varint(&at, end, &tag) < 0) goto bad;
        unsigned type = (unsigned)(tag & 7);
        if (type == 0) {
            if (varint(&at, end, &length) < 0) goto bad;
            continue; /* no varint fields: an unknown one, skipped */
        }
        if (type != 2 || varint(&at, end, &length) < 0 || length > (uint64_t)(end - at)) goto bad;
        char *text = copy(at, (size_t)length);
        if (!text) goto bad;
        at += length;
        switch (tag >> 3) {
        case 1: free(out->title); out->title = text; break;
        case 2: free(out->body); out->body = text; break;
        case 3: {
            char **buttons = realloc(out->buttons, (out->button_count + 2) * sizeof *buttons);
            if (!buttons) { free(text); goto bad; }
            out->buttons = buttons;
            buttons[out->button_count++] = text;
            buttons[out->button_count] = NULL;
            break;
        }
        case 4: free(out->field); out->field = text; break;
        case 5: free(out->text); out->text = text; break;
        default: free(text); break;
        }
    }
    if (!out->title) out->title = copy((const uint8_t *)"", 0);
    if (!out->body) out->body = copy((const uint8_t *)"", 0);
    if (!out->buttons) {
        out->buttons = calloc(1, sizeof *out->buttons);
    }
    if (!out->title || !out->body || !out->buttons) goto bad;
    return 0;
bad:
    card_free(out);
    return fail(why, why_size, "the state does not decode as flowd.demo.v1.CardState");
}

void card_free(card *state) {
    free(state->title);
    free(state->body);
    for (size_t i = 0; i < state->button_count; i++) free(state->buttons[i]);
    free(state->buttons);
    free(state->field);
    free(state->text);
    memset(state, 0, sizeof *state);
}

char *card_press_json(size_t index) {
    char *json = malloc(64);
    if (json) snprintf(json, 64, "{\"didPressButton\":{\"index\":%zu}}", index);
    return json;
}

char *card_text_json(const char *text) {
    size_t size = strlen(text);
    char *json = malloc(size * 6 + 40), *at = json;
    if (!json) return NULL;
    at += sprintf(at, "{\"didEnterText\":{\"text\":\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') { *at++ = '\\'; *at++ = (char)*c; }
        else if (*c < 0x20) at += sprintf(at, "\\u%04x", *c);
        else *at++ = (char)*c;
    }
    strcpy(at, "\"}}");
    return json;
}

char *card_pending_text_json(const char *typed, const char *sent) {
    if (!strcmp(typed ? typed : "", sent ? sent : "")) return NULL;
    return card_text_json(typed ? typed : "");
}
