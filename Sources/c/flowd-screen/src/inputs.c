/* What a host sends: outputs and navigation with input keys (kept until a Pong confirms them and
 * sent again after a drop, docs/protocol.md section 20), SaveState, OpenLink, Ping, acks, refusals. */
#include "host.h"

#include <stdlib.h>
#include <string.h>

void fh_inputs_free(flowd_screen_host *host) {
    for (size_t i = 0; i < host->input_count; i++) fw_buffer_free(&host->inputs[i].body);
    host->input_count = 0;
}

int fh_send_ping(flowd_screen_host *host, bool asked, uint64_t *nonce, flowd_error *error) {
    uint64_t value = ++host->next_nonce;
    fw_buffer ping = {0};
    fw_put_varint_field(&ping, 1, value);
    int sent = fh_send(host, FW_PING, &ping, 0, error);
    fw_buffer_free(&ping);
    if (sent < 0) return -1;
    if (host->mark_count == FH_MAX_MARKS) { /* the oldest mark's Pong is long overdue */
        memmove(host->marks, host->marks + 1, (FH_MAX_MARKS - 1) * sizeof *host->marks);
        host->mark_count--;
    }
    host->marks[host->mark_count++] = (fh_mark){.nonce = value, .last_input = host->next_input, .asked = asked};
    if (nonce) *nonce = value;
    return 0;
}

void fh_pong(flowd_screen_host *host, uint64_t nonce) {
    size_t at = 0;
    while (at < host->mark_count && host->marks[at].nonce != nonce) at++;
    if (at == host->mark_count) return; /* not ours, or of an old connection */
    fh_mark mark = host->marks[at];
    /* Pongs come in order: this one answers every earlier Ping too. */
    memmove(host->marks, host->marks + at + 1, (host->mark_count - at - 1) * sizeof *host->marks);
    host->mark_count -= at + 1;
    size_t kept = 0;
    for (size_t i = 0; i < host->input_count; i++) {
        if (host->inputs[i].number <= mark.last_input)
            fw_buffer_free(&host->inputs[i].body);
        else
            host->inputs[kept++] = host->inputs[i];
    }
    host->input_count = kept;
    if (mark.asked && host->options.callbacks.pong) host->options.callbacks.pong(host, nonce, host->options.user);
}

size_t fh_resend_inputs(flowd_screen_host *host) {
    size_t count = host->input_count;
    for (size_t i = 0; i < count; i++)
        if (fh_send(host, host->inputs[i].body_field, &host->inputs[i].body, 0, NULL) < 0) return i;
    if (count) fh_send_ping(host, false, NULL, NULL);
    return count;
}

static int check_hosted(flowd_screen_host *host, uint64_t screen_id, flowd_error *error) {
    if (!host) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no host");
    if (host->phase == FH_ENDED) return fl_fail(error, FLOWD_ERROR_CLOSED, "the host has ended");
    if (!fh_find_screen(host, screen_id))
        return fl_fail(error, FLOWD_ERROR_NOT_HOSTED, "screen %llu is not shown by this host", (unsigned long long)screen_id);
    return 0;
}

/* An output or navigation: given its key, kept until confirmed, sent now (with a Ping that
 * confirms it) or, while reconnecting, after the new Welcome. `body` is freed or kept. */
static int send_input(flowd_screen_host *host, uint32_t body_field, fw_buffer *body, flowd_error *error) {
    if (body->failed) {
        fw_buffer_free(body);
        return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
    }
    /* Checked before it is kept: one flowd would refuse would be sent again after every resume. */
    size_t length = fw_envelope_size(UINT64_MAX, 0, body_field, body->size);
    if (length > host->link.max_frame) {
        fw_buffer_free(body);
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "an input of %zu bytes, over the maximum frame size of %u",
                       length, host->link.max_frame);
    }
    if (host->input_count == FH_MAX_UNCONFIRMED) { /* confirmed by then in any realistic session */
        fw_buffer_free(&host->inputs[0].body);
        memmove(host->inputs, host->inputs + 1, (FH_MAX_UNCONFIRMED - 1) * sizeof *host->inputs);
        host->input_count--;
    }
    fh_input *input = &host->inputs[host->input_count++];
    *input = (fh_input){.number = host->next_input, .body_field = body_field, .body = *body};
    if (host->phase != FH_READY) return 0; /* reconnecting: sent after the Welcome */
    if (fh_send(host, body_field, &input->body, 0, error) < 0) return -1;
    int sent = fh_send_ping(host, false, NULL, error);
    fh_flush_unless_dispatching(host); /* the input and its Ping in one write */
    return sent;
}

static uint64_t next_key(flowd_screen_host *host) {
    return host->key_base + ++host->next_input;
}

int flowd_screen_send_output(flowd_screen_host *host, uint64_t screen_id, const flowd_payload *payload,
                             flowd_error *error) {
    if (check_hosted(host, screen_id, error) < 0) return -1;
    if (!payload || (!payload->data && payload->size))
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no payload");
    fw_buffer wrapped = {0}, output = {0};
    fw_put_string_field(&wrapped, 1, payload->content_type ? payload->content_type : "application/json");
    fw_put_bytes_field(&wrapped, 2, payload->data, payload->size);
    fw_put_varint_field(&output, 1, screen_id);
    fw_put_message_field(&output, 2, &wrapped);
    fw_put_varint_field(&output, 3, next_key(host));
    fw_buffer_free(&wrapped);
    return send_input(host, FW_OUTPUT, &output, error);
}

int flowd_screen_send_json(flowd_screen_host *host, uint64_t screen_id, const char *json, flowd_error *error) {
    if (!json) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no JSON");
    flowd_payload payload = {.content_type = "application/json", .data = (const uint8_t *)json, .size = strlen(json)};
    return flowd_screen_send_output(host, screen_id, &payload, error);
}

/* UserNavigation {screen_id, action = field {value}, key}. */
static int navigate(flowd_screen_host *host, uint64_t screen_id, uint32_t action, uint64_t value, flowd_error *error) {
    if (check_hosted(host, screen_id, error) < 0) return -1;
    fw_buffer navigation = {0};
    fw_encode_navigation(&navigation, screen_id, action, value, next_key(host));
    return send_input(host, FW_USER_NAVIGATION, &navigation, error);
}

int flowd_screen_back(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(host, screen_id, FW_NAVIGATION_BACK, (uint64_t)phase, error);
}

int flowd_screen_close_modal(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(host, screen_id, FW_NAVIGATION_CLOSE_MODAL, (uint64_t)phase, error);
}

int flowd_screen_close_window(flowd_screen_host *host, uint64_t screen_id, flowd_phase phase, flowd_error *error) {
    if (fl_check_phase(phase, error) < 0) return -1;
    return navigate(host, screen_id, FW_NAVIGATION_CLOSE_WINDOW, (uint64_t)phase, error);
}

int flowd_screen_select_tab(flowd_screen_host *host, uint64_t screen_id, uint32_t index, flowd_error *error) {
    return navigate(host, screen_id, FW_NAVIGATION_SELECT_TAB, index, error);
}

int flowd_screen_save_state(flowd_screen_host *host, uint64_t screen_id, const void *data, size_t size,
                            flowd_error *error) {
    if (check_hosted(host, screen_id, error) < 0) return -1;
    if (size && !data) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no data");
    if (size > FLOWD_SCREEN_MAX_SAVED_STATE)
        return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "a saved state of %zu bytes; flowd keeps at most %d",
                       size, FLOWD_SCREEN_MAX_SAVED_STATE);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
    if (size) memcpy(copy, data, size);
    fh_saved *saved = fh_find_saved(host, screen_id);
    if (!saved) {
        if (host->saved_count == host->saved_capacity) {
            size_t capacity = host->saved_capacity ? host->saved_capacity * 2 : 8;
            fh_saved *grown = realloc(host->saved, capacity * sizeof *grown);
            if (!grown) {
                free(copy);
                return fl_fail(error, FLOWD_ERROR_NO_MEMORY, "out of memory");
            }
            host->saved = grown;
            host->saved_capacity = capacity;
        }
        saved = &host->saved[host->saved_count++];
        *saved = (fh_saved){.id = screen_id};
    }
    free(saved->data);
    saved->data = copy;
    saved->size = size;
    if (host->phase != FH_READY) return 0; /* sent after the resume */
    fw_buffer save = {0};
    fw_put_varint_field(&save, 1, screen_id);
    fw_put_bytes_field(&save, 2, data, size);
    int sent = fh_send(host, FW_SAVE_STATE, &save, 0, error);
    fw_buffer_free(&save);
    fh_flush_unless_dispatching(host);
    return sent;
}

static int check_ready(flowd_screen_host *host, flowd_error *error) {
    if (!host) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no host");
    if (host->phase != FH_READY)
        return fl_fail(error, FLOWD_ERROR_CLOSED, host->phase == FH_ENDED ? "the host has ended"
                                                  : host->reconnecting ? "reconnecting to flowd"
                                                                       : "flowd has not welcomed this host yet");
    return 0;
}

int flowd_screen_open_link(flowd_screen_host *host, const char *link, flowd_error *error) {
    if (!link) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "no link");
    if (check_ready(host, error) < 0) return -1;
    fw_buffer open = {0};
    fw_put_string_field(&open, 1, link);
    int sent = fh_send(host, FW_OPEN_LINK, &open, 0, error);
    fw_buffer_free(&open);
    fh_flush_unless_dispatching(host);
    return sent;
}

int flowd_screen_ping(flowd_screen_host *host, uint64_t *nonce, flowd_error *error) {
    if (check_ready(host, error) < 0) return -1;
    int sent = fh_send_ping(host, true, nonce, error);
    fh_flush_unless_dispatching(host);
    return sent;
}

int fh_ack(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, flowd_error *error) {
    fw_buffer ack = {0};
    fw_put_varint_field(&ack, 1, screen_id);
    fw_put_varint_field(&ack, 2, serial);
    int sent = fh_send(host, FW_ACK, &ack, 0, error);
    fw_buffer_free(&ack);
    return sent;
}

int flowd_screen_ack(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, flowd_error *error) {
    if (check_ready(host, error) < 0) return -1;
    if (serial == 0) return fl_fail(error, FLOWD_ERROR_INVALID_ARGUMENT, "serial 0 is no command's (they start at 1)");
    int sent = fh_ack(host, screen_id, serial, error);
    fh_flush_unless_dispatching(host);
    return sent;
}

void flowd_screen_defer_ack(flowd_screen_host *host) {
    if (host && host->in_command) host->defer_ack = true;
}

int flowd_screen_refuse(flowd_screen_host *host, uint64_t screen_id, uint64_t serial, const char *message,
                        flowd_error *error) {
    if (check_ready(host, error) < 0) return -1;
    fw_buffer refusal = {0};
    fw_put_varint_field(&refusal, 1, FLOWD_ERROR_BAD_PAYLOAD);
    fw_put_string_field(&refusal, 2, message ? message : "the host cannot use this state");
    fw_put_varint_field(&refusal, 4, screen_id);
    fw_put_varint_field(&refusal, 5, serial);
    int sent = fh_send(host, FW_ERROR, &refusal, 0, error);
    fw_buffer_free(&refusal);
    fh_flush_unless_dispatching(host);
    return sent;
}
