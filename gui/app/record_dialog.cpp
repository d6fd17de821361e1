#include "app/record_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <stdexcept>

namespace graphlens::gui {

namespace {

QHBoxLayout* with_browse(QLineEdit* field, QWidget* parent, std::function<QString()> pick) {
    auto* row = new QHBoxLayout;
    auto* browse = new QPushButton(QObject::tr("Browse…"));
    QObject::connect(browse, &QPushButton::clicked, parent, [field, pick] {
        const QString p = pick();
        if (!p.isEmpty()) field->setText(p);
    });
    row->addWidget(field, 1);
    row->addWidget(browse);
    return row;
}

uint64_t count_of(const QLineEdit* field, const char* what) {
    bool ok = false;
    const qulonglong v = field->text().trimmed().toULongLong(&ok);
    if (!ok) throw std::invalid_argument(std::string(what) + ": a non-negative whole number");
    return v;
}

}  // namespace

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Record a program"));
    program_ = new QLineEdit;
    program_->setPlaceholderText(tr("a Vulkan compute program, e.g. ./my_fft_app"));
    arguments_ = new QLineEdit;
    arguments_->setPlaceholderText(tr("its arguments, as in a shell: --size 4096 \"a b\""));
    directory_ = new QLineEdit(QDir::currentPath());
    range_ = new QComboBox;
    range_->addItems({tr("the first submission with a dispatch"), tr("queue submissions"),
                      tr("dispatches"), tr("a debug label region")});
    first_ = new QLineEdit;
    second_ = new QLineEdit;
    output_ = new QLineEdit(QDir::temp().filePath(QStringLiteral("graphlens-recording.json")));
    auto* form = new QFormLayout;
    form->addRow(tr("Program"), with_browse(program_, this, [this] {
                     return QFileDialog::getOpenFileName(this, tr("Program to record"));
                 }));
    form->addRow(tr("Arguments"), arguments_);
    form->addRow(tr("Working directory"), with_browse(directory_, this, [this] {
                     return QFileDialog::getExistingDirectory(this, tr("Working directory"));
                 }));
    form->addRow(tr("Capture"), range_);
    form->addRow(tr("From"), first_);
    form->addRow(tr("To / count"), second_);
    form->addRow(tr("Capture file"), with_browse(output_, this, [this] {
                     return QFileDialog::getSaveFileName(this, tr("Capture file"), {},
                                                         tr("GraphLens capture (*.json)"));
                 }));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Record"));
    connect(buttons, &QDialogButtonBox::accepted, this, &RecordDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(range_, &QComboBox::currentIndexChanged, this, [this] { updateRangeFields(); });
    form->addRow(buttons);
    setLayout(form);
    updateRangeFields();
}

void RecordDialog::updateRangeFields() {
    const int kind = range_->currentIndex();
    first_->setEnabled(kind != 0);
    second_->setEnabled(kind == 1 || kind == 2);
    const QString hints[][2] = {
        {{}, {}},
        {tr("first submission (0-based)"), tr("last submission")},
        {tr("dispatches to skip"), tr("dispatches to capture (empty: all)")},
        {tr("the label's name, e.g. decode"), {}}};
    first_->setPlaceholderText(hints[kind][0]);
    second_->setPlaceholderText(hints[kind][1]);
}

RecordRequest RecordDialog::request() const {
    RecordRequest r;
    const QString program = program_->text().trimmed();
    if (program.isEmpty()) throw std::invalid_argument("Program: name the program to record");
    r.command.push_back(program.toStdString());
    const QString args = arguments_->text();
    if (args.count(QLatin1Char('"')) % 2 != 0)
        throw std::invalid_argument("Arguments: a quote is not closed");
    for (const QString& a : QProcess::splitCommand(args)) r.command.push_back(a.toStdString());
    r.working_directory = directory_->text().trimmed().toStdString();
    r.output = output_->text().trimmed().toStdString();
    if (r.output.empty()) throw std::invalid_argument("Capture file: name the file to write");
    r.program_log = r.output.string() + ".log";
    switch (range_->currentIndex()) {
        case 1:
            r.range.kind = layer::RangeKind::submits;
            r.range.first = count_of(first_, "From");
            r.range.count_or_last =
                second_->text().trimmed().isEmpty() ? r.range.first : count_of(second_, "To");
            if (r.range.count_or_last < r.range.first)
                throw std::invalid_argument("To: the last submission comes before the first");
            break;
        case 2:
            r.range.kind = layer::RangeKind::dispatches;
            r.range.first = count_of(first_, "From");
            r.range.count_or_last =
                second_->text().trimmed().isEmpty() ? UINT64_MAX : count_of(second_, "To / count");
            break;
        case 3:
            r.range.kind = layer::RangeKind::label;
            r.range.label = first_->text().trimmed().toStdString();
            if (r.range.label.empty()) throw std::invalid_argument("From: name the label");
            break;
        default:
            break;
    }
    return r;
}

void RecordDialog::setProgram(const QString& program, const QString& arguments) {
    program_->setText(program);
    arguments_->setText(arguments);
}

void RecordDialog::setRange(int kind, const QString& first, const QString& second) {
    range_->setCurrentIndex(kind);
    first_->setText(first);
    second_->setText(second);
}

void RecordDialog::setOutput(const QString& path) {
    output_->setText(path);
}

// Refuses to close on a field that would make a wrong request, and says which.
void RecordDialog::accept() {
    try {
        (void)request();
    } catch (const std::invalid_argument& e) {
        QMessageBox::warning(this, windowTitle(), QString::fromStdString(e.what()));
        return;
    }
    QDialog::accept();
}

}  // namespace graphlens::gui
