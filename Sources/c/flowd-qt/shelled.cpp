/* flowd-qt under flowd-shell (shelled.h). Qt 6.4 reaches the wl_display and a window's wl_surface
 * through QPlatformNativeInterface (Qt 6.5 has QNativeInterface::QWaylandApplication instead). */
#include "shelled.h"

#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWidget>
#include <QWindow>
#include <qpa/qplatformnativeinterface.h>
#include <cstdio>
#include <string>

#include "flowd-shell-client.h"

extern "C" {
#include "card.h"
}

struct ShelledScreen {
    uint64_t id = 0;
    std::string kind, token;
    QWidget *window = nullptr;
    card state{};
    ~ShelledScreen() {
        delete window;
        card_free(&state);
    }
};

static wl_display *waylandDisplay() {
    if (QGuiApplication::platformName() != "wayland") return nullptr;
    return static_cast<wl_display *>(QGuiApplication::platformNativeInterface()->nativeResourceForIntegration("wl_display"));
}

bool Shelled::available() { return flowd_shell_available(waylandDisplay()) == 1; }

Shelled::Shelled() = default;
Shelled::~Shelled() = default;

// The screen's content only: the shell shows the title in its header.
void Shelled::draw(ShelledScreen *s) {
    delete s->window->layout();
    const QObjectList children = s->window->children();
    for (QObject *child : children)
        if (child->isWidgetType()) delete child;
    auto *box = new QVBoxLayout(s->window);
    box->setSizeConstraint(QLayout::SetNoConstraint); // the shell sizes the surface
    box->setContentsMargins(24, 24, 24, 24);
    box->setSpacing(12);
    if (s->state.body && *s->state.body) {
        auto *body = new QLabel(QString::fromUtf8(s->state.body));
        body->setWordWrap(true);
        box->addWidget(body);
    }
    const uint64_t id = s->id;
    if (s->state.field) {
        auto *edit = new QLineEdit(QString::fromUtf8(s->state.text ? s->state.text : ""));
        edit->setPlaceholderText(QString::fromUtf8(s->state.field));
        QObject::connect(edit, &QLineEdit::returnPressed, edit, [this, edit, id] {
            flowd_error error;
            char *json = card_text_json(edit->text().toUtf8().constData());
            int result = flowd_screen_send_json(host_, id, json, &error);
            free(json);
            if (result < 0) fprintf(stderr, "flowd-qt: %s: %s\n", flowd_error_name(error.code), error.message);
            if (sent) sent();
        });
        box->addWidget(edit);
    }
    for (size_t i = 0; i < s->state.button_count; i++) {
        auto *button = new QPushButton(QString::fromUtf8(s->state.buttons[i]));
        QObject::connect(button, &QPushButton::clicked, button, [this, i, id] {
            flowd_error error;
            char *json = card_press_json(i);
            int result = flowd_screen_send_json(host_, id, json, &error);
            free(json);
            if (result < 0) fprintf(stderr, "flowd-qt: %s: %s\n", flowd_error_name(error.code), error.message);
            if (sent) sent();
        });
        box->addWidget(button);
    }
    box->addStretch(1);
    s->window->setWindowTitle(QString::fromUtf8(s->state.title && *s->state.title ? s->state.title : s->kind.c_str()));
}

// Shown: the toplevel has its wl_surface and no buffer yet (Qt draws at the next expose).
void Shelled::claim(ShelledScreen *s) {
    QWindow *window = s->window->windowHandle();
    auto *surface = window ? static_cast<wl_surface *>(QGuiApplication::platformNativeInterface()->nativeResourceForWindow("surface", window))
                           : nullptr;
    if (flowd_shell_claim(waylandDisplay(), surface, s->token.c_str()) != 0)
        fprintf(stderr, "flowd-qt: screen %llu has no surface or display_token to claim with\n", (unsigned long long)s->id);
}

bool Shelled::takeState(ShelledScreen *s, const flowd_payload *state, uint64_t serial) {
    card decoded;
    char why[200];
    if (card_decode(state->data, state->size, &decoded, why, sizeof why) < 0) {
        std::string message = "kind \"" + s->kind + "\": " + why;
        flowd_screen_defer_ack(host_);
        flowd_screen_refuse(host_, s->id, serial, message.c_str(), nullptr);
        return false;
    }
    card_free(&s->state);
    s->state = decoded;
    return true;
}

void Shelled::placed(const flowd_place *place) {
    auto found = screens_.find(place->screen_id);
    ShelledScreen *s;
    if (found != screens_.end()) { // placed again (a resume): a new secret for the same surface
        s = found->second.get();
        s->token = place->display_token;
        if (takeState(s, &place->state, place->serial)) draw(s);
        claim(s);
        return;
    }
    auto fresh = std::make_unique<ShelledScreen>();
    s = fresh.get();
    s->id = place->screen_id;
    s->kind = place->kind;
    s->token = place->display_token;
    s->window = new QWidget;
    s->window->setWindowFlag(Qt::FramelessWindowHint);
    screens_[s->id] = std::move(fresh);
    takeState(s, &place->state, place->serial);
    draw(s);
    s->window->show();
    claim(s);
    fprintf(stderr, "flowd-qt: drew screen %llu (%s) '%s'\n", (unsigned long long)s->id, s->kind.c_str(),
            s->state.title ? s->state.title : "");
}

void Shelled::updated(const flowd_update *update) {
    auto found = screens_.find(update->screen_id);
    if (found != screens_.end() && takeState(found->second.get(), &update->state, update->serial)) draw(found->second.get());
}

void Shelled::dismissed(const flowd_dismiss *dismiss) { screens_.erase(dismiss->screen_id); }
