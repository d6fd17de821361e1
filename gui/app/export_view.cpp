#include "app/export_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <stdexcept>

#include "app/document_export.h"
#include "app/view_export.h"

namespace graphlens::gui {

namespace {

struct FormatInfo {
    QString key, label, filter;
};

const QList<FormatInfo>& formats() {
    static const QList<FormatInfo> list = {
        {QStringLiteral("capture"), QObject::tr("Capture file (JSON, all stages + run)"),
         QObject::tr("GraphLens capture (*.json)")},
        {QStringLiteral("html"), QObject::tr("Report: HTML"), QObject::tr("HTML (*.html)")},
        {QStringLiteral("md"), QObject::tr("Report: Markdown"), QObject::tr("Markdown (*.md)")},
        {QStringLiteral("csv"), QObject::tr("Report: CSV"), QObject::tr("CSV (*.csv)")},
        {QStringLiteral("json"), QObject::tr("Report: JSON"), QObject::tr("JSON (*.json)")},
        {QStringLiteral("dot"), QObject::tr("Dependency graph: DOT (current stage)"),
         QObject::tr("Graphviz (*.dot *.gv)")},
        {QStringLiteral("trace"), QObject::tr("Run: Chrome trace"),
         QObject::tr("Chrome trace (*.json)")},
    };
    return list;
}

}  // namespace

QStringList ExportView::documentFormats() {
    QStringList keys;
    for (const FormatInfo& f : formats()) keys << f.key;
    return keys;
}

ExportView::ExportView(SelectionState* state, CoreWorker* worker, QWidget* parent)
    : QWidget(parent), state_(state), worker_(worker) {
    connect(worker_, &CoreWorker::exportFinished, this, [this](const QString& path) {
        status_->setText(tr("Wrote %1").arg(path));
        emit exported(path);
    });
    connect(worker_, &CoreWorker::failed, this, [this](const QString& what, const QString&) {
        if (what.startsWith(tr("Exporting")))
            status_->setText(what + tr(" failed (see the message)."));
    });
    auto* docBox = new QGroupBox(tr("Document"));
    auto* grid = new QGridLayout(docBox);
    int row = 0;
    for (const FormatInfo& f : formats()) {
        auto* button = new QPushButton(f.label);
        button->setObjectName(QStringLiteral("export-") + f.key);
        const QString key = f.key;
        connect(button, &QPushButton::clicked, this, [this, key] { askAndExportDocument(key); });
        grid->addWidget(button, row / 2, row % 2);
        ++row;
    }
    auto* viewBox = new QGroupBox(tr("View as image"));
    auto* vl = new QGridLayout(viewBox);
    view_combo_ = new QComboBox;
    auto* png = new QPushButton(tr("Save PNG…"));
    auto* svg = new QPushButton(tr("Save SVG…"));
    connect(png, &QPushButton::clicked, this, [this] { askAndExportView(QStringLiteral("png")); });
    connect(svg, &QPushButton::clicked, this, [this] { askAndExportView(QStringLiteral("svg")); });
    vl->addWidget(view_combo_, 0, 0, 1, 2);
    vl->addWidget(png, 1, 0);
    vl->addWidget(svg, 1, 1);
    status_ = new QLabel;
    status_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(docBox);
    layout->addWidget(viewBox);
    layout->addWidget(status_);
    layout->addStretch(1);
}

void ExportView::addView(const QString& name, QWidget* view) {
    views_.insert(name, view);
    view_combo_->addItem(name);
}

void ExportView::exportDocument(const QString& format, const QString& path) const {
    const DocumentPtr& doc = state_->document();
    if (!doc) throw std::runtime_error("no document is open");
    write_document(*doc, state_->run(), state_->stage(), format, path);
}

void ExportView::startExport(const QString& format, const QString& path) {
    const DocumentPtr& doc = state_->document();
    if (!doc) {
        emit failed(tr("Exporting %1").arg(path), tr("no document is open"));
        return;
    }
    status_->setText(tr("Writing %1…").arg(path));
    worker_->exportDocument(doc, state_->run(), state_->stage(), format, path);
}

void ExportView::exportView(const QString& name, const QString& path) const {
    QWidget* w = views_.value(name);
    if (!w) throw std::runtime_error("no view named '" + name.toStdString() + "'");
    exportWidget(w, path, name);
}

void ExportView::askAndExportDocument(const QString& format) {
    QString filter;
    for (const FormatInfo& f : formats())
        if (f.key == format) filter = f.filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), {}, filter);
    if (path.isEmpty()) return;
    startExport(format, path);
}

void ExportView::askAndExportView(const QString& suffix) {
    const QString name = view_combo_->currentText();
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save %1 as %2").arg(name, suffix.toUpper()), name + QLatin1Char('.') + suffix,
        suffix == QLatin1String("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
    if (path.isEmpty()) return;
    try {
        exportView(name, path);
        status_->setText(tr("Wrote %1").arg(path));
        emit exported(path);
    } catch (const std::exception& e) {
        emit failed(tr("Saving %1").arg(path), QString::fromUtf8(e.what()));
    }
}

}  // namespace graphlens::gui
