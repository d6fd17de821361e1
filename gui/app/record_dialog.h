#pragma once
// "Record a program": any Vulkan compute program, run under the capture layer (the same
// record_program as `graphlens-cli record`): the command, its arguments and working
// directory, which work to capture, and the capture file to write.
#include <QDialog>

#include "graphlens/record/program_recorder.h"

class QComboBox;
class QLineEdit;
class QSpinBox;

namespace graphlens::gui {

class RecordDialog : public QDialog {
    Q_OBJECT
  public:
    explicit RecordDialog(QWidget* parent = nullptr);
    /// The request the fields describe. Throws std::invalid_argument naming the field that is
    /// wrong (no program, arguments with an unclosed quote).
    RecordRequest request() const;
    void setProgram(const QString& program, const QString& arguments);
    /// Picks a range: 0 first submission with a dispatch, 1 submissions, 2 dispatches, 3 label.
    void setRange(int kind, const QString& first = {}, const QString& second = {});
    void setOutput(const QString& path);

  private:
    void accept() override;
    void updateRangeFields();

    QLineEdit* program_;
    QLineEdit* arguments_;
    QLineEdit* directory_;
    QComboBox* range_;
    QLineEdit* first_;   ///< first submission, dispatches skipped, or the label
    QLineEdit* second_;  ///< last submission or dispatches to capture (empty: to the end)
    QLineEdit* output_;
};

}  // namespace graphlens::gui
