#pragma once
// Records a transformer forward step (decode or prefill) through a GraphSession, the way an
// inference engine lays it out, so the graph GraphLens analyses is a real one:
//
//   token_embd (get_rows) [→ embd_scale]
//   per layer il (labels "blk.<il>.<op>"):
//     attn_norm (rms_norm_no_scale → mul), attn_q / attn_k / attn_v (mat-vec or mat-mat)
//     [+ bias: qwen2] [attn_q_norm / attn_k_norm: qwen3, gemma3] rope_q / rope_k,
//     k_cache / v_cache (append to the KV cache), attn (flash_attn_vec + reduce for decode,
//     sdpa for prefill), attn_output, [post_attention_norm: gemma], attn_residual (add),
//     ffn_norm, ffn_gate / ffn_up, ffn_act (silu|gelu) → ffn_mul, ffn_down
//     (MoE: ffn_gate_inp router → topk → expert mat-vecs via matmul_id → weighted sum),
//     [post_ffw_norm], ffn_residual (add)
//   output_norm, output (lm_head on the last token only) [→ output_softcap: gemma2]
//
// Norms, activations and residual adds are recorded unfused (as ggml's graph has them) so
// the fusion pass has real work. Memory: weights in one arena allocation per layer (plus
// token_embd and output arenas) with a view per tensor; one KV cache allocation holding K
// and V of every layer; the residual stream ping-pongs between two rows; every other
// activation lives in one scratch allocation whose regions are reused by every layer, and
// the FFN's regions overlap the attention's (their lifetimes do not), as an engine's
// allocator would plan it: the hazard analysis sees real WAR/WAW reuse.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/tensor_view.h"
#include "graphlens/model/model_config.h"

namespace graphlens {

class DeviceMemory;
class GraphSession;
class ModelWeights;

enum class Phase : uint8_t {
    decode,   ///< one token after kv_length cached ones
    prefill,  ///< several tokens at once
};
std::string_view phase_name(Phase p);

/// The n_embd from which a decode FFN's down projection reads q8x x (ffn_down_reads_q8_x).
inline constexpr int64_t kQ8FfnOutputMinEmbd = 4096;

struct TransformerOptions {
    /// Most tokens one step processes (sizes inputs and activations).
    uint32_t max_tokens = 1;
    /// KV cache positions (0 = n_ctx_train, capped at 4096).
    uint32_t kv_capacity = 0;
    /// Element type of the KV cache: f32, or f16 (sdpa reads f32 only, so an f16 prefill
    /// runs the decode kernel once per token).
    DType kv_type = DType::f32;
    /// Largest weight one binding may hold: 0 = the device's maxStorageBufferRange. A
    /// smaller value forces the host embedding and the chunked lm_head (for tests).
    uint64_t max_binding_bytes = 0;
    /// One-token steps quantise the shared x of the q/k/v projections, of a dense FFN's gate
    /// and up, and of the lm_head to q8x (quantize_q8) when mat_vecs_read_q8_x holds for their
    /// weights and the device has integer dot products, as llama.cpp's Vulkan backend does: the
    /// mat-vecs then read 8-bit x with packed integer dot products (docs/kernels.md). Off:
    /// f32 x everywhere.
    bool q8_activations = true;
    /// With q8_activations, from this n_embd on a dense FFN also quantises act(gate)·up for
    /// its down projection (ffn_down_reads_q8_x).
    int64_t q8_ffn_output_min_embd = kQ8FfnOutputMinEmbd;
};

/// Whether mat-vecs over weights of these types, rows of k values, can read their x as q8x:
/// every weight Q4_0 or Q8_0 (the _xq8 kernels) and k whole blocks of 32. The CPU reference
/// (CpuReferenceModel) applies the same rule.
bool mat_vecs_read_q8_x(std::initializer_list<DType> weights, int64_t k);

/// Whether a one-token step's dense FFN quantises act(gate)·up (`ffn_mul.q8`) for a down
/// projection of weight type `down`: mat_vecs_read_q8_x over rows of n_ff, and n_embd at least
/// `min_embd`. The fusion pass folds that quantize into the gated mat-vec (its _yq8 twin: the
/// last workgroup of each block of 32 rows writes the block), which pays only where that
/// mat-vec's rows are long: with short rows its per-workgroup fence and arrival cost more than
/// the 8-bit x saves (docs/kernels.md, "Open problems"). The CPU reference applies the same
/// rule.
bool ffn_down_reads_q8_x(const ModelConfig& c, DType down, int64_t min_embd = kQ8FfnOutputMinEmbd);

class TransformerModel {
  public:
    /// Allocates every buffer of the model in `memory` (which must outlive the model):
    /// weight arenas, KV cache, inputs, residual stream, scratch and logits. Nothing is
    /// uploaded; a graph can be recorded at once (capture needs no weight values).
    TransformerModel(DeviceMemory& memory, ModelConfig config, TransformerOptions options = {});

    const ModelConfig& config() const { return config_; }
    const TransformerOptions& options() const { return options_; }

    /// Copies the weights to the device (their config must have the same weight shapes).
    void upload_weights(const ModelWeights& weights);
    /// Writes token ids and their positions (kv_length, kv_length + 1, ...) for a step.
    void upload_inputs(std::span<const int32_t> tokens, uint32_t kv_length);

    /// Records one forward step of `n_tokens` tokens at positions kv_length ... into
    /// `session`. Decode is n_tokens == 1. Throws std::invalid_argument when the step does
    /// not fit (n_tokens > max_tokens, kv_length + n_tokens > kv_capacity).
    void record_step(GraphSession& session, uint32_t n_tokens, uint32_t kv_length,
                     const std::function<void(uint32_t layers_done)>& on_layer = {}) const;

    /// Logits of the last token of the step: f32 [n_vocab].
    TensorView logits() const;
    TensorView tokens_input() const { return tokens_; }
    TensorView positions_input() const { return positions_; }
    /// The cache of one layer: [head_dim, n_head_kv, kv_capacity] of kv_type.
    TensorView k_cache(uint32_t layer) const;
    TensorView v_cache(uint32_t layer) const;
    /// The device view of a weight ("blk.0.attn_q.weight"). Throws when the tensor is larger
    /// than the device can bind at once (maxStorageBufferRange).
    TensorView weight(std::string_view name) const;
    /// Rows [first, first + rows) of a 2-D weight (rows = shape[1]).
    TensorView weight_rows(std::string_view name, int64_t first, int64_t rows) const;
    /// True when the token embedding is too large to bind on this device: the lookup then
    /// happens on the host (as llama.cpp keeps token_embd in CPU memory) into the inp_embd
    /// input, and the lm_head reads the table in row chunks.
    bool embedding_on_host() const { return embedding_on_host_; }
    /// True when one-token steps quantise mat-vec inputs to q8x (TransformerOptions::
    /// q8_activations and a device with integer dot products).
    bool quantises_activations() const;

  private:
    struct Region {
        AllocationId allocation = 0;
        uint64_t offset = 0;
        uint64_t bytes = 0;
    };
    /// A view of an activation region (throws if the shape does not fit it).
    TensorView act(const std::string& region, DType dtype, std::vector<int64_t> shape,
                   uint64_t byte_offset = 0) const;
    void record_attention(GraphSession& s, uint32_t il, uint32_t T, uint32_t L, const TensorView& q,
                          const TensorView& out) const;
    /// One layer: the attention block and the feed-forward block, each added to the residual
    /// stream, which ping-pongs between its two rows (`residual` is the row holding it).
    void record_layer(GraphSession& s, uint32_t il, uint32_t T, uint32_t L, int& residual,
                      const TensorView* input) const;
    /// Row r (0 or 1) of the residual stream, [n_embd, T].
    TensorView residual_row(int r, uint32_t T) const;
    /// The same bytes under another shape.
    TensorView reshaped(const TensorView& t, std::vector<int64_t> shape) const;
    /// Norm, q/k/v, rope, KV-cache append, attention, output projection (and its post-norm):
    /// the view to add to the residual stream.
    /// An RMS norm of layer `il` over the embedding: output in activation region `region`
    /// (its squares in `region`_raw), weights and label `blk.<il>.<norm_name>`.
    TensorView record_norm(GraphSession& s, uint32_t il, uint32_t T, const TensorView& x,
                           const std::string& region, const std::string& norm_name) const;
    TensorView record_attention_block(GraphSession& s, uint32_t il, uint32_t T, uint32_t L,
                                      const TensorView& x) const;
    struct QueryKeyValue {
        TensorView q, k, v;
    };
    /// The q, k, v projections of the normed x `h`, with their biases and per-head norms.
    QueryKeyValue record_qkv(GraphSession& s, uint32_t il, uint32_t T, const TensorView& h) const;
    /// Rotary position embedding of `heads` heads of `in` into `out` ([head_dim, heads, T]).
    void record_rope(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                     const TensorView& out, uint32_t heads, const char* what) const;
    /// This step's keys and values copied into the cache at positions L .. L + T - 1.
    void record_kv_append(GraphSession& s, uint32_t il, uint32_t T, uint32_t L, const TensorView& k,
                          const TensorView& v) const;
    /// Norm, feed-forward (dense or mixture of experts) and its post-norm: the view to add to
    /// the residual stream.
    TensorView record_ffn_block(GraphSession& s, uint32_t il, uint32_t T,
                                const TensorView& x) const;
    void record_ffn(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                    const TensorView& out) const;
    void record_moe(GraphSession& s, uint32_t il, uint32_t T, const TensorView& in,
                    const TensorView& out) const;
    /// out = w x. With `split_region` (a region of partials, sized by split_regions()), a
    /// product whose tiles alone would leave a large GPU idle (matmul_k_splits) runs as partial
    /// products over k ranges and a chain of adds through `<split_region>.sum1`, `.sum2`.
    void matmul(GraphSession& s, const TensorView& w, const TensorView& x, const TensorView& out,
                std::string label, const char* split_region = nullptr) const;
    /// The x the mat-vecs over `weights` read: x itself, or (one-token steps, see
    /// TransformerOptions::q8_activations) x quantised into region q8_region by a quantize_q8
    /// dispatch recorded here.
    TensorView x_for(GraphSession& s, std::initializer_list<std::string_view> weights,
                     const TensorView& x, uint32_t n_tokens, const std::string& q8_region,
                     std::string label) const;
    void norm(GraphSession& s, const TensorView& x, const TensorView& w, const TensorView& tmp,
              const TensorView& out, std::string label) const;

    struct WeightSlot {
        AllocationId allocation = 0;
        uint64_t offset = 0;
        WeightSpec spec;
    };
    const WeightSlot& slot(std::string_view name) const;
    // The constructor's allocations, in this order (a capture's allocation ids follow it).
    /// One arena per layer, token_embd and output arenas; a view per tensor.
    void allocate_weights();
    /// K then V per layer, [head_dim, n_head_kv, capacity]; the token and position inputs.
    void allocate_kv_cache_and_inputs();
    /// The residual stream's two rows, then act.scratch: the attention phase's regions, and the
    /// FFN phase's from offset 0 again.
    void allocate_activations();
    /// Decode attention's arrival counters (zeroed once) and partials, then the logits.
    void allocate_attention_state_and_logits();
    uint64_t binding_limit() const;
    bool fits_one_binding(uint64_t bytes) const;

    DeviceMemory* memory_;
    ModelConfig config_;
    TransformerOptions options_;
    std::unordered_map<std::string, WeightSlot> weights_;
    bool embedding_on_host_ = false;
    std::vector<uint8_t> host_token_embd_;  ///< embedding_on_host(): the table's bytes
    TensorView inp_embd_;
    AllocationId kv_alloc_ = 0, residual_alloc_ = 0, scratch_alloc_ = 0, logits_alloc_ = 0;
    AllocationId moe_index_alloc_ = 0;
    TensorView tokens_, positions_;
    uint64_t kv_layer_bytes_ = 0;
    std::unordered_map<std::string, Region> regions_;
};

/// Progress of long work: (done, total, what). Called from the recording thread.
using ProgressCallback = std::function<void(size_t done, size_t total, std::string_view what)>;

struct CaptureRequest {
    ModelConfig config;
    Phase phase = Phase::decode;
    uint32_t tokens = 1;     ///< prefill: tokens processed; decode: 1
    uint32_t kv_length = 0;  ///< tokens already in the KV cache
    DType kv_type = DType::f32;
    /// Largest weight one binding may hold: 0 = the device's maxStorageBufferRange. A
    /// smaller value forces the host embedding and the chunked lm_head (for tests).
    uint64_t max_binding_bytes = 0;
    /// TransformerOptions::q8_activations (metadata x_q8: whether the graph has it).
    bool q8_activations = true;
};

/// Records one step of a model into a ComputeGraph on `memory`'s device (allocations are
/// made in `memory`, weights are not uploaded) with metadata model, architecture, phase,
/// tokens, ctx (= kv_length), weight_type, kv_type, weight_bytes.
ComputeGraph capture_transformer(DeviceMemory& memory, const CaptureRequest& request,
                                 const ProgressCallback& progress = {});

}  // namespace graphlens
