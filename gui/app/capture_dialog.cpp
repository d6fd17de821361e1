#include "app/capture_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace graphlens::gui {

CaptureDialog::CaptureDialog(CoreWorker* worker, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Capture a workload"));
    preset_ = new QComboBox;
    try {
        preset_->addItems(CoreWorker::presetNames());
    } catch (const std::exception&) {
        // No presets compiled in: the GGUF path still works.
    }
    gguf_ = new QLineEdit;
    gguf_->setPlaceholderText(tr("optional: a GGUF file instead of the preset"));
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("GGUF model"), {}, tr("GGUF (*.gguf)"));
        if (!p.isEmpty()) gguf_->setText(p);
    });
    auto* ggufRow = new QHBoxLayout;
    ggufRow->addWidget(gguf_, 1);
    ggufRow->addWidget(browse);
    phase_ = new QComboBox;
    phase_->addItems({QStringLiteral("decode"), QStringLiteral("prefill")});
    tokens_ = new QSpinBox;
    tokens_->setRange(1, 8192);
    tokens_->setValue(1);
    kv_ = new QSpinBox;
    kv_->setRange(0, 131072);
    kv_->setValue(512);
    layers_ = new QSpinBox;
    layers_->setRange(0, 256);
    layers_->setSpecialValueText(tr("all of the model's"));
    device_ = new QComboBox;
    device_->addItem(tr("default (GRAPHLENS_DEVICE or best)"));
    connect(worker, &CoreWorker::devicesReady, this,
            [this](const QStringList& names) { device_->addItems(names); });
    worker->listDevices();
    connect(phase_, &QComboBox::currentTextChanged, this,
            [this](const QString& p) { tokens_->setEnabled(p == QLatin1String("prefill")); });
    tokens_->setEnabled(false);
    q8x_ = new QCheckBox(tr("decode mat-vecs read 8-bit x (integer dot products)"));
    q8x_->setChecked(true);
    q8x_->setToolTip(
        tr("The norms before the Q4_0 / Q8_0 projections also write their output quantised to "
           "8 bits (quantize_q8), as llama.cpp does on devices with integer dot products. "
           "Off: f32 x everywhere (graphlens-cli capture --f32-x)."));

    auto* form = new QFormLayout;
    form->addRow(tr("Preset"), preset_);
    form->addRow(tr("GGUF"), ggufRow);
    form->addRow(tr("Phase"), phase_);
    form->addRow(tr("Tokens"), tokens_);
    form->addRow(tr("KV length"), kv_);
    form->addRow(tr("Layers"), layers_);
    form->addRow(tr("x of mat-vecs"), q8x_);
    form->addRow(tr("Device"), device_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Capture"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    setLayout(form);
}

WorkloadRequest CaptureDialog::request() const {
    WorkloadRequest r;
    r.preset = preset_->currentText();
    r.gguf_path = gguf_->text();
    r.phase = phase_->currentText();
    r.tokens = r.phase == QLatin1String("prefill") ? tokens_->value() : 1;
    r.kv_length = kv_->value();
    r.layers = layers_->value();
    r.q8_x = q8x_->isChecked();
    if (device_->currentIndex() > 0)
        r.device = device_->currentText().section(QLatin1Char(':'), 0, 0);
    return r;
}

}  // namespace graphlens::gui

namespace graphlens::gui {

void CaptureDialog::setRequest(const WorkloadRequest& r) {
    preset_->setCurrentText(r.preset);
    gguf_->setText(r.gguf_path);
    phase_->setCurrentText(r.phase);
    tokens_->setValue(r.tokens);
    kv_->setValue(r.kv_length);
    layers_->setValue(r.layers);
    q8x_->setChecked(r.q8_x);
    device_->setCurrentIndex(0);
    for (int i = 1; i < device_->count(); ++i)
        if (device_->itemText(i).section(QLatin1Char(':'), 0, 0) == r.device)
            device_->setCurrentIndex(i);
}

QStringList CaptureDialog::devices() const {
    QStringList names;
    for (int i = 0; i < device_->count(); ++i) names << device_->itemText(i);
    return names;
}

}  // namespace graphlens::gui
