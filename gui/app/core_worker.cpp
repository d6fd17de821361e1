#include "app/core_worker.h"

#include "app/document_export.h"
#include "app/recorded_program_run.h"

#include <QFile>
#include <QFileInfo>
#include <exception>
#include <filesystem>
#include <fstream>
#include <utility>

#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/execution_mode.h"
#include "graphlens/exec/renderdoc_capture.h"
#include "graphlens/exec/replay.h"
#include "graphlens/exec/runner.h"
#include "graphlens/graph/pass_pipeline.h"
#include "graphlens/model/gguf_file.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/foreign_program.h"

namespace graphlens::gui {

namespace {

PassOptions gui_pass_options() {
    PassOptions options;
    options.recipes = ops::fusion_recipes();  // with the kernel library's fused kernels
    return options;
}

std::string workload_title(const ComputeGraph& graph, const std::string& fallback) {
    auto get = [&](const char* key) {
        auto it = graph.metadata.find(key);
        return it == graph.metadata.end() ? std::string() : it->second;
    };
    std::string title = get("model");
    if (!get("phase").empty()) title += (title.empty() ? "" : " ") + get("phase");
    return title.empty() ? fallback : title;
}

// Validation messages collected during an action become its error: a run that made the
// validation layer complain is not a result to show.
void check_validation(Device& device, const char* what) {
    if (device.validation_errors() == 0) return;
    std::string text = std::string(what) + " raised " + std::to_string(device.validation_errors()) +
                       " validation error(s)";
    for (const ValidationMessage& m : device.validation_messages())
        if (m.error) {
            text += ": " + m.id + ": " + m.text;
            break;
        }
    device.clear_validation_messages();
    throw std::runtime_error(text);
}

}  // namespace

Device& CoreWorker::device(const QString& selector) {
    if (!device_ || selector != device_selector_) {
        device_.reset();
        Device::Options o;
        if (!selector.isEmpty()) o.selector = selector.toStdString();
        device_ = std::make_unique<Device>(o);
        device_selector_ = selector;
        ++devices_created_;
    }
    return *device_;
}

namespace {

CaptureDocument load_sample_capture() {
    // One decode step of the llama-3.2-1b preset at KV length 512, recorded by the transformer
    // builder (resources/make-sample.sh) and embedded, so a first start needs no GPU.
    QFile file(QStringLiteral(":/graphlens/sample-llama-3.2-1b-decode.json"));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("the built-in sample is missing from the resources");
    const QByteArray bytes = file.readAll();
    return load_capture_from_string(std::string_view(bytes.constData(), size_t(bytes.size())));
}

}  // namespace

Document build_sample_document() {
    CaptureDocument capture = load_sample_capture();
    Document doc = make_document(run_passes_with_both_reorders(capture.graph, gui_pass_options()),
                                 "built-in sample", workload_title(capture.graph, "sample"));
    doc.run = std::move(capture.run);
    return doc;
}

Document load_capture_document(const QString& path) {
    CaptureDocument capture = load_capture(path.toStdString());
    const std::string title =
        workload_title(capture.graph, QFileInfo(path).fileName().toStdString());
    Document doc =
        capture.snapshots.empty()
            ? make_document(run_passes_with_both_reorders(capture.graph, gui_pass_options()),
                            path.toStdString(), title)
            : make_document(std::move(capture.snapshots), path.toStdString(), title);
    doc.run = std::move(capture.run);
    return doc;
}

CoreWorker::CoreWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<DocumentPtr>();
    qRegisterMetaType<RunResult>();
    qRegisterMetaType<NodeChanges>();
    thread_ = std::thread([this] {
        while (auto request = queue_.pop()) request->work(request->generation);
    });
}

CoreWorker::~CoreWorker() {
    cancelRun();
    queue_.close();
    thread_.join();
}

bool CoreWorker::stale(const std::string& tag, uint64_t generation) const {
    return queue_.latest(tag) != generation;
}

void CoreWorker::post(const std::string& tag, const QString& what,
                      std::function<void(uint64_t)> work) {
    queue_.push(tag, [this, tag, what, work = std::move(work)](uint64_t mine) {
        emit busyChanged(true, what);
        try {
            work(mine);
        } catch (const std::exception& e) {
            if (!stale(tag, mine)) emit failed(what, QString::fromUtf8(e.what()));
        }
        emit busyChanged(false, what);
    });
}

bool CoreWorker::publish(uint64_t generation, DocumentPtr document, bool first) {
    if (stale("document", generation)) return false;
    // Checked again when it reaches the UI thread: an open requested meanwhile (while this
    // version was on its way) supersedes it too, so the window never shows it.
    QMetaObject::invokeMethod(
        this,
        [this, generation, document = std::move(document), first]() mutable {
            if (stale("document", generation)) return;
            if (first)
                emit documentReady(std::move(document));
            else
                emit documentUpdated(std::move(document));
        },
        Qt::QueuedConnection);
    return true;
}

void CoreWorker::openGraph(uint64_t generation, CaptureDocument capture, std::string source,
                           std::string title) {
    if (!capture.snapshots.empty()) {
        // A capture with its own stages: show them as stored, all at once.
        Document doc =
            make_document(std::move(capture.snapshots), std::move(source), std::move(title));
        doc.run = std::move(capture.run);
        publish(generation, std::make_shared<const Document>(std::move(doc)), true);
        return;
    }
    bool first = true;
    build_document(std::move(capture.graph), gui_pass_options(), std::move(source),
                   std::move(title), std::move(capture.run), [&](DocumentPtr doc) {
                       return publish(generation, std::move(doc), std::exchange(first, false));
                   });
}

void CoreWorker::openSample() {
    post("document", tr("Building the sample"), [this](uint64_t g) {
        CaptureDocument capture = load_sample_capture();
        std::string title = workload_title(capture.graph, "sample");
        openGraph(g, std::move(capture), "built-in sample", std::move(title));
    });
}

void CoreWorker::openCapture(const QString& path) {
    post("document", tr("Opening %1").arg(path), [this, path](uint64_t g) {
        CaptureDocument capture = load_capture(path.toStdString());
        std::string title = workload_title(capture.graph, QFileInfo(path).fileName().toStdString());
        openGraph(g, std::move(capture), path.toStdString(), std::move(title));
    });
}

void CoreWorker::compareStages(DocumentPtr document, int left, int right) {
    post("compare", tr("Comparing stages"), [this, document, left, right](uint64_t g) {
        auto l =
            std::make_shared<const std::vector<NodeChange>>(compare_stages(*document, right, left));
        if (stale("compare", g)) return;
        auto r =
            std::make_shared<const std::vector<NodeChange>>(compare_stages(*document, left, right));
        if (!stale("compare", g)) emit comparisonReady(document, left, right, l, r);
    });
}

namespace {

// The last lines a recorded program printed, for a failure's message.
std::string tail_of_log(const std::filesystem::path& log, size_t lines) {
    std::ifstream in(log);
    std::vector<std::string> last;
    for (std::string line; std::getline(in, line);) {
        last.push_back(line);
        if (last.size() > lines) last.erase(last.begin());
    }
    std::string out;
    for (const auto& l : last) out += "\n" + l;
    return out;
}

}  // namespace

void CoreWorker::recordProgram(const RecordRequest& request) {
    const QString program = QString::fromStdString(request.command.front());
    post("document", tr("Recording %1").arg(program), [this, request](uint64_t g) {
        RecordResult r = record_program(request);
        if (!r.capture)
            throw std::runtime_error(
                "no capture was written: " + r.why_not +
                (r.program_failure.empty() ? "" : "; the program " + r.program_failure) +
                tail_of_log(request.program_log, 8));
        const std::string path = request.output.string();
        std::string title = workload_title(
            r.capture->graph, QFileInfo(QString::fromStdString(path)).fileName().toStdString());
        openGraph(g, std::move(*r.capture), path, std::move(title));
    });
}

void CoreWorker::captureWorkload(const WorkloadRequest& request) {
    const QString name = request.gguf_path.isEmpty() ? request.preset : request.gguf_path;
    post("document", tr("Capturing %1").arg(name), [this, request](uint64_t g) {
        CaptureRequest capture;
        std::string source;
        if (!request.gguf_path.isEmpty()) {
            const GgufFile file = GgufFile::open(request.gguf_path.toStdString());
            capture.config = model_config_from_gguf(file);
            source = request.gguf_path.toStdString();
        } else {
            capture.config = model_preset(request.preset.toStdString()).config;
            source = "preset " + request.preset.toStdString();
        }
        if (request.layers > 0 && static_cast<uint32_t>(request.layers) < capture.config.n_layer)
            capture.config.n_layer = static_cast<uint32_t>(request.layers);
        capture.phase = request.phase == QLatin1String("prefill") ? Phase::prefill : Phase::decode;
        capture.tokens = capture.phase == Phase::decode ? 1 : static_cast<uint32_t>(request.tokens);
        capture.kv_length = static_cast<uint32_t>(request.kv_length);
        capture.q8_activations = request.q8_x;
        Device& dev = device(request.device);
        DeviceMemory memory(dev);
        ComputeGraph graph = capture_transformer(
            memory, capture, [this](size_t done, size_t total, std::string_view what) {
                emit runProgress(int(done), int(total),
                                 QString::fromUtf8(what.data(), qsizetype(what.size())));
            });
        check_validation(dev, "recording the workload");
        graph.metadata["source"] = source;
        graph.metadata["device"] = dev.facts().name;
        CaptureDocument doc;
        std::string title = workload_title(graph, capture.config.name);
        doc.graph = std::move(graph);
        openGraph(g, std::move(doc), source, std::move(title));
    });
}

void CoreWorker::cancelRun() {
    if (run_cancel_) *run_cancel_ = true;
}

CoreWorker::CancelFlag CoreWorker::newRunFlag() {
    run_cancel_ = std::make_shared<std::atomic<bool>>(false);
    return run_cancel_;
}

RunResult CoreWorker::runGraph(const ComputeGraph& graph, const RunRequest& request,
                               const std::string& workload, const std::atomic<bool>& cancelled,
                               const std::string& capture_path) {
    if (is_foreign_graph(graph)) {
        gui::RecordedProgramRun run;
        run.capture_path = capture_path;
        for (const QString& m : request.modes) run.modes.push_back(m.toStdString());
        run.warmup = request.warmup;
        run.repeats = request.repeats;
        run.device_selector = request.device.toStdString();
        run.workload = workload;
        run.cancelled = [&cancelled] { return cancelled.load(); };
        run.progress = [this](std::string_view line) {
            emit runProgress(0, 0, QString::fromUtf8(line.data(), qsizetype(line.size())));
        };
        RunResult result = gui::run_recorded_program(graph, run);
        if (cancelled) throw RunCancelled();
        emit runProgress(1, 1, tr("done"));
        return result;
    }
    RunnerOptions options;
    options.fusion_recipes = ops::fusion_recipes();
    options.modes.clear();
    for (const QString& m : request.modes)
        options.modes.push_back(parse_execution_modes(m.toStdString()).front());
    options.warmup = static_cast<uint32_t>(request.warmup);
    options.repeats = static_cast<uint32_t>(request.repeats);
    options.profile_dispatches = request.profile;
    options.adjust_plan = request.adjust_plan;
    options.workload = workload;
    int step = 0;
    const int total = int(request.modes.size()) * (request.repeats + request.warmup + 1) + 1;
    // Asked before every execution of the graph: Cancel takes effect after the one running.
    options.cancelled = [&cancelled] { return cancelled.load(); };
    options.progress = [this, &step, total, &cancelled](std::string_view line) {
        if (cancelled) return;  // the view said "Cancelled." already
        emit runProgress(std::min(++step, total - 1), total,
                         QString::fromUtf8(line.data(), qsizetype(line.size())));
    };
    RunResult result;
    try {
        Device& dev = device(request.device);
        dev.clear_validation_messages();
        result = replay_capture(dev, graph, options);
        // A cancel after the last execution still voids the run.
        if (cancelled) throw RunCancelled();
        check_validation(dev, "the run");
    } catch (const DeviceLost& e) {
        // A lost device cannot be used again (the Runner stops at it): drop it, the next run
        // creates it afresh (the memory and runner that used it are gone by now), and say so.
        device_.reset();
        throw std::runtime_error(std::string("the Vulkan device was lost: ") + e.what() +
                                 ". The document stays open; the next run creates the device "
                                 "again.");
    }
    emit runProgress(total, total, tr("done"));
    return result;
}

quint64 CoreWorker::runModes(DocumentPtr document, const RunRequest& request) {
    const quint64 id = ++runs_started_;
    post("run", tr("Running %1 mode(s)").arg(request.modes.size()),
         [this, document, request, id, cancelled = newRunFlag()](uint64_t g) {
             if (!document || !document->ready(0)) throw std::runtime_error("no document is open");
             try {
                 RunResult result = runGraph(document->snapshot(0).graph, request, document->title,
                                             *cancelled, document->source);
                 if (!stale("run", g) && !*cancelled) emit runFinished(result, document->id, id);
             } catch (const RunCancelled&) {
                 emit runCancelled();  // what the user asked for: no error
             }
         });
    return id;
}

void CoreWorker::loadSecondRun(const QString& path, const RunRequest& request) {
    post("second-run", tr("Loading run %1").arg(path),
         [this, path, request, cancelled = newRunFlag()](uint64_t g) {
             CaptureDocument capture = load_capture(path.toStdString());
             if (!capture.run) {
                 // A capture without timings: time it now with the modes of the first run.
                 if (request.modes.isEmpty())
                     throw std::runtime_error(path.toStdString() +
                                              ": the capture holds no run timings and no modes "
                                              "were chosen to run it with");
                 const std::string title =
                     workload_title(capture.graph, QFileInfo(path).fileName().toStdString());
                 try {
                     capture.run =
                         runGraph(capture.graph, request, title, *cancelled, path.toStdString());
                 } catch (const RunCancelled&) {
                     emit runCancelled();
                     return;
                 }
             }
             if (!stale("second-run", g) && !*cancelled) emit secondRunReady(*capture.run, path);
         });
}

void CoreWorker::exportDocument(DocumentPtr document, std::optional<RunResult> run, int stage,
                                const QString& format, const QString& path) {
    // One tag per file: a second export to another file does not replace a waiting one.
    post("export:" + path.toStdString(), tr("Exporting %1").arg(path),
         [this, document, run = std::move(run), stage, format, path](uint64_t) {
             write_document(*document, run, stage, format, path);
             emit exportFinished(path);
         });
}

void CoreWorker::captureInRenderDoc(DocumentPtr document, const QString& mode,
                                    const QString& device_selector) {
    post("renderdoc", tr("Capturing one execution of %1 in RenderDoc").arg(mode),
         [this, document, mode, device_selector](uint64_t) {
             const ComputeGraph& graph = *document->snapshot(0).graph;
             if (is_foreign_graph(graph))
                 throw std::invalid_argument(
                     "a recorded program's graph is captured by starting GraphLens from "
                     "qrenderdoc");
             const auto chosen = execution_mode_from_name(mode.toStdString());
             if (!chosen) throw std::invalid_argument("unknown mode " + mode.toStdString());
             if (!renderdoc_) {
                 std::string why;
                 renderdoc_ = RenderDoc::load(why);
                 if (!renderdoc_) throw std::runtime_error(why);
             }
             Device::Options o;
             if (!device_selector.isEmpty()) o.selector = device_selector.toStdString();
             Device captured_on(o);
             RunnerOptions options;
             options.fusion_recipes = ops::fusion_recipes();
             const std::string path =
                 capture_one_execution(*renderdoc_, captured_on, graph, *chosen, options);
             emit renderDocCaptured(QString::fromStdString(path));
         });
}

void CoreWorker::listDevices() {
    post("devices", tr("Listing Vulkan devices"), [this](uint64_t) {
        QStringList names;
        for (const DeviceFacts& d : list_devices())
            names << QStringLiteral("%1: %2 (%3)")
                         .arg(d.index)
                         .arg(QString::fromStdString(d.name))
                         .arg(QString::fromStdString(d.driver_name));
        emit devicesReady(names);
    });
}

QStringList CoreWorker::executionModes() {
    QStringList names;  // the core's list, so a new mode shows up here too
    for (ExecutionMode m : all_execution_modes())
        names << QString::fromStdString(std::string(execution_mode_name(m)));
    return names;
}

QStringList CoreWorker::presetNames() {
    QStringList names;
    for (const ModelPreset& p : model_presets()) names << QString::fromStdString(p.name);
    return names;
}

}  // namespace graphlens::gui
