#pragma once
// The one thread that owns the core: it loads captures, builds the sample, runs the pass
// pipeline and analyses each stage, lists devices and runs execution modes. The UI posts
// requests (RequestQueue: a newer request with the same tag replaces a waiting older one)
// and gets plain structs back through queued signals; results of superseded requests are
// dropped, so a slow load never overwrites a newer document. Nothing here blocks the UI.
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>

#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/runner.h"
#include "graphlens/results/run_result.h"
#include "models/document.h"
#include "models/request_queue.h"
#include "models/stage_compare_model.h"

namespace graphlens {
class Device;
class RenderDoc;
}  // namespace graphlens

#include "graphlens/record/program_recorder.h"

namespace graphlens::gui {

/// What to capture: a model preset (or a GGUF file's metadata) in a phase.
struct WorkloadRequest {
    QString preset;                            ///< preset name; ignored when gguf_path is set
    QString gguf_path;                         ///< a GGUF whose metadata describes the model
    QString phase = QStringLiteral("decode");  ///< "decode" or "prefill"
    int tokens = 1;                            ///< prefill tokens (decode: 1)
    int kv_length = 512;                       ///< tokens already in the KV cache
    int layers = 0;                            ///< 0 = the model's own layer count
    QString device;                            ///< device selector (index or name)
    /// Decode mat-vecs over Q4_0 / Q8_0 read 8-bit x (CaptureRequest::q8_activations); off is
    /// `graphlens-cli capture --f32-x`.
    bool q8_x = true;
};

struct RunRequest {
    QStringList modes;
    int warmup = 1;
    int repeats = 5;
    bool profile = false;  ///< per-dispatch timestamps (serialises the GPU)
    QString device;
    /// Alters each mode's plan before it runs (RunnerOptions::adjust_plan), for tests that
    /// need a run to go wrong (a lost device, a missing barrier).
    std::function<void(ModePlan&)> adjust_plan;
};

class CoreWorker : public QObject {
    Q_OBJECT
  public:
    explicit CoreWorker(QObject* parent = nullptr);
    ~CoreWorker() override;

    /// The built-in sample: a small llama-style decode graph through the pass pipeline.
    void openSample();
    void openCapture(const QString& path);
    /// Compares two stages of a document (both ready) for the pass stepper: `left` marked
    /// against `right` and `right` against `left`. A newer request replaces a waiting one.
    void compareStages(DocumentPtr document, int left, int right);
    void captureWorkload(const WorkloadRequest& request);
    /// Runs a program under the capture layer (record_program) and opens what it captured; a
    /// program that wrote no capture is a failure naming why, with the end of its output.
    void recordProgram(const graphlens::RecordRequest& request);
    /// Runs modes on the document's captured graph; progress and the result come back.
    /// Returns the run's id, which runFinished carries.
    quint64 runModes(DocumentPtr document, const RunRequest& request);
    /// Cancels the run last started (runModes or loadSecondRun): it stops at the runner's
    /// next check (RunnerOptions::cancelled) and says no more, but for runCancelled once it
    /// has stopped. Each run has its own flag, so a run started after this one is not
    /// cancelled, and cannot un-cancel this one.
    void cancelRun();
    /// A second run to compare against: the timings a capture file holds, or, for a capture
    /// without timings, a run of `request`'s modes on its graph (nothing when it has none).
    void loadSecondRun(const QString& path, const RunRequest& request = {});
    void listDevices();
    /// Captures one execution of `mode` of the document's captured graph with RenderDoc's
    /// in-app API (graphlens/exec/renderdoc_capture.h), on a device of its own created after
    /// RenderDoc is loaded (its layer hooks only instances created after that); the worker's
    /// own device is not touched. renderDocCaptured names the file; failed says why not
    /// (RenderDoc absent, a recorded program's graph).
    void captureInRenderDoc(DocumentPtr document, const QString& mode, const QString& device);
    /// Writes the document in an export format (write_document) off the UI thread.
    void exportDocument(DocumentPtr document, std::optional<RunResult> run, int stage,
                        const QString& format, const QString& path);
    /// The execution modes the runner knows, in order.
    static QStringList executionModes();
    static QStringList presetNames();
    /// Vulkan devices created so far (a lost device is dropped and created again on next use).
    int devicesCreated() const { return devices_created_; }

  signals:
    /// The first version of a newly opened document (at least its captured stage is ready).
    /// Both document signals are emitted on the UI thread, and only while no newer open (or
    /// capture) has been requested.
    void documentReady(graphlens::gui::DocumentPtr document);
    /// A newer version of the document last sent by documentReady: one more stage is ready.
    void documentUpdated(graphlens::gui::DocumentPtr document);
    void comparisonReady(graphlens::gui::DocumentPtr document, int left, int right,
                         graphlens::gui::NodeChanges left_changes,
                         graphlens::gui::NodeChanges right_changes);
    void secondRunReady(graphlens::RunResult run, QString source);
    void runProgress(int done, int total, QString what);
    /// A run (runModes' id) of the document with this id (Document::id) finished; never sent
    /// for a cancelled run.
    void runFinished(graphlens::RunResult run, quint64 document_id, quint64 run_id);
    /// A run stopped because cancelRun() asked it to (not an error).
    void runCancelled();
    void devicesReady(QStringList devices);
    void exportFinished(QString path);
    void renderDocCaptured(QString path);
    /// Something went wrong; `what` is the action ("Opening x.json"), `message` the reason.
    void failed(QString what, QString message);
    void busyChanged(bool busy, QString what);

  private:
    /// Queues work under a tag; the work gets its generation to check for staleness.
    void post(const std::string& tag, const QString& what, std::function<void(uint64_t)> work);
    bool stale(const std::string& tag, uint64_t generation) const;
    /// Sends a version of the document being opened unless a newer open superseded it
    /// (then returns false, so the caller stops computing stages nobody will see).
    bool publish(uint64_t generation, DocumentPtr document, bool first);
    /// Opens a loaded or recorded graph: its stored stages, or the pass pipeline's stages
    /// published one by one as they are ready.
    void openGraph(uint64_t generation, CaptureDocument capture, std::string source,
                   std::string title);
    /// The worker's device for a selector ("" = GRAPHLENS_DEVICE or the best one); created on
    /// first use and kept, so runs do not pay for instance and pipeline creation again.
    /// Only ever touched on the worker thread.
    Device& device(const QString& selector);
    /// Runs the request's modes on a graph on the worker's device, with progress and cancel.
    /// A lost device or validation errors throw, with the device dropped when it was lost.
    /// A recorded program's graph runs its own kernels (recorded_program_run.h) on a device of
    /// its own; `capture_path` is where its capture (and buffer contents) were loaded from.
    RunResult runGraph(const ComputeGraph& graph, const RunRequest& request,
                       const std::string& workload, const std::atomic<bool>& cancelled,
                       const std::string& capture_path = {});
    using CancelFlag = std::shared_ptr<std::atomic<bool>>;
    /// A fresh flag for a run about to be queued; the one cancelRun() sets.
    CancelFlag newRunFlag();

    RequestQueue queue_;
    CancelFlag run_cancel_;  ///< the last run's flag; set and replaced on the UI thread only
    quint64 runs_started_ = 0;
    std::unique_ptr<Device> device_;
    std::unique_ptr<RenderDoc> renderdoc_;  ///< loaded on the first RenderDoc capture
    std::atomic<int> devices_created_{0};
    QString device_selector_;
    std::thread thread_;
};

/// The sample document, built synchronously (the worker calls this; tests may too).
Document build_sample_document();
/// Loads a capture file into a document: its stored snapshots, or the pass pipeline run on
/// its graph when it has none. Throws with a message naming the file and the problem.
Document load_capture_document(const QString& path);

}  // namespace graphlens::gui

Q_DECLARE_METATYPE(graphlens::RunResult)
Q_DECLARE_METATYPE(graphlens::gui::NodeChanges)
