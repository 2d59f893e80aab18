/* The demo's screen state, flowd.demo.v1.CardState (proto/flowd/demo/v1/cards.proto), read from its
 * protobuf bytes, and its outputs written as their JSON (flowd turns them into CardOutput). */
#ifndef FLOWD_GTK_CARD_H
#define FLOWD_GTK_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct card {
    char *title;
    char *body;
    char **buttons; /* NULL-terminated */
    size_t button_count;
    char *field;    /* NULL: no text field */
    char *text;     /* the field's text; NULL when unset */
} card;

/* 0, or -1 (the bytes are not a CardState: `why` says where). `out` is freed with card_free. */
int card_decode(const uint8_t *data, size_t size, card *out, char *why, size_t why_size);
void card_free(card *card);

/* {"didPressButton":{"index":N}} and {"didEnterText":{"text":"..."}}, malloc'd. */
char *card_press_json(size_t index);
char *card_text_json(const char *text);

/* The rule every host of the card kinds keeps (docs/demo.md, "Screen contracts"): text typed into the
 * field and not sent goes as didEnterText before the output of a button pressed on the same card.
 * `typed` is the field's value, `sent` the last text flowd has of it (sent by this host, else the
 * state's, NULL as ""): the didEnterText JSON when they differ (malloc'd), else NULL. */
char *card_pending_text_json(const char *typed, const char *sent);

#endif
