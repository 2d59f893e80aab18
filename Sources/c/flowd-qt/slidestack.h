/* A stack of pages showing one; a change of page slides when asked: the new page in from the right
 * (a push) or from the left (a pop), over 200 ms. */
#ifndef FLOWD_QT_SLIDESTACK_H
#define FLOWD_QT_SLIDESTACK_H

#include <QEasingCurve>
#include <QLabel>
#include <QResizeEvent>
#include <QVariantAnimation>
#include <QWidget>
#include <algorithm>
#include <vector>

class SlideStack : public QWidget {
public:
    explicit SlideStack(QWidget *parent = nullptr) : QWidget(parent) {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
        animation_.setDuration(200);
        animation_.setEasingCurve(QEasingCurve::OutCubic);
        animation_.setStartValue(0.0);
        animation_.setEndValue(1.0);
        QObject::connect(&animation_, &QVariantAnimation::valueChanged, this, [this](const QVariant &v) { lay(v.toDouble()); });
        QObject::connect(&animation_, &QVariantAnimation::finished, this, [this] { settle(); });
    }
    const std::vector<QWidget *> &pages() const { return pages_; }
    QWidget *current() const { return current_; }
    bool sliding() const { return animation_.state() == QAbstractAnimation::Running; }

    void add(QWidget *page) {
        page->setParent(this);
        page->hide();
        pages_.push_back(page);
    }
    // A page removed in front may leave an image of itself in front, which the next show() slides
    // out (a pop: the page is gone from the model before its slide is drawn).
    void remove(QWidget *page, bool leaveImage = false) {
        if (page == current_) {
            current_ = nullptr;
            if (leaveImage && page->isVisible()) {
                ghost_ = new QLabel(this);
                ghost_->setPixmap(page->grab());
                for (const QByteArray &name : page->dynamicPropertyNames()) ghost_->setProperty(name, page->property(name));
                ghost_->setGeometry(page->geometry());
                ghost_->show();
                current_ = ghost_;
            }
        }
        if (page == leaving_) leaving_ = nullptr;
        pages_.erase(std::remove(pages_.begin(), pages_.end(), page), pages_.end());
        page->hide();
        page->setParent(nullptr);
    }
    // direction: 1 slides the page in from the right, -1 from the left, 0 shows it at once.
    void show(QWidget *page, int direction) {
        if (sliding()) {
            animation_.stop();
            settle();
        }
        leaving_ = direction ? current_ : nullptr;
        if (!leaving_ && current_) current_->hide();
        if (!leaving_ && ghost_ && current_ == ghost_) dropGhost();
        current_ = page;
        direction_ = direction;
        page->show();
        page->raise();
        if (leaving_) animation_.start();
        else lay(1);
    }

protected:
    void resizeEvent(QResizeEvent *event) override {
        QWidget::resizeEvent(event);
        lay(sliding() ? animation_.currentValue().toDouble() : 1);
    }
    QSize sizeHint() const override { return current_ ? current_->sizeHint() : QSize(); }
    QSize minimumSizeHint() const override { return current_ ? current_->minimumSizeHint() : QSize(); }

private:
    void lay(double progress) {
        int shift = int(width() * (1 - progress)) * direction_;
        if (current_) current_->setGeometry(shift, 0, width(), height());
        if (leaving_) leaving_->setGeometry(shift - width() * direction_, 0, width(), height());
    }
    void settle() {
        if (leaving_) leaving_->hide();
        if (ghost_ && leaving_ == ghost_) dropGhost();
        leaving_ = nullptr;
        lay(1);
    }
    void dropGhost() {
        ghost_->deleteLater();
        ghost_ = nullptr;
    }
    std::vector<QWidget *> pages_;
    QWidget *current_ = nullptr, *leaving_ = nullptr;
    QLabel *ghost_ = nullptr;
    int direction_ = 0;
    QVariantAnimation animation_;
};

#endif
