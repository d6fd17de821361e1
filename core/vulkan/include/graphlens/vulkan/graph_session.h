#pragma once
// GraphSession: one forward pass worth of dispatches, either recorded straight into a
// command buffer (GraphExecutor::begin) or captured as a ComputeGraph and replayed at
// finish (GraphExecutor::begin_recorded). Op code is identical in both modes.
//
// Barriers. With BarrierPolicy::automatic (the default) every dispatch first calls
// barrier_between() with the byte ranges its kernel's reflected bindings read and write,
// so a barrier is emitted exactly when the dispatch has a RAW/WAR/WAW hazard with the
// current concurrency group (ranges include view offsets; read-read never conflicts).
// BarrierPolicy::manual leaves that to the caller (the seed's semantics: call
// barrier_between(reads, writes) before a dispatch, or barrier()). every_dispatch puts a
// barrier between any two dispatches.
//
// Dropping a session without finish()/commit() is safe: nothing is submitted, the command
// buffer is reset when the recorder is reused.
//
// ---------------------------------------------------------------------------------------
// Adding an op (the pattern every op family follows; see workloads/llm/ops/src/elementwise_basic.cpp):
//  1. Write the kernel workloads/llm/shaders/<kernel>.comp (storage buffers in set 0, `readonly` on
//     inputs, `writeonly` on pure outputs: the access modes are reflected from these, and
//     hazards and fusion follow from them; a push-constant block for sizes).
//  2. Declare the op method below, in the block of its family, taking TensorViews (the
//     caller allocates outputs) and a label defaulting to the op name.
//  3. Define it in workloads/llm/ops/src/<family>.cpp: check dtypes/shapes with the helpers of
//     graphlens/vulkan/op_support.h (throw std::invalid_argument naming op, operand and label),
//     pack the push constants with push_constant_bytes(), compute workgroups with
//     grid_1d()/grid_2d(), and call dispatch(DispatchDesc{...}) with the OpKind.
//  Never emit barriers inside an op: the session's policy decides.
// ---------------------------------------------------------------------------------------
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graphlens/vulkan/command_encoder.h"
#include "graphlens/vulkan/op_params.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/conflict_tracker.h"
#include "graphlens/graph/tensor_view.h"

namespace graphlens {

class GraphExecutor;
class Device;
class DeviceMemory;
struct ExecuteOptions;
struct ExecutionTiming;
struct OptimizedFinish;  // graphlens/vulkan/graph_executor.h
struct PassOptions;      // graphlens/graph/pass_pipeline.h

enum class BarrierPolicy : uint8_t {
    automatic,       ///< barrier_between() with each dispatch's reflected ranges
    manual,          ///< caller calls barrier_between()/barrier() (seed semantics)
    every_dispatch,  ///< a barrier between every two dispatches
};

struct SessionOptions {
    BarrierPolicy barriers = BarrierPolicy::automatic;
    bool timestamps = true;  ///< timestamp queries around the command buffer
};

/// How many equal k ranges a mat-mat of a `weight`-typed [k, n] weight and m columns of x
/// should be split into (GraphSession::matmul_split_k): 4, or 2, for rows of at least 2048
/// elements whose 128 x 128 tile grid has fewer than 128 workgroups (the 1b model's ffn_down
/// and attn_output: 64 tiles each at 512 tokens, against an H100's 132 SMs), where the ranges
/// are whole tiles and blocks; else 1. A constant rule, as the tile choice: a graph records the
/// same kernels on every device.
uint32_t matmul_k_splits(DType weight, uint32_t n, uint32_t k, uint32_t m);

/// What finish_with_timing() measured, in nanoseconds.
struct SessionTiming {
    uint64_t encode_ns = 0;  ///< CPU: direct mode begin()..finish(); recorded mode the replay
    uint64_t gpu_ns = 0;     ///< GPU: timestamp queries (0 when the device has none)
    uint64_t wall_ns = 0;    ///< encode + submit + wait for the fence
    size_t dispatches = 0;
    size_t barriers = 0;
};

/// Work submitted by GraphSession::commit(); waits on destruction if not waited on.
class PendingWork {
  public:
    PendingWork() = default;
    PendingWork(PendingWork&&) noexcept;
    PendingWork& operator=(PendingWork&&) noexcept;
    ~PendingWork();
    void wait();
    bool valid() const { return recorder_ != nullptr; }

  private:
    friend class GraphSession;
    PendingWork(GraphExecutor* exec, std::unique_ptr<CommandRecorder> rec);
    GraphExecutor* executor_ = nullptr;
    std::unique_ptr<CommandRecorder> recorder_;
};

class GraphSession {
  public:
    GraphSession(GraphSession&&) noexcept;
    GraphSession& operator=(GraphSession&&) = delete;
    ~GraphSession();

    bool is_recording() const { return recording_; }
    bool is_finished() const { return finished_; }
    Device& device() const;
    DeviceMemory& memory() const;

    /// Validates and records one dispatch (after the barrier the policy asks for).
    void dispatch(const DispatchDesc& desc);
    /// Unconditional barrier; starts a new concurrency group.
    void barrier();
    /// Emits a barrier when a dispatch with these ranges would conflict with the current
    /// group, then adds the ranges to the group. Returns true when a barrier was emitted.
    bool barrier_between(std::span<const TensorView> reads, std::span<const TensorView> writes);
    bool barrier_between(std::span<const ByteRange> reads, std::span<const ByteRange> writes);
    /// Adds a dispatch's ranges to the current group without checking.
    void track_dispatch(std::span<const TensorView> reads, std::span<const TensorView> writes);

    size_t dispatch_count() const { return encoder_->dispatch_count(); }
    size_t barrier_count() const { return encoder_->barrier_count(); }
    /// [k] = number of concurrency groups with k dispatches (the open group included).
    std::vector<size_t> group_size_histogram() const;
    /// CPU ns spent in conflict checks (diagnostic).
    uint64_t tracker_ns() const { return tracker_ns_; }

    /// The graph captured so far (recording mode; throws in direct mode).
    const ComputeGraph& graph() const;
    /// Ends a recording session without running it and hands over the graph (with the
    /// allocation table of the session's DeviceMemory).
    ComputeGraph finish_recording();

    /// Submits and waits. Recording mode: replays the graph as recorded (encode_sequential).
    void finish();
    /// Submits without waiting.
    PendingWork commit();
    /// finish() plus timing.
    SessionTiming finish_with_timing();
    /// The seam for optimising finishes: recording mode only; `transform` turns the captured
    /// graph into the one to run (fuse, reorder, plan barriers ...), executed with
    /// `options` (e.g. recompute barriers, dual buffer). Returns the timing of the run.
    ExecutionTiming finish_transformed(const std::function<ComputeGraph(ComputeGraph)>& transform,
                                       const ExecuteOptions& options);

    /// The seed's finish_optimized: recording mode only; runs the PassPipeline (fuse with
    /// passes.recipes, reorder, plan barriers, split; every dispatch must state its ranges)
    /// on the captured graph and runs the final stage in two command buffers, the first
    /// submitted early. Pass ops::fusion_recipes() (graphlens/ops/fusion_recipes.h) as
    /// passes.recipes to apply fusions. Returns the stages and the timing.
    OptimizedFinish finish_optimized(const PassOptions& passes);

    // ==================================== ops =============================================
    // Each family is defined in workloads/llm/ops/src/<family>.cpp (see the pattern above).

    // --- elementwise_basic.cpp (f32) ---
    /// out[i] = a[i] + b[i % b.elements]; b broadcasts when a multiple of it fits a.
    void add(const TensorView& a, const TensorView& b, const TensorView& out,
             std::string label = "add");
    /// out[i] = a[i] * b[i % b.elements]; b broadcasts (e.g. a norm weight over rows).
    void mul(const TensorView& a, const TensorView& b, const TensorView& out,
             std::string label = "mul");

    // --- elementwise.cpp (f16 and multi-input) ---
    /// f16: out[i] = a[i] + b[i % b.elements] (f32 accumulation, f16 storage).
    void add_f16(const TensorView& a, const TensorView& b, const TensorView& out,
                 std::string label = "add");
    /// f16: out[i] = a[i] * b[i % b.elements].
    void mul_f16(const TensorView& a, const TensorView& b, const TensorView& out,
                 std::string label = "mul");
    /// f32: out = inputs[0] + inputs[1] + ... (2..9 inputs of out's element count), summed
    /// in order: the fused form of an add chain.
    void multi_add(std::span<const TensorView> inputs, const TensorView& out,
                   std::string label = "multi_add");
    /// f32: out = x * s.
    void scale(const TensorView& x, const TensorView& out, float s, std::string label = "scale");

    // --- norm.cpp ---
    /// RMS norm of each row (row length = x.shape[0], rows = elements / row length):
    /// out = x / sqrt(mean(x^2) + eps) * weight. x and out f32, or both f16; weight f32
    /// [row length]; f32 accumulation.
    void rms_norm(const TensorView& x, const TensorView& weight, const TensorView& out, float eps,
                  std::string label = "rms_norm");
    /// f32 RMS norm without weight: out = x / sqrt(mean(x^2) + eps).
    void rms_norm_no_scale_f32(const TensorView& x, const TensorView& out, float eps,
                               std::string label = "rms_norm_no_scale");
    /// Fused rms_norm→mul, f32: out = norm(x) [* weight] * m. m is one row (broadcast) or
    /// x's shape; weight optional (absent when the norm had none).
    void rms_norm_mul(const TensorView& x, std::optional<TensorView> weight, const TensorView& m,
                      const TensorView& out, float eps, std::string label = "rms_norm_mul");
    /// Fused rms_norm→mul→add, f32: out = norm(x) [* weight] * m + a (m and a: one row or
    /// x's shape).
    void rms_norm_mul_add(const TensorView& x, std::optional<TensorView> weight,
                          const TensorView& m, const TensorView& a, const TensorView& out,
                          float eps, std::string label = "rms_norm_mul_add");

    // --- activation.cpp (f32) ---
    /// out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    void gelu(const TensorView& x, const TensorView& out, std::string label = "gelu");
    /// out = x / (1 + e^-x).
    void silu(const TensorView& x, const TensorView& out, std::string label = "silu");
    /// Fused gelu→mul: out = gelu(x) * g (g of x's shape).
    void gelu_mul(const TensorView& x, const TensorView& g, const TensorView& out,
                  std::string label = "gelu_mul");
    /// Fused silu→mul: out = silu(x) * g (g of x's shape).
    void silu_mul(const TensorView& x, const TensorView& g, const TensorView& out,
                  std::string label = "silu_mul");
    /// out = tanh(x / cap) * cap.
    void softcap(const TensorView& x, const TensorView& out, float cap,
                 std::string label = "softcap");

    // --- softmax.cpp (f32) ---
    /// Softmax of each row (row length x.shape[0]) of x * scale [+ mask]; mask f32 holds
    /// mask_rows rows of the same length, row r of x uses mask row r % mask_rows (-inf
    /// entries exclude a column; a fully masked row gives zeros).
    void softmax(const TensorView& x, const TensorView& out, float scale = 1.0f,
                 std::optional<TensorView> mask = std::nullopt, std::string label = "softmax");

    // --- rope.cpp (f32) ---
    /// Rotary embedding with adjacent pairs (2j, 2j+1); positions i32 [seq_len];
    /// freq_factors (optional) f32 [rope_dim / 2] divide the frequencies. x is f32; out is
    /// f32 or f16 (rounded as copy() rounds: a rope writing straight into an f16 KV cache).
    void rope(const TensorView& x, const TensorView& positions, const TensorView& out,
              const RopeParams& params, std::optional<TensorView> freq_factors = std::nullopt,
              std::string label = "rope");
    /// NeoX rotary embedding: pairs (j, j + rope_dim/2); otherwise as rope().
    void rope_neox_f32(const TensorView& x, const TensorView& positions, const TensorView& out,
                       const RopeParams& params,
                       std::optional<TensorView> freq_factors = std::nullopt,
                       std::string label = "rope_neox");

    // --- matmul.cpp ---
    /// out[c][r] = sum_k weight[r][k] x[c][k]: weight f32 or f16 [k, n], x f32 [k, m],
    /// out f32 [n, m]. Mat-vec kernel for m <= 8, tiled mat-mat kernel above.
    void matmul(const TensorView& weight, const TensorView& x, const TensorView& out,
                std::string label = "matmul");
    /// MLX affine-quantised weights (see AffineQuantParams); x f32 [k, m], out f32 [n, m].
    void quantized_matmul(const TensorView& x, const TensorView& weight, const TensorView& scales,
                          const TensorView& biases, const TensorView& out,
                          const AffineQuantParams& params, std::string label = "quantized_matmul");
    /// ggml block weights (q4_0, q8_0, q4_k, q6_k) [k, n] exactly as in GGUF; x f32 [k, m];
    /// out f32 [n, m]. Mat-vec kernel for m <= 8, tiled mat-mat kernel above.
    void quantized_matmul_ggml(const TensorView& x, const TensorView& weight, const TensorView& out,
                               std::string label = "quantized_matmul_ggml");
    /// Split-k mat-mat (m > 8 columns): `partials` f32 [n, m * splits] gets the products over
    /// `splits` equal, consecutive k ranges, range z as columns z m .. z m + m - 1; the
    /// product is their sum, which the caller records (adds: the fusion pass makes a chain of
    /// them one multi_add). Each range must be whole 32-element tiles and whole weight blocks.
    /// For shapes whose tile grid alone would leave a large GPU idle (matmul_k_splits).
    void matmul_split_k(const TensorView& weight, const TensorView& x, const TensorView& partials,
                        uint32_t splits, std::string label = "matmul");
    /// The same for ggml block weights.
    void quantized_matmul_ggml_split_k(const TensorView& x, const TensorView& weight,
                                       const TensorView& partials, uint32_t splits,
                                       std::string label = "quantized_matmul_ggml");
    /// Expert-routed mat-vec for MoE (see MatmulIdParams): out[t][s] = W[ids[t][s]] x[t][s].
    void quantized_matmul_id_ggml(const TensorView& x, const TensorView& weight,
                                  const TensorView& ids, const TensorView& out,
                                  const MatmulIdParams& params,
                                  std::string label = "quantized_matmul_id_ggml");
    /// MoE routing: per token the k (<= 8) largest of n_experts (<= 256) logits f32
    /// [n_experts, n_tokens] → ids i32 [k, n_tokens] and their softmax probabilities f32
    /// [k, n_tokens] (over all experts; rescaled to sum 1 when normalize).
    void topk(const TensorView& logits, const TensorView& ids, const TensorView& weights,
              uint32_t k, bool normalize, std::string label = "topk");

    // --- attention.cpp ---
    /// Scaled dot-product attention, f32 (see SdpaParams).
    void sdpa(const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
              const SdpaParams& params, std::string label = "sdpa");
    /// Decode attention split over the KV length (see FlashAttnVecParams), one dispatch:
    /// each split workgroup writes its partial (o, m, l) to `tmp` (f32,
    /// flash_attn_vec_tmp_elements), then the last workgroup of a head (or head batch) to
    /// finish, found by an atomic count in `counters` (u32, flash_attn_vec_counter_elements),
    /// combines the head's partials into `out` and sets its counter back to 0. The caller
    /// allocates `counters` zeroed once; every run leaves them zero, so no other op may write
    /// them in between. Both views are bound read-write (the graph sees their whole ranges
    /// read and written), so dispatches sharing them are ordered as any RAW/WAW pair is.
    void flash_attn_vec(const TensorView& q, const TensorView& k_cache, const TensorView& v_cache,
                        const TensorView& out, const TensorView& tmp, const TensorView& counters,
                        const FlashAttnVecParams& params, std::string label = "flash_attn_vec");

    // --- copy.cpp ---
    /// Contiguous copy of src (f32) into dst (f32, or f16: converted), same element count;
    /// e.g. appending K/V rows to a cache (dst = the cache rows at the current position).
    void copy(const TensorView& src, const TensorView& dst, std::string label = "copy");
    /// x (f32) quantised to 8 bits: out (q8x, as many elements, a multiple of 32) holds blocks
    /// of 32 values as 32 signed bytes q and a scale d = max|x| / 127, x ~ q d (ggml's q8
    /// rule; graphlens/ops/ggml_blocks.h BlockQ8x). The x of decode mat-vecs over Q4_0 / Q8_0
    /// weights, which then take packed 8-bit integer dot products (quantized_matmul_ggml).
    void quantize_q8(const TensorView& x, const TensorView& out, std::string label = "quantize_q8");
    /// Embedding gather: out[i] = row ids[i] of table, dequantised to f32. table [row_len,
    /// n_rows] in f32, f16, q4_0, q8_0, q4_k or q6_k; ids i32 [n]; out f32 [row_len, n].
    void get_rows(const TensorView& table, const TensorView& ids, const TensorView& out,
                  std::string label = "get_rows");

  private:
    friend class GraphExecutor;
    GraphSession(GraphExecutor& executor, bool recording, const SessionOptions& options);
    void require_open(const char* what) const;
    void close_group();
    SessionTiming run_recorded_or_submit(bool wait);

    GraphExecutor* executor_ = nullptr;
    SessionOptions options_;
    bool recording_ = false;
    bool finished_ = false;
    std::unique_ptr<CommandRecorder> recorder_;  // direct mode
    std::unique_ptr<ComputeGraph> graph_;        // recording mode
    std::unique_ptr<CommandEncoder> encoder_;
    ConflictTracker tracker_;
    size_t open_group_ = 0;
    std::vector<size_t> histogram_;
    uint64_t tracker_ns_ = 0;
    std::chrono::steady_clock::time_point begun_;
};

}  // namespace graphlens
