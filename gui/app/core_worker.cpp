#include "app/core_worker.h"

#include <QFileInfo>
#include <exception>

#include "graphlens/capture_file.h"
#include "graphlens/device.h"
#include "graphlens/model_config.h"
#include "graphlens/pass_pipeline.h"
#include "graphlens/synthetic_graphs.h"

namespace graphlens::gui {

namespace {

Document document_from_graph(const ComputeGraph& graph, std::string source, std::string title) {
    PassOptions options;
    return make_document(PassPipeline::run(graph, options), std::move(source), std::move(title));
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

}  // namespace

Document build_sample_document() {
    // A llama-3.2-1b-shaped decode step (hidden 2048, ffn 8192, 32/8 heads) with 4 layers:
    // big enough to show every pattern, small enough to open instantly.
    TransformerGraphOptions o;
    o.layers = 4;
    o.context = 512;
    ComputeGraph graph = transformer_graph(o);
    graph.metadata["model"] = "sample (llama-3.2-1b shapes, 4 layers)";
    graph.metadata["phase"] = "decode kv=512";
    return document_from_graph(graph, "built-in sample", workload_title(graph, "sample"));
}

Document load_capture_document(const QString& path) {
    CaptureDocument capture = load_capture(path.toStdString());
    const std::string title =
        workload_title(capture.graph, QFileInfo(path).fileName().toStdString());
    Document doc = capture.snapshots.empty()
                       ? document_from_graph(capture.graph, path.toStdString(), title)
                       : make_document(std::move(capture.snapshots), path.toStdString(), title);
    doc.run = std::move(capture.run);
    return doc;
}

CoreWorker::CoreWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<DocumentPtr>();
    qRegisterMetaType<RunResult>();
    thread_ = std::thread([this] {
        while (auto request = queue_.pop()) request->work(request->generation);
    });
}

CoreWorker::~CoreWorker() {
    cancel_ = true;
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

void CoreWorker::openSample() {
    post("document", tr("Building the sample"), [this](uint64_t g) {
        auto doc = std::make_shared<const Document>(build_sample_document());
        if (!stale("document", g)) emit documentReady(doc);
    });
}

void CoreWorker::openCapture(const QString& path) {
    post("document", tr("Opening %1").arg(path), [this, path](uint64_t g) {
        auto doc = std::make_shared<const Document>(load_capture_document(path));
        if (!stale("document", g)) emit documentReady(doc);
    });
}

void CoreWorker::captureWorkload(const WorkloadRequest& request) {
    post("document", tr("Capturing %1").arg(request.preset), [this, request](uint64_t g) {
        const ModelPreset& preset = model_preset(request.preset.toStdString());
        const ModelConfig& c = preset.config;
        // Until the transformer builder records real dispatches, the capture is the synthetic
        // transformer graph with the preset's dimensions (no GPU involved); its metadata says so.
        TransformerGraphOptions o;
        o.layers = request.layers > 0 ? static_cast<size_t>(request.layers) : c.n_layer;
        o.hidden = c.n_embd;
        o.ffn = c.n_ff > 0 ? c.n_ff : c.n_ff_expert;
        o.heads = c.n_head;
        o.kv_heads = c.n_head_kv;
        o.context = request.kv_length;
        o.vocab = c.n_vocab;
        ComputeGraph graph = transformer_graph(o);
        graph.metadata["model"] = preset.name;
        graph.metadata["phase"] =
            request.phase.toStdString() + " kv=" + std::to_string(request.kv_length);
        graph.metadata["capture"] = "synthetic (transformer_graph with the preset's shapes)";
        auto doc = std::make_shared<const Document>(document_from_graph(
            graph, "capture of " + preset.name, workload_title(graph, preset.name)));
        if (!stale("document", g)) emit documentReady(doc);
    });
}

void CoreWorker::runModes(DocumentPtr document, const RunRequest& request) {
    cancel_ = false;
    post("run", tr("Running %1 modes").arg(request.modes.size()), [document, request](uint64_t) {
        (void)document;
        (void)request;
        throw std::runtime_error(
            "this build has no execution runner yet (core/exec): timings can only be loaded "
            "from capture files");
    });
}

void CoreWorker::loadSecondRun(const QString& path) {
    post("second-run", tr("Loading run %1").arg(path), [this, path](uint64_t g) {
        CaptureDocument capture = load_capture(path.toStdString());
        if (!capture.run)
            throw std::runtime_error(path.toStdString() + ": the capture holds no run timings");
        if (!stale("second-run", g)) emit secondRunReady(*capture.run, path);
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
    return {QStringLiteral("per-op-submit"), QStringLiteral("serial"), QStringLiteral("elided"),
            QStringLiteral("fused"),         QStringLiteral("greedy"), QStringLiteral("levels"),
            QStringLiteral("levels+split")};
}

QStringList CoreWorker::presetNames() {
    QStringList names;
    for (const ModelPreset& p : model_presets()) names << QString::fromStdString(p.name);
    return names;
}

}  // namespace graphlens::gui
