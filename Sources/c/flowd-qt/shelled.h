/* flowd-qt under flowd-shell (docs/shell.md, "What a toolkit host does"): one undecorated toplevel
 * per screen with only the screen's content (body, field, buttons), its wl_surface claimed with the
 * screen's display_token before its first buffer; the shell draws back, the title (the toplevel's
 * title) and the tabs, places and slides the surfaces, and sends the navigation itself. */
#ifndef FLOWD_QT_SHELLED_H
#define FLOWD_QT_SHELLED_H

#include <flowd/screen.h>

#include <functional>
#include <map>
#include <memory>

struct ShelledScreen;

class Shelled {
public:
    static bool available(); // Qt's platform is Wayland, and the compositor has flowd_shell_v1
    Shelled();
    ~Shelled();
    void setHost(flowd_screen_host *host) { host_ = host; }
    std::function<void()> sent;

    void placed(const flowd_place *place);
    void updated(const flowd_update *update);
    void dismissed(const flowd_dismiss *dismiss);

private:
    void draw(ShelledScreen *s);
    bool takeState(ShelledScreen *s, const flowd_payload *state, uint64_t serial);
    void claim(ShelledScreen *s);
    flowd_screen_host *host_ = nullptr;
    std::map<uint64_t, std::unique_ptr<ShelledScreen>> screens_;
};

#endif
