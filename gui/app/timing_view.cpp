#include "app/timing_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include "models/presentation.h"

namespace graphlens::gui {

GanttChart::GanttChart(SelectionState* state, QWidget* parent) : QWidget(parent), state_(state) {
    setMinimumHeight(90);
    connect(state_, &SelectionState::selectionChanged, this, qOverload<>(&QWidget::update));
}

void GanttChart::setRun(const std::optional<RunResult>& run) {
    timings_ = run ? run->per_dispatch : std::vector<DispatchTiming>{};
    span_ = 0;
    for (const DispatchTiming& t : timings_) span_ = std::max(span_, t.end_ns);
    update();
}

void GanttChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    if (timings_.empty() || span_ <= 0) {
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Per-dispatch timeline: run with \"profile each dispatch\" (serialises "
                      "the GPU)"));
        return;
    }
    p.drawText(QRect(4, 0, width() - 8, 16), Qt::AlignLeft,
               tr("Per-dispatch GPU timeline (serialised), %1 total").arg(formatDuration(span_)));
    const double w = width() - 8;
    const auto sel = state_->selectedNodeIndex();
    const Snapshot* s = state_->snapshot();
    const NodeId sel_id = sel && s ? s->graph->nodes[*sel].id : NodeId(-1);
    // Rows by op family so the lanes read like a profile.
    for (const DispatchTiming& t : timings_) {
        const double x0 = 4 + w * t.start_ns / span_, x1 = 4 + w * t.end_ns / span_;
        const QRectF r(x0, 22, std::max(1.0, x1 - x0), height() - 30);
        p.fillRect(r, opColor(t.op));
        if (t.node == sel_id) {
            p.setPen(QPen(Qt::black, 2));
            p.drawRect(r);
        }
    }
}

void GanttChart::mouseReleaseEvent(QMouseEvent* event) {
    if (timings_.empty() || span_ <= 0) return;
    const double ns = (event->position().x() - 4) / (width() - 8) * span_;
    for (const DispatchTiming& t : timings_)
        if (ns >= t.start_ns && ns <= t.end_ns) {
            state_->selectNode(t.node);
            QToolTip::showText(event->globalPosition().toPoint(),
                               QStringLiteral("%1: %2").arg(QString::fromStdString(t.label),
                                                            formatDuration(t.end_ns - t.start_ns)),
                               this);
            return;
        }
}

void SpreadChartView::setWhiskers(std::vector<Whisker> whiskers, int sets) {
    whiskers_ = std::move(whiskers);
    sets_ = std::max(1, sets);
    viewport()->update();
}

void SpreadChartView::drawForeground(QPainter* painter, const QRectF& rect) {
    QChartView::drawForeground(painter, rect);
    const QList<QAbstractSeries*> series = chart()->series();
    if (whiskers_.empty() || series.isEmpty()) return;
    auto* bars = qobject_cast<QBarSeries*>(series.front());
    if (!bars) return;
    // A category is one unit wide on the axis; its bars share barWidth() of it, side by side.
    const double bar = bars->barWidth() / sets_;
    painter->save();
    painter->setPen(QPen(QColor(0x20, 0x20, 0x20), 1.5));
    for (const Whisker& w : whiskers_) {
        if (w.high <= w.low) continue;
        const double x = w.category - bars->barWidth() / 2 + (w.set + 0.5) * bar;
        const QPointF lo = chart()->mapToScene(chart()->mapToPosition({x, w.low}, bars));
        const QPointF hi = chart()->mapToScene(chart()->mapToPosition({x, w.high}, bars));
        const double cap =
            std::max(2.0, 0.25 * std::abs(chart()->mapToPosition({x + bar, 0}, bars).x() -
                                          chart()->mapToPosition({x, 0}, bars).x()));
        painter->drawLine(lo, hi);
        painter->drawLine(lo - QPointF(cap, 0), lo + QPointF(cap, 0));
        painter->drawLine(hi - QPointF(cap, 0), hi + QPointF(cap, 0));
    }
    painter->restore();
}

namespace {

class LazyComboBox : public QComboBox {
  public:
    std::function<void()> before_popup;
    void showPopup() override {
        if (before_popup) before_popup();
        QComboBox::showPopup();
    }
};

}  // namespace

TimingView::TimingView(SelectionState* state, CoreWorker* worker, QWidget* parent)
    : QWidget(parent), state_(state), worker_(worker) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(createControls());
    layout->addWidget(createResults(), 1);
    connectWorker();
    connect(state_, &SelectionState::runChanged, this, &TimingView::refresh);
}

// The left column: modes, device, repeats, run and cancel, progress, the second run.
QLayout* TimingView::createControls() {
    modes_ = new QListWidget;
    for (const QString& m : CoreWorker::executionModes()) {
        auto* item = new QListWidgetItem(m, modes_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = m == QLatin1String("serial") || m == QLatin1String("elided") ||
                        m == QLatin1String("levels");
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    modes_->setMaximumWidth(170);
    // Listed when the picker is first opened, not at start-up: enumerating the devices (and
    // loading their drivers) in the worker would delay the first document behind it.
    auto* device = new LazyComboBox;
    device->before_popup = [this] {
        if (!devices_listed_) listDevices();
    };
    device_ = device;
    device_->addItem(tr("default device"));
    device_->setToolTip(
        tr("The Vulkan device to run on (default: GRAPHLENS_DEVICE or the best "
           "one; lavapipe when there is no GPU)"));
    device_->setMaximumWidth(230);
    connect(worker_, &CoreWorker::devicesReady, this, [this](const QStringList& names) {
        while (device_->count() > 1) device_->removeItem(1);
        device_->addItems(names);
    });
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 1000);
    repeats_->setValue(5);
    repeats_->setPrefix(tr("repeats: "));
    profile_ = new QCheckBox(tr("profile each dispatch"));
    run_button_ = new QPushButton(tr("Run"));
    cancel_button_ = new QPushButton(tr("Cancel"));
    cancel_button_->setEnabled(false);
    auto* second = new QPushButton(tr("Load second run…"));
    progress_ = new QProgressBar;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_ = new QLabel;
    status_->setWordWrap(true);
    connect(run_button_, &QPushButton::clicked, this, &TimingView::runSelected);
    connect(cancel_button_, &QPushButton::clicked, this, &TimingView::cancel);
    connect(second, &QPushButton::clicked, this, &TimingView::loadSecondRun);

    auto* controls = new QVBoxLayout;
    controls->addWidget(new QLabel(tr("Execution modes")));
    controls->addWidget(modes_, 1);
    controls->addWidget(device_);
    controls->addWidget(repeats_);
    controls->addWidget(profile_);
    controls->addWidget(run_button_);
    controls->addWidget(cancel_button_);
    controls->addWidget(progress_);
    controls->addWidget(second);
    controls->addWidget(status_);
    return controls;
}

// The right side: the chart over the table (with a failed output check's line under it)
// over the per-dispatch timeline.
QWidget* TimingView::createResults() {
    auto* chart = new QChart;
    chart->setTitle(tr("Median time per mode"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart_view_ = new SpreadChartView(chart);
    chart_view_->setRenderHint(QPainter::Antialiasing);
    chart_view_->setMinimumHeight(200);
    table_ = new QTableView;
    table_->setModel(&model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setDefaultSectionSize(20);
    gantt_ = new GanttChart(state_);
    mismatch_ = new QLabel;
    mismatch_->setWordWrap(true);
    mismatch_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    mismatch_->setStyleSheet(QStringLiteral("color: #D55E00"));
    select_writer_ = new QPushButton(tr("Select that dispatch"));
    connect(select_writer_, &QPushButton::clicked, this, &TimingView::selectMismatchWriter);
    auto* mismatch_row = new QWidget;
    auto* mismatch_layout = new QHBoxLayout(mismatch_row);
    mismatch_layout->setContentsMargins(0, 0, 0, 0);
    mismatch_layout->addWidget(mismatch_, 1);
    mismatch_layout->addWidget(select_writer_);
    mismatch_->hide();
    select_writer_->hide();

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(chart_view_);
    auto* table_and_mismatch = new QWidget;
    auto* table_layout = new QVBoxLayout(table_and_mismatch);
    table_layout->setContentsMargins(0, 0, 0, 0);
    table_layout->addWidget(table_, 1);
    table_layout->addWidget(mismatch_row);
    right->addWidget(table_and_mismatch);
    right->addWidget(gantt_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setStretchFactor(2, 1);
    right->setSizes({300, 200, 100});  // the table gets room for several modes
    return right;
}

void TimingView::connectWorker() {
    connect(worker_, &CoreWorker::runProgress, this, [this](int done, int total, QString what) {
        // What the cancelled run sent before it saw the cancel arrives after "Cancelled.".
        if (!running() && run_id_ != 0 && run_id_ == cancelled_run_) return;
        progress_->setRange(0, std::max(1, total));
        progress_->setValue(done);
        status_->setText(what);
    });
    connect(worker_, &CoreWorker::runFinished, this, &TimingView::showRun);
    // cancel() ended the run here already (the worker stops at its next check).
    connect(worker_, &CoreWorker::runCancelled, this, [] {});
    connect(worker_, &CoreWorker::secondRunReady, this,
            [this](const RunResult& run, QString source) {
                state_->setSecondRun(run, source);
                finishRun(tr("Second run: %1").arg(source));
            });
    connect(worker_, &CoreWorker::failed, this, [this](const QString& what, const QString&) {
        if (what.startsWith(tr("Running")) || what.startsWith(tr("Loading run")))
            finishRun(tr("Run failed (see the message)."));
    });
}

void TimingView::refresh() {
    model_.setRuns(state_->run(), state_->secondRun());
    gantt_->setRun(state_->run());
    rebuildChart();
    showMismatch();
}

QChart* TimingView::chart() const {
    return chart_view_->chart();
}

int TimingView::barCount() const {
    int n = 0;
    for (QAbstractSeries* s : chart()->series())
        if (auto* bars = qobject_cast<QBarSeries*>(s))
            for (QBarSet* set : bars->barSets()) n = std::max(n, int(set->count()));
    return n;
}

QStringList TimingView::checkedModes() const {
    QStringList out;
    for (int i = 0; i < modes_->count(); ++i)
        if (modes_->item(i)->checkState() == Qt::Checked) out << modes_->item(i)->text();
    return out;
}

void TimingView::setCheckedModes(const QStringList& modes) {
    for (int i = 0; i < modes_->count(); ++i)
        modes_->item(i)->setCheckState(modes.contains(modes_->item(i)->text()) ? Qt::Checked
                                                                               : Qt::Unchecked);
}

void TimingView::setRepeats(int repeats) {
    repeats_->setValue(repeats);
}

void TimingView::setProfileDispatches(bool on) {
    profile_->setChecked(on);
}

size_t TimingView::ganttDispatches() const {
    return gantt_->dispatches();
}

RunRequest TimingView::currentRequest() const {
    RunRequest r;
    r.modes = checkedModes();
    r.repeats = repeats_->value();
    r.warmup = warmup_runs_;
    r.profile = profile_->isChecked();
    if (device_->currentIndex() > 0)
        r.device = device_->currentText().section(QLatin1Char(':'), 0, 0);
    return r;
}

QStringList TimingView::devices() const {
    QStringList names;
    for (int i = 0; i < device_->count(); ++i) names << device_->itemText(i);
    return names;
}

bool TimingView::setDevice(const QString& selector) {
    for (int i = 1; i < device_->count(); ++i)
        if (device_->itemText(i).section(QLatin1Char(':'), 0, 0) == selector) {
            device_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void TimingView::listDevices() {
    devices_listed_ = true;
    worker_->listDevices();
}

void TimingView::runSelected() {
    if (!state_->document() || running()) return;
    const RunRequest r = currentRequest();
    if (r.modes.isEmpty()) {
        status_->setText(tr("Choose at least one mode."));
        return;
    }
    run_button_->setEnabled(false);
    cancel_button_->setEnabled(true);
    progress_->setRange(0, int(r.modes.size()));
    progress_->setValue(0);
    status_->setText(tr("Running %1 mode(s)…").arg(r.modes.size()));
    run_id_ = worker_->runModes(state_->document(), r);
}

void TimingView::cancel() {
    if (!running()) return;
    // Done here and now: the worker stops at the runner's next check (between executions,
    // modes and allocations), and what it still sends of this run is not shown. A run
    // started meanwhile waits for it.
    worker_->cancelRun();
    cancelled_run_ = run_id_;
    finishRun(tr("Cancelled."));
}

bool TimingView::running() const {
    return cancel_button_->isEnabled();
}

QString TimingView::statusText() const {
    return status_->text();
}

const std::vector<SpreadChartView::Whisker>& TimingView::whiskers() const {
    return chart_view_->whiskers();
}

void TimingView::loadSecondRun() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load a second run (a capture with timings, or one to run now)"), {},
        tr("GraphLens captures (*.json *.glcap)"));
    if (!path.isEmpty()) loadSecondRunFrom(path);
}

void TimingView::loadSecondRunFrom(const QString& path) {
    const RunRequest r = currentRequest();
    if (!r.modes.isEmpty()) {
        run_button_->setEnabled(false);
        cancel_button_->setEnabled(true);
    }
    status_->setText(tr("Loading %1 (a capture without timings runs the checked modes)…")
                         .arg(QFileInfo(path).fileName()));
    worker_->loadSecondRun(path, r);
}

void TimingView::finishRun(const QString& status) {
    run_button_->setEnabled(true);
    cancel_button_->setEnabled(false);
    status_->setText(status);
}

void TimingView::showRun(const RunResult& run, quint64 document_id, quint64 run_id) {
    // The worker sends nothing of a cancelled run but when the cancel came after its check.
    if (run_id == cancelled_run_) return;
    // A run of a document that has been replaced meanwhile belongs to no view any more.
    if (!state_->document() || state_->document()->id != document_id) {
        finishRun(tr("The run finished after another document was opened; not shown."));
        return;
    }
    finishRun(tr("%1 mode(s) on %2").arg(run.modes.size()).arg(QString::fromStdString(run.device)));
    state_->setRun(run);  // every view shows it: chart, node table GPU times, exports
}

void TimingView::showMismatch() {
    mismatch_writer_.reset();
    QString text;
    if (const std::optional<RunResult>& run = state_->run())
        for (const ModeResult& m : run->modes)
            if (m.mismatch) {
                text = describeMismatch(m);
                mismatch_writer_ = m.mismatch->last_writer;
                break;
            }
    mismatch_->setText(text);
    mismatch_->setVisible(!text.isEmpty());
    select_writer_->setVisible(mismatch_writer_.has_value());
}

QString TimingView::mismatchText() const {
    return mismatch_->text();
}

bool TimingView::canSelectMismatchWriter() const {
    return mismatch_writer_.has_value();
}

void TimingView::selectMismatchWriter() {
    if (mismatch_writer_) state_->selectNode(*mismatch_writer_);
}

namespace {

// The bars of a run (GPU, CPU encode and wall medians per mode, and the second run's GPU
// median beside them), their whiskers and the highest value, in `scale` units.
struct ChartBars {
    QBarSeries* series = new QBarSeries;
    QStringList categories;
    std::vector<SpreadChartView::Whisker> whiskers;
    double top = 0;
};

QBarSet* bar_set(const QString& label, QColor color) {
    auto* set = new QBarSet(label);
    set->setColor(color);
    return set;
}

ChartBars make_bars(const RunResult& run, double scale, const TimingModel& model, bool second) {
    ChartBars bars;
    QBarSet* sets[] = {bar_set(TimingView::tr("GPU"), QColor(0x00, 0x72, 0xB2)),
                       bar_set(TimingView::tr("CPU encode"), QColor(0xE6, 0x9F, 0x00)),
                       bar_set(TimingView::tr("wall"), QColor(0x99, 0x99, 0x99))};
    QBarSet* other =
        second ? bar_set(TimingView::tr("GPU (second run)"), QColor(0x56, 0xB4, 0xE9)) : nullptr;
    const auto add = [&](QBarSet* set, int k, int i, const TimingSummary& t) {
        *set << t.median / scale;
        bars.top = std::max(bars.top, t.max / scale);
        if (!t.samples.empty())
            bars.whiskers.push_back({k, i, t.min / scale, t.median / scale, t.max / scale});
    };
    for (int i = 0; i < int(run.modes.size()); ++i) {
        const ModeResult& m = run.modes[size_t(i)];
        bars.categories << QString::fromStdString(m.mode);
        add(sets[0], 0, i, m.gpu_ns);
        add(sets[1], 1, i, m.encode_ns);
        add(sets[2], 2, i, m.wall_ns);
        if (!other) continue;
        if (const ModeResult* o = model.secondMode(i))
            add(other, 3, i, o->gpu_ns);
        else
            *other << 0.0;
    }
    for (QBarSet* set : sets) bars.series->append(set);
    if (other) bars.series->append(other);
    return bars;
}

}  // namespace

void TimingView::rebuildChart() {
    clearChart();
    const std::optional<RunResult>& run = state_->run();
    if (!run || run->modes.empty()) {
        chart()->setTitle(tr("No timings yet: choose modes and press Run"));
        chart_view_->setWhiskers({}, 1);
        return;
    }
    const double scale = chooseUnit(*run);
    chart()->setTitle(tr("Median time per mode, min–max whiskers (%1) — %2")
                          .arg(unit_, QString::fromStdString(run->workload)));
    ChartBars bars = make_bars(*run, scale, model_, state_->secondRun().has_value());
    connect(bars.series, &QBarSeries::hovered, this, &TimingView::showBarTooltip);
    chart()->addSeries(bars.series);
    auto* x = new QBarCategoryAxis;
    x->append(bars.categories);
    auto* y = new QValueAxis;
    y->setRange(0, bars.top * 1.1 + 1e-9);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.4g"));  // under 5000 (chooseUnit): never an exponent
    y->setTitleText(unit_);
    chart()->addAxis(x, Qt::AlignBottom);
    chart()->addAxis(y, Qt::AlignLeft);
    bars.series->attachAxis(x);
    bars.series->attachAxis(y);
    chart_view_->setWhiskers(std::move(bars.whiskers), int(bars.series->count()));
}

void TimingView::clearChart() {
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis);
        delete axis;
    }
}

// The unit in which the slowest bar is under 5000, so the axis reads "12.5", not "12500" or
// "1.2e+04" (a decode step on a CPU device takes seconds); sets unit_, returns its ns.
double TimingView::chooseUnit(const RunResult& run) {
    double slowest = 0;
    for (const ModeResult& m : run.modes)
        slowest = std::max({slowest, m.gpu_ns.max, m.encode_ns.max, m.wall_ns.max});
    const double scale = slowest > 5e9 ? 1e9 : slowest > 5e6 ? 1e6 : 1e3;
    unit_ = scale == 1e9 ? tr("s") : scale == 1e6 ? tr("ms") : tr("µs");
    return scale;
}

void TimingView::showBarTooltip(bool on, int index, QBarSet* set) {
    const std::optional<RunResult>& r = state_->run();
    if (!on || !r || index >= int(r->modes.size())) return;
    const ModeResult& m = r->modes[size_t(index)];
    QToolTip::showText(QCursor::pos(),
                       tr("%1 / %2: %3 %4\nGPU spread %5 – %6 over %7 repeats")
                           .arg(QString::fromStdString(m.mode), set->label())
                           .arg(set->at(index), 0, 'f', 2)
                           .arg(unit_)
                           .arg(formatDuration(m.gpu_ns.min), formatDuration(m.gpu_ns.max))
                           .arg(m.gpu_ns.samples.size()));
}

}  // namespace graphlens::gui
