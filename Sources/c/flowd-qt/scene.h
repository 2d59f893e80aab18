/* The screens flowd placed on this host, drawn as Qt widgets: a window with a header (back, title)
 * for the app's main window and one for each window a flow opened on another display,
 * a sliding stack per navigation stack (pushes slide in from the right, pops from the left, when
 * flowd says `animated`), a QTabBar over a stack per tab bar, a window-modal window per modal
 * presentation, and a card per screen (title, body, line edit, buttons). Events from libflowd-screen
 * change the model; sync() makes the widgets match it; what the person does goes back to flowd as
 * outputs and navigation. The same model and derivation as flowd-gtk's scene.c. */
#ifndef FLOWD_QT_SCENE_H
#define FLOWD_QT_SCENE_H

#include <flowd/screen.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

class QWidget;
class SlideStack;
struct Shown;
struct Part;
struct Frame;

class Scene {
public:
    explicit Scene(const char *title);
    ~Scene();
    void setHost(flowd_screen_host *host) { host_ = host; }
    std::function<void()> sent;       // after every output or navigation: the loop watches for writing again
    std::function<void()> mainClosed; // the main window was closed: the host ends

    // The library's callbacks.
    void placed(const flowd_place *place);
    void updated(const flowd_update *update);
    void placementChanged(const flowd_placement_changed *change);
    void dismissed(const flowd_dismiss *dismiss);

    // Makes the widgets match the screens (after each dispatch).
    void sync();

    // What a person does, also driven by the test channel: each returns nullptr, or why it cannot.
    const char *press(const std::string &label);
    const char *type(const std::string &text);
    const char *back();
    const char *escape();
    const char *close();
    const char *closeWindowOfAFlow(); // the first window a flow opened, as its close button does
    const char *tab(int tab); // 1-based, as people count

    // The front screen of the front window: its id, kind, title and body (false if none).
    bool front(uint64_t *id, std::string *kind, std::string *title, std::string *body);
    // The widget tree as text lines, as flowd-gtk's `dump` (docs/native.md, "The Qt host").
    std::string dump();
    bool animating();                          // a stack is still sliding
    unsigned pushes = 0, pops = 0;             // the slides drawn so far (flowd said `animated`)
    const char *screenshot(const char *path);  // a PNG of the front window

private:
    Shown *findShown(uint64_t id);
    Part *findPart(uint64_t id);
    Frame *findFrame(uint64_t flowdWindow, uint64_t root);
    Frame *frontOf(uint64_t flowdWindow);
    Frame *frontFrame() { return frontOf(0); } // the main window's newest modal one, else the main window
    Frame *newFrame(uint64_t flowdWindow, const std::string &display, uint64_t root, const char *title);
    Part *ensurePart(const flowd_path_step &step);
    bool takeState(Shown *s, const flowd_payload *state, uint64_t serial);
    void fillCard(Part *p, Shown *s);
    void report(int result, const flowd_error *error);
    const char *navigate(Frame *f, bool close);
    const char *closeWindow(Frame *f);
    const char *escapeIn(Frame *f);
    void tabChosen(Part *bar, int position);
    std::string tabTitle(uint64_t child);
    void placeParts();
    void dropUnwanted();
    void chooseVisible();
    void updateFrames();
    Part *frontCard(Shown **screen);
    void dumpPart(QWidget *widget, int depth, bool shownNow, std::string &out);

    flowd_screen_host *host_ = nullptr;
    std::vector<std::unique_ptr<Shown>> screens_;
    std::vector<std::unique_ptr<Part>> parts_;
    std::vector<std::unique_ptr<Frame>> frames_; // [0] is the main window
    std::map<uint64_t, uint32_t> selectedTab_;   // tab bar id -> tab index + 1
    bool animate_ = false;                       // an event of this batch asked for animation
    bool syncing_ = false;                       // widgets change because of flowd, not the person
};

#endif
