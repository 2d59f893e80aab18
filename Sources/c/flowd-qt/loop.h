/* libflowd-screen in Qt's event loop (docs/native.md, "Any event loop"): a QSocketNotifier for
 * reading and one for writing on flowd_screen_fd(), new ones when the descriptor changes (a
 * reconnect), and a single-shot QTimer for flowd_screen_timeout_ms(); re-armed after every dispatch
 * and every send. */
#ifndef FLOWD_QT_LOOP_H
#define FLOWD_QT_LOOP_H

#include <flowd/screen.h>
#include <poll.h>

#include <QSocketNotifier>
#include <QTimer>
#include <functional>

class FlowdLoop : public QObject {
public:
    // `dispatched` runs after each dispatch (the widgets then match the screens); `ended` once the
    // host has ended (flowd_screen_end says why).
    FlowdLoop(flowd_screen_host *host, std::function<void()> dispatched, std::function<void()> ended)
        : host_(host), dispatched_(std::move(dispatched)), ended_(std::move(ended)) {
        timer_.setSingleShot(true);
        connect(&timer_, &QTimer::timeout, this, &FlowdLoop::dispatch);
        rearm();
    }
    void rearm() { // also after every flowd_screen_send_*()
        int fd = flowd_screen_fd(host_);
        if (fd != watched_) {
            // The library closed the old descriptor: its notifiers are disabled before they go, or Qt
            // warns "QSocketNotifier: Invalid socket" when it next polls them.
            for (QSocketNotifier *old : {readable_, writable_})
                if (old) {
                    old->setEnabled(false);
                    old->deleteLater();
                }
            readable_ = writable_ = nullptr;
            if (fd >= 0) {
                readable_ = new QSocketNotifier(fd, QSocketNotifier::Read, this);
                writable_ = new QSocketNotifier(fd, QSocketNotifier::Write, this);
                connect(readable_, &QSocketNotifier::activated, this, &FlowdLoop::dispatch);
                connect(writable_, &QSocketNotifier::activated, this, &FlowdLoop::dispatch);
            }
            watched_ = fd;
        }
        if (writable_) writable_->setEnabled(flowd_screen_events(host_) & POLLOUT);
        int timeout = flowd_screen_timeout_ms(host_);
        if (timeout >= 0) timer_.start(timeout);
        else timer_.stop();
    }
    void dispatch() {
        if (done_) return;
        done_ = flowd_screen_dispatch(host_);
        if (dispatched_) dispatched_();
        if (done_) {
            timer_.stop();
            for (QSocketNotifier *notifier : {readable_, writable_})
                if (notifier) notifier->setEnabled(false);
            ended_();
            return;
        }
        rearm();
    }

private:
    flowd_screen_host *host_;
    std::function<void()> dispatched_, ended_;
    QSocketNotifier *readable_ = nullptr, *writable_ = nullptr;
    QTimer timer_;
    int watched_ = -1;
    bool done_ = false;
};

#endif
