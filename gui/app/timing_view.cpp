#include "app/timing_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFileDialog>
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
    const NodeId sel_id = sel && s ? s->graph.nodes[*sel].id : NodeId(-1);
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

TimingView::TimingView(SelectionState* state, CoreWorker* worker, QWidget* parent)
    : QWidget(parent), state_(state), worker_(worker) {
    modes_ = new QListWidget;
    for (const QString& m : CoreWorker::executionModes()) {
        auto* item = new QListWidgetItem(m, modes_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = m == QLatin1String("serial") || m == QLatin1String("elided") ||
                        m == QLatin1String("levels");
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    modes_->setMaximumWidth(170);
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
    controls->addWidget(repeats_);
    controls->addWidget(profile_);
    controls->addWidget(run_button_);
    controls->addWidget(cancel_button_);
    controls->addWidget(progress_);
    controls->addWidget(second);
    controls->addWidget(status_);

    auto* chart = new QChart;
    chart->setTitle(tr("Median time per mode"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart_view_ = new QChartView(chart);
    chart_view_->setRenderHint(QPainter::Antialiasing);
    chart_view_->setMinimumHeight(200);
    table_ = new QTableView;
    table_->setModel(&model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setDefaultSectionSize(20);
    gantt_ = new GanttChart(state_);

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(chart_view_);
    right->addWidget(table_);
    right->addWidget(gantt_);
    right->setStretchFactor(0, 3);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(right, 1);

    connect(worker_, &CoreWorker::runProgress, this, [this](int done, int total, QString what) {
        progress_->setRange(0, std::max(1, total));
        progress_->setValue(done);
        status_->setText(what);
    });
    connect(worker_, &CoreWorker::runFinished, this, &TimingView::showRun);
    connect(worker_, &CoreWorker::secondRunReady, this, &TimingView::showSecondRun);
    connect(worker_, &CoreWorker::failed, this, [this](const QString& what, const QString&) {
        if (what.startsWith(tr("Running"))) {
            run_button_->setEnabled(true);
            cancel_button_->setEnabled(false);
            status_->setText(tr("Run failed (see the message)."));
        }
    });
    connect(state_, &SelectionState::documentChanged, this, [this] {
        const DocumentPtr& doc = state_->document();
        run_ = doc ? doc->run : std::nullopt;
        second_ = doc ? doc->second_run : std::nullopt;
        model_.setRuns(run_, second_);
        gantt_->setRun(run_);
        rebuildChart();
    });
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

void TimingView::runSelected() {
    if (!state_->document()) return;
    RunRequest r;
    r.modes = checkedModes();
    r.repeats = repeats_->value();
    r.profile = profile_->isChecked();
    if (r.modes.isEmpty()) {
        status_->setText(tr("Choose at least one mode."));
        return;
    }
    run_button_->setEnabled(false);
    cancel_button_->setEnabled(true);
    progress_->setRange(0, int(r.modes.size()));
    progress_->setValue(0);
    status_->setText(tr("Running %1 mode(s)…").arg(r.modes.size()));
    worker_->runModes(state_->document(), r);
}

void TimingView::cancel() {
    worker_->cancelRun();
    status_->setText(tr("Cancelling…"));
}

void TimingView::loadSecondRun() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load a second run"), {},
                                                      tr("GraphLens captures (*.json *.glcap)"));
    if (!path.isEmpty()) worker_->loadSecondRun(path);
}

void TimingView::showRun(const RunResult& run) {
    run_button_->setEnabled(true);
    cancel_button_->setEnabled(false);
    run_ = run;
    status_->setText(
        tr("%1 mode(s) on %2").arg(run.modes.size()).arg(QString::fromStdString(run.device)));
    model_.setRuns(run_, second_);
    gantt_->setRun(run_);
    rebuildChart();
}

void TimingView::showSecondRun(const RunResult& run, const QString& source) {
    second_ = run;
    status_->setText(tr("Second run: %1").arg(source));
    model_.setRuns(run_, second_);
    rebuildChart();
}

void TimingView::rebuildChart() {
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* axis : c->axes()) {
        c->removeAxis(axis);
        delete axis;
    }
    if (!run_ || run_->modes.empty()) {
        c->setTitle(tr("No timings yet: choose modes and press Run"));
        return;
    }
    c->setTitle(tr("Median time per mode (µs) — %1").arg(QString::fromStdString(run_->workload)));
    auto* series = new QBarSeries;
    auto* gpu = new QBarSet(tr("GPU"));
    auto* encode = new QBarSet(tr("CPU encode"));
    auto* wall = new QBarSet(tr("wall"));
    gpu->setColor(QColor(0x00, 0x72, 0xB2));
    encode->setColor(QColor(0xE6, 0x9F, 0x00));
    wall->setColor(QColor(0x99, 0x99, 0x99));
    QBarSet* other = nullptr;
    if (second_) {
        other = new QBarSet(tr("GPU (second run)"));
        other->setColor(QColor(0x56, 0xB4, 0xE9));
    }
    QStringList categories;
    double top = 0;
    for (int i = 0; i < int(run_->modes.size()); ++i) {
        const ModeResult& m = run_->modes[size_t(i)];
        categories << QString::fromStdString(m.mode);
        *gpu << m.gpu_ns.median / 1e3;
        *encode << m.encode_ns.median / 1e3;
        *wall << m.wall_ns.median / 1e3;
        top = std::max({top, m.gpu_ns.max / 1e3, m.encode_ns.median / 1e3, m.wall_ns.median / 1e3});
        if (other) {
            const ModeResult* o = model_.secondMode(i);
            *other << (o ? o->gpu_ns.median / 1e3 : 0.0);
            if (o) top = std::max(top, o->gpu_ns.median / 1e3);
        }
    }
    series->append(gpu);
    series->append(encode);
    series->append(wall);
    if (other) series->append(other);
    connect(series, &QBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
        if (!on || !run_ || index >= int(run_->modes.size())) return;
        const ModeResult& m = run_->modes[size_t(index)];
        QToolTip::showText(QCursor::pos(),
                           tr("%1 / %2: %3 µs\nGPU spread %4 – %5 over %6 repeats")
                               .arg(QString::fromStdString(m.mode), set->label())
                               .arg(set->at(index), 0, 'f', 1)
                               .arg(formatDuration(m.gpu_ns.min), formatDuration(m.gpu_ns.max))
                               .arg(m.gpu_ns.samples.size()));
    });
    c->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setRange(0, top * 1.1 + 1e-9);
    y->setTitleText(tr("µs"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

}  // namespace graphlens::gui
