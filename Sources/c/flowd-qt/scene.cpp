/* flowd's navigation model as Qt widgets (scene.h). The model is the screens flowd placed, each with
 * its path from the window; sync() derives every widget from those paths, so a resume, a restore or
 * a restarted process that places the same screens again draws the same widgets. */
#include "scene.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QTabBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "slidestack.h"

extern "C" {
#include "card.h"
}

struct Shown { // a screen flowd placed here
    uint64_t id = 0;
    std::string kind;
    card state{};
    std::vector<flowd_path_step> path; // its display strings are not kept: `display` is the window's
    std::string display;               // the display of the window a flow opened that it is in; else empty
    bool visible = false;
    bool dirty = false; // its state changed since its card was drawn
    ~Shown() { card_free(&state); }
};

struct Part { // the widget of one node below the window
    enum Kind { Card, Stack, Tabs } kind = Card;
    uint64_t id = 0;
    QWidget *widget = nullptr;  // what the owner holds
    SlideStack *stack = nullptr; // Stack: the widget itself; Tabs: the stack under the bar
    QTabBar *bar = nullptr;     // Tabs
    SlideStack *owner = nullptr; // the stack or window content holding it
    uint32_t index = 0;         // its position in its owner: stack depth or tab
    bool wanted = false;
};

// A window: one per flowd window (root 0), or one per modal presentation. Closing and Escape go to the scene.
class FrameWindow : public QWidget {
public:
    std::function<bool()> closing; // true: keep the window (flowd dismisses it)
    std::function<void()> escaped;

protected:
    void closeEvent(QCloseEvent *event) override {
        if (closing && closing()) event->ignore();
        else event->accept();
    }
    void keyPressEvent(QKeyEvent *event) override {
        if (event->key() == Qt::Key_Escape && escaped) escaped();
        else QWidget::keyPressEvent(event);
    }
};

struct Frame {
    uint64_t flowdWindow = 0; // the flowd window it shows: 0 for the app's main one, else the window's id
    std::string display;      // the display a flow opened that window on (empty for the main window)
    uint64_t root = 0;        // the modal presentation it shows, 0 for the window itself
    FrameWindow *window = nullptr;
    SlideStack *content = nullptr;
    QToolButton *back = nullptr;
    QLabel *title = nullptr;
    uint64_t front = 0; // the screen in front
    bool wanted = false;
};

static const char *const ID = "flowd-id", *const INDEX = "flowd-index";

static uint64_t frameRootOf(const Shown *s) { // the modal presentation it is in; 0: the main window
    uint64_t root = 0;
    for (const auto &step : s->path)
        if (step.presented) root = step.id;
    return root;
}

// The flowd window a screen is in: 0 for the main one, else the id of a window a flow opened on a display.
static uint64_t windowOf(const Shown *s) { return s->display.empty() ? 0 : s->path[0].id; }

static int stackIndexOf(const Shown *s) {
    flowd_placement placement{};
    placement.path = s->path.data();
    placement.path_count = s->path.size();
    return flowd_placement_stack_index(&placement);
}

Scene::Scene(const char *title) { newFrame(0, "", 0, title)->back->hide(); }

Scene::~Scene() {
    for (auto &p : parts_) {
        if (p->owner) p->owner->remove(p->widget);
    }
    for (auto &p : parts_) delete p->widget;
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) delete (*it)->window;
}

Shown *Scene::findShown(uint64_t id) {
    for (auto &s : screens_)
        if (s->id == id) return s.get();
    return nullptr;
}

Part *Scene::findPart(uint64_t id) {
    for (auto &p : parts_)
        if (p->id == id) return p.get();
    return nullptr;
}

Frame *Scene::findFrame(uint64_t flowdWindow, uint64_t root) {
    for (auto &f : frames_)
        if (f->flowdWindow == flowdWindow && f->root == root) return f.get();
    return nullptr;
}

// The front window of a flowd window: its newest modal one, else the window itself.
Frame *Scene::frontOf(uint64_t flowdWindow) {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
        if ((*it)->flowdWindow == flowdWindow) return it->get();
    return nullptr;
}

/* ---- The model: what flowd says ------------------------------------------------------------- */

static void setPath(Shown *s, const flowd_placement &placement) {
    s->path.assign(placement.path, placement.path + placement.path_count);
    s->display = !s->path.empty() && s->path[0].display ? s->path[0].display : "";
    for (auto &step : s->path) step.display = nullptr; // the library's memory, gone after the callback
    s->visible = placement.visible;
}

// The state as a card, or a refusal to flowd (not acked: flowd reports SCREEN_REFUSED).
bool Scene::takeState(Shown *s, const flowd_payload *state, uint64_t serial) {
    card decoded;
    char why[200];
    if (card_decode(state->data, state->size, &decoded, why, sizeof why) < 0) {
        std::string message = "kind \"" + s->kind + "\": " + why;
        flowd_screen_defer_ack(host_);
        flowd_screen_refuse(host_, s->id, serial, message.c_str(), nullptr);
        static const uint8_t nothing[1] = {0};
        if (!s->state.title) card_decode(nothing, 0, &s->state, why, sizeof why); // a new screen: an empty card
        return false;
    }
    card_free(&s->state);
    s->state = decoded;
    s->dirty = true;
    return true;
}

void Scene::placed(const flowd_place *place) {
    Shown *s = findShown(place->screen_id);
    if (!s) {
        screens_.push_back(std::make_unique<Shown>());
        s = screens_.back().get();
        s->id = place->screen_id;
    }
    s->kind = place->kind;
    setPath(s, place->placement);
    takeState(s, &place->state, place->serial);
    animate_ |= place->animated;
    fprintf(stderr, "flowd-qt: drew screen %llu (%s) '%s'\n", (unsigned long long)s->id, s->kind.c_str(),
            s->state.title ? s->state.title : "");
}

void Scene::updated(const flowd_update *update) {
    if (Shown *s = findShown(update->screen_id)) takeState(s, &update->state, update->serial);
}

void Scene::placementChanged(const flowd_placement_changed *change) {
    if (Shown *s = findShown(change->screen_id)) setPath(s, change->placement);
}

void Scene::dismissed(const flowd_dismiss *dismiss) {
    Shown *s = findShown(dismiss->screen_id);
    if (!s) return;
    // A person's back or close already moved the view: the slide back is drawn without animation.
    animate_ |= dismiss->animated && dismiss->reason != FLOWD_DISMISS_USER_NAVIGATION;
    screens_.erase(std::find_if(screens_.begin(), screens_.end(), [s](auto &x) { return x.get() == s; }));
}

/* ---- What a person does --------------------------------------------------------------------- */

void Scene::report(int result, const flowd_error *error) {
    if (result < 0) fprintf(stderr, "flowd-qt: %s: %s\n", flowd_error_name(error->code), error->message);
    if (sent) sent();
}

// Back and close are gestures flowd hears begin and then commit, as a swipe would say them.
const char *Scene::navigate(Frame *f, bool close) {
    Shown *s = findShown(f->front);
    if (!s) return "no screen in front";
    if (!close && stackIndexOf(s) <= 0) return "back does not apply: the screen is its stack's root";
    if (close && !f->root) return "close does not apply: no modal presentation";
    auto gesture = close ? flowd_screen_close_modal : flowd_screen_back;
    flowd_error error;
    if (gesture(host_, s->id, FLOWD_PHASE_BEGIN, &error) < 0 || gesture(host_, s->id, FLOWD_PHASE_COMMIT, &error) < 0) {
        report(-1, &error);
        return "flowd could not be told";
    }
    report(0, nullptr);
    return nullptr;
}

// Closing a window a flow opened: flowd hears the user close it (begin, commit); the flow decides.
const char *Scene::closeWindow(Frame *f) {
    Shown *s = findShown(f->front);
    if (!s) return "no screen in the window";
    flowd_error error;
    if (flowd_screen_close_window(host_, s->id, FLOWD_PHASE_BEGIN, &error) < 0 ||
        flowd_screen_close_window(host_, s->id, FLOWD_PHASE_COMMIT, &error) < 0) {
        report(-1, &error);
        return "flowd could not be told";
    }
    report(0, nullptr);
    return nullptr;
}

const char *Scene::escapeIn(Frame *f) {
    Shown *s = findShown(f->front);
    if (s && stackIndexOf(s) > 0) return navigate(f, false);
    if (f->root) return navigate(f, true);
    return "Escape does nothing here";
}

// A tab chosen on the bar: flowd selects it (its PlacementChanged confirms it).
void Scene::tabChosen(Part *bar, int position) {
    if (syncing_ || position < 0) return;
    uint32_t index = bar->bar->tabData(position).toUInt();
    for (auto &s : screens_)
        for (const auto &step : s->path)
            if (step.id == bar->id) {
                flowd_error error;
                report(flowd_screen_select_tab(host_, s->id, index, &error), &error);
                return;
            }
}

/* ---- Widgets ---------------------------------------------------------------------------------- */

void Scene::fillCard(Part *p, Shown *s) {
    QLayout *old = p->widget->layout();
    if (old) {
        const QObjectList children = p->widget->children(); // a copy: deleting changes the list
        for (QObject *child : children)
            if (child->isWidgetType()) delete child;
        delete old;
    }
    auto *box = new QVBoxLayout(p->widget);
    box->setContentsMargins(24, 24, 24, 24);
    box->setSpacing(12);
    auto *title = new QLabel(QString::fromUtf8(s->state.title));
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.5);
    font.setBold(true);
    title->setFont(font);
    box->addWidget(title);
    if (*s->state.body) {
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
            report(flowd_screen_send_json(host_, id, json, &error), &error);
            free(json);
        });
        box->addWidget(edit);
    }
    for (size_t i = 0; i < s->state.button_count; i++) {
        auto *button = new QPushButton(QString::fromUtf8(s->state.buttons[i]));
        QObject::connect(button, &QPushButton::clicked, button, [this, i, id] {
            flowd_error error;
            char *json = card_press_json(i);
            report(flowd_screen_send_json(host_, id, json, &error), &error);
            free(json);
        });
        box->addWidget(button);
    }
    box->addStretch(1);
    s->dirty = false;
}

Part *Scene::ensurePart(const flowd_path_step &step) {
    if (Part *p = findPart(step.id)) return p;
    parts_.push_back(std::make_unique<Part>());
    Part *p = parts_.back().get();
    p->id = step.id;
    switch (step.kind) {
    case FLOWD_NODE_STACK:
        p->kind = Part::Stack;
        p->widget = p->stack = new SlideStack;
        break;
    case FLOWD_NODE_TAB_BAR: {
        p->kind = Part::Tabs;
        p->widget = new QWidget;
        auto *box = new QVBoxLayout(p->widget);
        box->setContentsMargins(0, 6, 0, 0);
        p->bar = new QTabBar;
        p->bar->setExpanding(false);
        p->stack = new SlideStack;
        box->addWidget(p->bar, 0, Qt::AlignHCenter);
        box->addWidget(p->stack, 1);
        QObject::connect(p->bar, &QTabBar::currentChanged, p->bar, [this, p](int position) { tabChosen(p, position); });
        break;
    }
    default: // a screen, or a kind this host does not know: drawn as a card
        p->kind = Part::Card;
        p->widget = new QWidget;
        break;
    }
    p->widget->setProperty(ID, QVariant::fromValue<qulonglong>(p->id));
    return p;
}

static void detach(Part *p, bool leaveImage = false) {
    if (!p->owner) return;
    p->owner->remove(p->widget, leaveImage);
    p->owner = nullptr;
}

static void attach(Part *p, SlideStack *owner) {
    if (p->owner == owner) return;
    detach(p);
    owner->add(p->widget);
    p->owner = owner;
}

Frame *Scene::newFrame(uint64_t flowdWindow, const std::string &display, uint64_t root, const char *title) {
    auto f = std::make_unique<Frame>();
    f->flowdWindow = flowdWindow;
    f->display = display;
    f->root = root;
    Frame *under = root ? findFrame(flowdWindow, 0) : nullptr;
    f->window = new FrameWindow;
    if (under) { // a modal presentation: transient for its window, which it blocks while it is open
        f->window->setParent(under->window, Qt::Dialog);
        f->window->setWindowModality(Qt::WindowModal);
    }
    f->window->resize(root ? 380 : 440, root ? 420 : 520);
    f->window->setWindowTitle(QString::fromUtf8(title));
    auto *column = new QVBoxLayout(f->window);
    column->setSizeConstraint(QLayout::SetNoConstraint); // a window's size is the person's
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    auto *header = new QWidget;
    header->setAutoFillBackground(true);
    header->setBackgroundRole(QPalette::AlternateBase);
    auto *row = new QHBoxLayout(header);
    row->setContentsMargins(6, 6, 6, 6);
    f->back = new QToolButton;
    f->back->setArrowType(Qt::LeftArrow);
    f->back->setToolTip("Back");
    f->back->setFixedWidth(36);
    f->title = new QLabel(QString::fromUtf8(title));
    f->title->setAlignment(Qt::AlignCenter);
    QFont font = f->title->font();
    font.setBold(true);
    f->title->setFont(font);
    auto *balance = new QWidget; // keeps the title centred
    balance->setFixedWidth(36);
    row->addWidget(f->back);
    row->addWidget(f->title, 1);
    row->addWidget(balance);
    column->addWidget(header);
    f->content = new SlideStack;
    column->addWidget(f->content, 1);
    Frame *raw = f.get();
    QObject::connect(f->back, &QToolButton::clicked, f->back, [this, raw] { navigate(raw, false); });
    f->window->closing = [this, raw] {
        if (!raw->root && !raw->flowdWindow) {
            if (mainClosed) mainClosed();
            return false;
        }
        raw->root ? navigate(raw, true) : closeWindow(raw);
        return true; // a modal one, or another window, stays until flowd dismisses its screens
    };
    f->window->escaped = [this, raw] { escapeIn(raw); };
    frames_.push_back(std::move(f));
    raw->window->show();
    return raw;
}

/* ---- Sync: the widgets from the model --------------------------------------------------------- */

// The title a tab shows: its root screen's title.
std::string Scene::tabTitle(uint64_t child) {
    const Shown *best = nullptr;
    for (auto &s : screens_)
        for (const auto &step : s->path)
            if (step.id == child && (!best || s->path.size() < best->path.size())) best = s.get();
    return best && best->state.title ? best->state.title : "";
}

void Scene::placeParts() {
    for (auto &sp : screens_) {
        Shown *s = sp.get();
        // Its flowd window's own window: the main one, or one per window a flow opened.
        uint64_t window = windowOf(s);
        Frame *main = findFrame(window, 0);
        if (!main) main = newFrame(window, s->display, 0, s->display.c_str());
        main->wanted = true;
        for (size_t j = 1; j < s->path.size(); j++) {
            const flowd_path_step &step = s->path[j];
            Part *p = ensurePart(step);
            p->wanted = true;
            p->index = step.index;
            p->widget->setProperty(INDEX, step.index);
            if (p->kind == Part::Card && step.id == s->id && (s->dirty || !p->widget->layout())) fillCard(p, s);
            SlideStack *owner;
            if (step.presented) {
                Frame *f = findFrame(window, step.id);
                if (!f) f = newFrame(window, "", step.id, "");
                f->wanted = true;
                owner = f->content;
            } else if (j == 1) {
                owner = main->content;
            } else {
                Part *container = findPart(s->path[j - 1].id);
                owner = container && container->stack ? container->stack : main->content;
            }
            attach(p, owner);
        }
        if (s->visible) // the tabs that show it are the selected ones
            for (size_t j = 1; j + 1 < s->path.size(); j++)
                if (s->path[j].kind == FLOWD_NODE_TAB_BAR && !s->path[j + 1].presented)
                    selectedTab_[s->path[j].id] = s->path[j + 1].index + 1;
    }
}

void Scene::dropUnwanted() {
    // Detached first, all of them, then deleted: a container deleted before a child it holds would
    // delete that child with it.
    for (auto &p : parts_) {
        if (p->wanted) continue;
        // A screen popped by flowd with `animated` slides out: its image stays until the slide.
        Part *owner = nullptr;
        for (auto &c : parts_)
            if (p->owner && c->stack == p->owner) owner = c.get();
        detach(p.get(), animate_ && owner && owner->kind == Part::Stack && owner->wanted);
    }
    for (auto it = parts_.begin(); it != parts_.end();) {
        if ((*it)->wanted) {
            ++it;
            continue;
        }
        selectedTab_.erase((*it)->id);
        (*it)->widget->deleteLater(); // it may be the sender of the signal being handled
        it = parts_.erase(it);
    }
    for (auto it = frames_.begin() + 1; it != frames_.end();) {
        if ((*it)->wanted) {
            ++it;
            continue;
        }
        (*it)->window->closing = nullptr;
        (*it)->window->hide();
        (*it)->window->deleteLater();
        it = frames_.erase(it);
    }
}

// Each stack shows its top; each tab bar its selected tab.
void Scene::chooseVisible() {
    for (auto &cp : parts_) {
        Part *container = cp.get();
        if (container->kind == Part::Card) continue;
        std::vector<Part *> children;
        for (auto &c : parts_)
            if (c->owner == container->stack) children.push_back(c.get());
        std::sort(children.begin(), children.end(), [](Part *a, Part *b) { return a->index < b->index; });
        if (children.empty()) continue;
        Part *pick = container->kind == Part::Stack ? children.back() : children.front();
        if (container->kind == Part::Tabs) {
            auto selected = selectedTab_.find(container->id);
            for (Part *c : children)
                if (selected != selectedTab_.end() && c->index + 1 == selected->second) pick = c;
            QTabBar *bar = container->bar;
            while (bar->count() > int(children.size())) bar->removeTab(bar->count() - 1);
            for (size_t i = 0; i < children.size(); i++) {
                QString title = QString::fromStdString(tabTitle(children[i]->id));
                if (int(i) == bar->count()) bar->addTab(title);
                bar->setTabText(int(i), title);
                bar->setTabData(int(i), children[i]->index);
                if (children[i] == pick) bar->setCurrentIndex(int(i));
            }
        }
        QWidget *now = container->stack->current();
        if (now == pick->widget) continue;
        int direction = 0;
        if (container->kind == Part::Stack && animate_ && now)
            direction = pick->index > now->property(INDEX).toUInt() ? 1 : -1;
        (direction > 0 ? pushes : pops) += direction != 0;
        container->stack->show(pick->widget, direction);
    }
    for (auto &f : frames_) // a window shows its root part
        if (!f->content->current() && !f->content->pages().empty()) f->content->show(f->content->pages().front(), 0);
}

// Each window's front screen, title and back button.
void Scene::updateFrames() {
    for (auto &f : frames_) {
        const Shown *front = nullptr;
        for (auto &s : screens_)
            if (windowOf(s.get()) == f->flowdWindow && frameRootOf(s.get()) == f->root && s->visible) front = s.get();
        if (!front) front = findShown(f->front); // covered by a modal: it stays in front here
        f->front = front ? front->id : 0;
        QString title = front && front->state.title ? QString::fromUtf8(front->state.title)
                        : f->root ? QString() : QString::fromStdString(f->display.empty() ? "flowd" : f->display);
        f->title->setText(title);
        if (f->root || f->flowdWindow) f->window->setWindowTitle(title);
        f->back->setVisible(front && stackIndexOf(front) > 0);
    }
}

void Scene::sync() {
    syncing_ = true;
    for (auto &p : parts_) p->wanted = false;
    for (size_t i = 1; i < frames_.size(); i++) frames_[i]->wanted = false;
    placeParts();
    dropUnwanted();
    chooseVisible();
    updateFrames();
    animate_ = false;
    syncing_ = false;
}

/* ---- The test channel's side ---------------------------------------------------------------- */

Part *Scene::frontCard(Shown **screen) {
    Shown *s = findShown(frontFrame()->front);
    if (screen) *screen = s;
    return s ? findPart(s->id) : nullptr;
}

const char *Scene::press(const std::string &label) {
    Part *front = frontCard(nullptr);
    if (!front) return "no screen in front";
    QPushButton *found = nullptr;
    int prefixed = 0;
    for (QPushButton *button : front->widget->findChildren<QPushButton *>(Qt::FindDirectChildrenOnly)) {
        std::string text = button->text().toStdString();
        if (text == label) {
            found = button;
            prefixed = 1;
            break;
        }
        if (text.compare(0, label.size(), label) == 0 && prefixed++ == 0) found = button; // as the walkthrough names them
    }
    if (!found) return "no such button on the screen in front";
    if (prefixed > 1) return "more than one button starts so";
    found->click();
    return nullptr;
}

const char *Scene::type(const std::string &text) {
    Part *front = frontCard(nullptr);
    if (!front) return "no screen in front";
    QLineEdit *edit = front->widget->findChild<QLineEdit *>(QString(), Qt::FindDirectChildrenOnly);
    if (!edit) return "the screen in front has no text field";
    edit->setText(QString::fromStdString(text));
    QKeyEvent enter(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier); // as Enter does
    QCoreApplication::sendEvent(edit, &enter);
    return nullptr;
}

const char *Scene::back() {
    Frame *f = frontFrame();
    if (f->back->isHidden()) return "no back button here";
    f->back->click();
    return nullptr;
}

const char *Scene::escape() { return escapeIn(frontFrame()); }

const char *Scene::closeWindowOfAFlow() {
    for (auto &f : frames_)
        if (f->flowdWindow && !f->root) {
            f->window->close(); // as the window's close button does
            return nullptr;
        }
    return "no window a flow opened";
}

const char *Scene::close() {
    Frame *f = frontFrame();
    if (!f->root) return "no modal window to close";
    f->window->close(); // as the window's close button does
    return nullptr;
}

const char *Scene::tab(int tab) {
    Shown *s;
    if (!frontCard(&s)) return "no screen in front";
    for (size_t j = s->path.size(); j-- > 1;) {
        if (s->path[j - 1].kind != FLOWD_NODE_TAB_BAR) continue;
        Part *bar = findPart(s->path[j - 1].id);
        for (int i = 0; bar && i < bar->bar->count(); i++)
            if (bar->bar->tabData(i).toInt() + 1 == tab) {
                bar->bar->setCurrentIndex(i); // as a click on the tab does
                return nullptr;
            }
        return "no such tab";
    }
    return "the screen in front is in no tab bar";
}

bool Scene::front(uint64_t *id, std::string *kind, std::string *title, std::string *body) {
    Shown *s;
    if (!frontCard(&s)) return false;
    *id = s->id;
    *kind = s->kind;
    *title = s->state.title ? s->state.title : "";
    *body = s->state.body ? s->state.body : "";
    return true;
}

void Scene::dumpPart(QWidget *widget, int depth, bool shownNow, std::string &out) {
    Part *p = findPart(widget->property(ID).toULongLong());
    if (!p) return;
    out += std::string(depth * 2, ' ') + (shownNow ? "* " : "");
    char line[64];
    if (p->kind == Part::Card) {
        Shown *s = findShown(p->id);
        snprintf(line, sizeof line, "screen %llu ", (unsigned long long)p->id);
        out += line + (s ? s->kind : "?") + " \"" + (s && s->state.title ? s->state.title : "") + "\"";
        for (QObject *c : p->widget->children())
            if (auto *button = qobject_cast<QPushButton *>(c)) out += " [" + button->text().toStdString() + "]";
            else if (auto *edit = qobject_cast<QLineEdit *>(c)) out += " <" + edit->text().toStdString() + ">";
        out += "\n";
        return;
    }
    snprintf(line, sizeof line, "%s %llu\n", p->kind == Part::Stack ? "stack" : "tabs", (unsigned long long)p->id);
    out += line;
    for (QWidget *c : p->stack->pages()) dumpPart(c, depth + 1, shownNow && c == p->stack->current(), out);
}

std::string Scene::dump() {
    std::string out;
    for (size_t i = 0; i < frames_.size(); i++) {
        Frame *f = frames_[i].get();
        char line[200];
        // A window a flow opened is `window display NAME ID`; a modal one in it adds `in ID` (flowd-gtk's).
        if (f->flowdWindow && !f->root) snprintf(line, sizeof line, "window display %s %llu", f->display.c_str(), (unsigned long long)f->flowdWindow);
        else snprintf(line, sizeof line, "window %s%llu", f->root ? "modal " : "", (unsigned long long)f->root);
        out += line;
        if (f->flowdWindow && f->root) out += " in " + std::to_string(f->flowdWindow);
        out += " \"" + f->title->text().toStdString();
        snprintf(line, sizeof line, "\" back=%s front=%llu\n", f->back->isHidden() ? "no" : "yes", (unsigned long long)f->front);
        out += line;
        for (QWidget *c : f->content->pages()) dumpPart(c, 1, f == frontOf(f->flowdWindow), out);
    }
    return out;
}

bool Scene::animating() {
    for (auto &p : parts_)
        if (p->stack && p->stack->sliding()) return true;
    return false;
}

const char *Scene::screenshot(const char *path) {
    QWidget *window = frontFrame()->window;
    if (window->width() <= 0 || window->height() <= 0) return "the window is not drawn yet";
    return window->grab().save(QString::fromUtf8(path), "PNG") ? nullptr : "the PNG could not be written";
}
