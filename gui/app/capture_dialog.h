#pragma once
// "Capture a workload": a model preset or a GGUF file, the phase, tokens and KV length, 8-bit or
// f32 x for decode mat-vecs, and the Vulkan device to record on.
#include <QDialog>

#include "app/core_worker.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace graphlens::gui {

class CaptureDialog : public QDialog {
    Q_OBJECT
  public:
    CaptureDialog(CoreWorker* worker, QWidget* parent = nullptr);
    WorkloadRequest request() const;
    /// Fills the fields from a request (the device by its selector, when it is listed).
    void setRequest(const WorkloadRequest& request);
    /// The device picker's entries: "default (...)", then "index: name (driver)" per device
    /// once the worker has listed them.
    QStringList devices() const;

  private:
    QComboBox* preset_;
    QLineEdit* gguf_;
    QComboBox* phase_;
    QSpinBox* tokens_;
    QSpinBox* kv_;
    QSpinBox* layers_;
    QComboBox* device_;
    QCheckBox* q8x_;
};

}  // namespace graphlens::gui
