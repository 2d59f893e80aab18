/* flowd-qt: a Qt 6 (Widgets) desktop host of flowd's demo, on libflowd-screen (docs/native.md).
 *
 *   flowd-qt [--socket PATH] [--provides KIND,...] [--control]
 *
 * Attached (the default), it shows every kind of the demo launcher; spawned by flowd
 * (--spawn-screens), the one screen it was started for; under flowd-shell (a Wayland display with
 * flowd_shell_v1) one undecorated toplevel per screen. With WAYLAND_DISPLAY and no DISPLAY it runs on
 * Qt's Wayland platform unless QT_QPA_PLATFORM says otherwise. --control reads commands on standard input
 * and answers each on standard output, for the tests, as flowd-gtk's: sync, front, press LABEL,
 * type TEXT, back, escape, close, close-window, tab N (1-based), dump, shot PATH, cut, quit. */
#include <flowd/screen.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QApplication>
#include <QSocketNotifier>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flowd-shell-client.h"
#include "loop.h"
#include "scene.h"
#include "shelled.h"

static const char *const demo_kinds[] = {"business", "till", "customer", "customer-pay", "directory", "directory-detail", "item", "login", "login-success",
                                         "menu", "profile", "student-age", "student-name", "students", "summary", "tutorial"};

struct App {
    flowd_screen_host *host = nullptr;
    std::unique_ptr<Scene> scene;     // its own windows, with headers (none under flowd-shell)
    std::unique_ptr<Shelled> shelled; // under flowd-shell: one undecorated toplevel per screen
    std::unique_ptr<FlowdLoop> loop;
    bool syncWanted = false; // a `sync` waits: for a Welcome, then for the Pong of its Ping
    uint64_t syncNonce = 0, syncConnection = 0;
    bool syncDone = false;
    int status = 0;
};

static void answer(const std::string &line) {
    printf("%s\n", line.c_str());
    fflush(stdout);
}

// A `sync`'s Ping, once there is a Welcome (again, after a reconnect).
static void pingForSync(App &a) {
    const flowd_welcome *welcome = flowd_screen_welcome(a.host);
    if (!a.syncWanted || !welcome || (a.syncNonce && a.syncConnection == welcome->connection_id)) return;
    if (flowd_screen_ping(a.host, &a.syncNonce, nullptr) == 0) a.syncConnection = welcome->connection_id;
    else a.syncNonce = 0; // reconnecting: after the next Welcome
}

static void dispatched(App &a) {
    if (a.scene) a.scene->sync();
    if (a.syncDone) {
        a.syncDone = a.syncWanted = false;
        a.syncNonce = 0;
        answer("ok");
    }
    pingForSync(a);
}

static void ended(App &a) {
    const flowd_end *end = flowd_screen_end(a.host);
    if (end->reason == FLOWD_END_ERROR) {
        fprintf(stderr, "flowd-qt: %s: %s\n", flowd_error_name(end->error.code), end->error.message);
        a.status = 1;
    } else if (end->reason == FLOWD_END_CONNECTION_CLOSED) {
        fprintf(stderr, "flowd-qt: the connection to flowd closed\n");
    } else {
        fprintf(stderr, "flowd-qt: flowd ended the session%s%s\n", *end->shutdown_message ? ": " : "", end->shutdown_message);
    }
    QTimer::singleShot(0, qApp, [&a] { qApp->exit(a.status); });
}

/* ---- The test channel -------------------------------------------------------------------------- */

static void shoot(App &a, const std::string &path) {
    if (a.scene->animating()) { // after the slides
        QTimer::singleShot(20, qApp, [&a, path] { shoot(a, path); });
        return;
    }
    const char *failed = a.scene->screenshot(path.c_str());
    answer(failed ? std::string("error ") + failed : "ok " + path);
}

static void command(App &a, std::string line) {
    std::string argument;
    size_t space = line.find(' ');
    if (space != std::string::npos) {
        argument = line.substr(space + 1);
        line.resize(space);
    }
    const char *failed = nullptr;
    if (line == "sync") {
        a.syncWanted = true;
        a.syncNonce = 0;
        pingForSync(a);
        a.loop->rearm();
        return; // answered at the Pong
    } else if (line == "quit") {
        flowd_screen_stop(a.host);
        answer("ok");
        qApp->exit(0);
        return;
    } else if (line == "cut") {
        // The connection breaks as a crashed link would: the host resumes with its token.
        if (shutdown(flowd_screen_fd(a.host), SHUT_RDWR) < 0) failed = "no connection to cut";
    } else if (a.shelled) {
        answer("error under flowd-shell this host only draws; the shell navigates (its --control)");
        return;
    } else if (line == "front") {
        uint64_t id;
        std::string kind, title, body;
        if (a.scene->front(&id, &kind, &title, &body))
            answer("ok " + std::to_string(id) + " " + kind + " \"" + title + "\" \"" + body + "\"");
        else
            answer("error no screen in front");
        return;
    } else if (line == "dump") {
        printf("%sok\n", a.scene->dump().c_str());
        fflush(stdout);
        return;
    } else if (line == "shot" && !argument.empty()) {
        shoot(a, argument);
        return;
    } else if (line == "press" && !argument.empty()) {
        failed = a.scene->press(argument);
    } else if (line == "type" && !argument.empty()) {
        failed = a.scene->type(argument);
    } else if (line == "back") {
        failed = a.scene->back();
    } else if (line == "escape") {
        failed = a.scene->escape();
    } else if (line == "close") {
        failed = a.scene->close();
    } else if (line == "close-window") {
        failed = a.scene->closeWindowOfAFlow();
    } else if (line == "tab" && !argument.empty()) {
        failed = a.scene->tab(atoi(argument.c_str()));
    } else {
        failed = "unknown command (sync, front, press, type, back, escape, close, close-window, tab, dump, shot, cut, quit)";
    }
    answer(failed ? std::string("error ") + failed : "ok");
    a.loop->rearm(); // what the command sent is written at the next dispatch
    a.loop->dispatch();
}

// False at the end of the input: the tests closed it, and the host ends.
static bool readControl(App &a, std::string &pending) {
    char buffer[4096];
    ssize_t n = read(0, buffer, sizeof buffer);
    if (n <= 0) {
        qApp->exit(a.status);
        return false;
    }
    pending.append(buffer, size_t(n));
    size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
        std::string line = pending.substr(0, end);
        pending.erase(0, end + 1);
        command(a, line);
    }
    return true;
}

int main(int argc, char **argv) {
    const char *socketPath = nullptr;
    std::vector<std::string> provided;
    bool control = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
            socketPath = argv[++i];
        } else if (!strcmp(argv[i], "--provides") && i + 1 < argc) {
            for (const QString &kind : QString(argv[++i]).split(',', Qt::SkipEmptyParts)) provided.push_back(kind.toStdString());
        } else if (!strcmp(argv[i], "--control")) {
            control = true;
        } else {
            fprintf(stderr, "usage: flowd-qt [--socket PATH] [--provides KIND,...] [--control]\n");
            return 64;
        }
    }
    // Qt's own warnings say "Qt warning:" in the log, where the tests look for them.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        static const char *const names[] = {"debug", "warning", "critical", "fatal", "info"};
        fprintf(stderr, "flowd-qt: Qt %s: %s\n", names[type <= QtInfoMsg ? type : QtWarningMsg], message.toLocal8Bit().constData());
    });
    // Spawned under flowd-shell a screen gets WAYLAND_DISPLAY and no DISPLAY: Qt's default platform
    // (xcb) would find no display, so Wayland it is, as GTK picks by itself.
    if (!getenv("QT_QPA_PLATFORM") && getenv("WAYLAND_DISPLAY") && !getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "wayland", 1);
    // Restarted while flowd-shell restarts too: wait for the display rather than fail (75: try again).
    if (!strncmp(getenv("QT_QPA_PLATFORM") ? getenv("QT_QPA_PLATFORM") : "", "wayland", 7) && flowd_shell_wait_display(30000) < 0) {
        fprintf(stderr, "flowd-qt: no Wayland display %s after 30 s\n", getenv("WAYLAND_DISPLAY") ? getenv("WAYLAND_DISPLAY") : "(unset)");
        return 75;
    }
    QApplication application(argc, argv);
    App a;
    if (Shelled::available()) {
        a.shelled = std::make_unique<Shelled>();
        fprintf(stderr, "flowd-qt: under flowd-shell: one toplevel per screen, the shell draws the chrome\n");
    } else {
        a.scene = std::make_unique<Scene>("flowd");
    }
    std::vector<const char *> kinds;
    for (const std::string &kind : provided) kinds.push_back(kind.c_str());
    flowd_screen_options options;
    flowd_screen_options_init(&options);
    options.name = "flowd-qt";
    options.socket_path = socketPath;
    options.provides = kinds.empty() ? demo_kinds : kinds.data();
    options.provides_count = kinds.empty() ? sizeof demo_kinds / sizeof *demo_kinds : kinds.size();
    // The library's callbacks carry the app; the scene (or the shelled host) takes the screens.
    options.callbacks.placed = [](flowd_screen_host *, const flowd_place *place, void *user) {
        App &app = *static_cast<App *>(user);
        app.shelled ? app.shelled->placed(place) : app.scene->placed(place);
    };
    options.callbacks.updated = [](flowd_screen_host *, const flowd_update *update, void *user) {
        App &app = *static_cast<App *>(user);
        app.shelled ? app.shelled->updated(update) : app.scene->updated(update);
    };
    options.callbacks.placement_changed = [](flowd_screen_host *, const flowd_placement_changed *change, void *user) {
        App &app = *static_cast<App *>(user);
        if (app.scene) app.scene->placementChanged(change); // the shell places the surfaces
    };
    options.callbacks.dismissed = [](flowd_screen_host *, const flowd_dismiss *dismiss, void *user) {
        App &app = *static_cast<App *>(user);
        app.shelled ? app.shelled->dismissed(dismiss) : app.scene->dismissed(dismiss);
    };
    options.callbacks.pong = [](flowd_screen_host *, uint64_t nonce, void *user) {
        App &app = *static_cast<App *>(user);
        if (app.syncWanted && nonce == app.syncNonce) app.syncDone = true;
    };
    options.callbacks.error = [](flowd_screen_host *, const flowd_error *error, void *) {
        fprintf(stderr, "flowd-qt: flowd says %s: %s\n", flowd_error_name(error->code), error->message);
    };
    options.callbacks.connection = [](flowd_screen_host *, const flowd_connection_event *event, void *) {
        fprintf(stderr, "flowd-qt: %s\n", event->text);
    };
    options.user = &a;
    flowd_error error;
    a.host = flowd_screen_open(&options, &error);
    if (!a.host) {
        fprintf(stderr, "flowd-qt: %s\n", error.message);
        return 1;
    }
    a.loop = std::make_unique<FlowdLoop>(a.host, [&a] { dispatched(a); }, [&a] { ended(a); });
    if (a.scene) {
        a.scene->setHost(a.host);
        a.scene->sent = [&a] { a.loop->rearm(); };
        // Closing the main window ends the host: it says Shutdown, and its screens wait for the next host.
        a.scene->mainClosed = [&a] {
            flowd_screen_stop(a.host);
            qApp->exit(0);
        };
    } else {
        a.shelled->setHost(a.host);
        a.shelled->sent = [&a] { a.loop->rearm(); };
    }
    std::string pending;
    std::unique_ptr<QSocketNotifier> input;
    if (control) {
        input = std::make_unique<QSocketNotifier>(0, QSocketNotifier::Read);
        QObject::connect(input.get(), &QSocketNotifier::activated, [&a, &pending, &input] {
            if (!readControl(a, pending)) input->setEnabled(false);
        });
    }
    QApplication::setQuitOnLastWindowClosed(false);
    int status = application.exec();
    if (input) input->setEnabled(false);
    if (a.scene) fprintf(stderr, "flowd-qt: slid %u pushes and %u pops\n", a.scene->pushes, a.scene->pops);
    a.loop.reset();
    flowd_screen_free(a.host);
    a.scene.reset();
    a.shelled.reset();
    return status ? status : a.status;
}
