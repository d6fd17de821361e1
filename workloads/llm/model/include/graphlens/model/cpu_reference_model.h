#pragma once
// A straightforward CPU forward pass of a transformer (double accumulation, weights
// dequantized once to float), the truth the GPU graph's logits are compared against in the
// end-to-end tests. It follows the same arithmetic as the graph TransformerBuilder records
// (see docs/models.md), op by op, but shares no code with it. Meant for tiny models: it
// keeps every weight as floats.
#include <cstdint>
#include <span>
#include <vector>

#include "graphlens/graph/dtype.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/model_weights.h"
#include "graphlens/model/transformer_builder.h"

namespace graphlens {

class CpuReferenceModel {
  public:
    /// `kv_type` is the KV cache's element type on the GPU: f16 rounds every cached key and
    /// value through f16 exactly as the GPU cache stores it.
    /// `q8_activations`: one-token forward calls quantise the x of the q/k/v projections, of a
    /// dense FFN's gate and up and of the lm_head to q8x where the GPU graph does
    /// (TransformerModel:: quantises_activations(), mat_vecs_read_q8_x), with the GPU's f32
    /// operations; from `q8_ffn_output_min_embd` on also the x of a dense FFN's down projection
    /// (ffn_down_reads_q8_x).
    explicit CpuReferenceModel(const ModelWeights& weights, DType kv_type = DType::f32,
                               bool q8_activations = false,
                               int64_t q8_ffn_output_min_embd = kQ8FfnOutputMinEmbd);

    /// Replaces the cache of one layer with `length` positions; `keys` and `values` hold
    /// length × kv_dim values (position-major, then head, then dimension).
    void set_cache(uint32_t layer, uint32_t length, std::span<const float> keys,
                   std::span<const float> values);
    uint32_t kv_length() const { return kv_length_; }

    /// Runs `tokens` at positions kv_length() ... kv_length() + n - 1, appends their keys
    /// and values to the cache and returns the logits of the last token (n_vocab values).
    std::vector<float> forward(std::span<const int32_t> tokens);

    /// Cached keys of one layer (kv_length() × kv_dim), for comparing caches.
    const std::vector<float>& keys(uint32_t layer) const { return k_cache_.at(layer); }
    const std::vector<float>& values(uint32_t layer) const { return v_cache_.at(layer); }

  private:
    struct Matrix {
        std::vector<float> w;  ///< rows × cols, row-major: row r = output r
        uint32_t rows = 0, cols = 0;
    };
    struct Layer {
        std::vector<float> attn_norm, q_norm, k_norm, post_attn_norm, ffn_norm, post_ffw_norm;
        std::vector<float> q_bias, k_bias, v_bias;
        Matrix wq, wk, wv, wo;
        Matrix gate, up, down;  // dense FFN
        Matrix router;          // MoE
        std::vector<Matrix> gate_e, up_e, down_e;
        bool attn_q8 = false, ffn_q8 = false;  ///< x of q/k/v, of gate/up as q8x (one token)
        bool down_q8 = false;                  ///< x of the (dense) down projection as q8x
    };
    std::vector<double> matvec(const Matrix& m, const std::vector<double>& x) const;
    std::vector<double> rms_norm(const std::vector<double>& x, const std::vector<float>& w,
                                 size_t row) const;
    /// Token `token`'s row of the embedding table (scaled where the architecture scales it).
    std::vector<double> embedding(int32_t token) const;
    /// One layer at position `pos` on the residual `x`: attention (its keys and values
    /// appended to the cache) and feed-forward, each added to x.
    void layer_forward(uint32_t il, uint32_t pos, bool one_token, std::vector<double>& x);
    /// Attention of the query heads `q` over layer il's cached positions up to `pos`.
    std::vector<double> attention(uint32_t il, uint32_t pos, const std::vector<double>& q) const;
    /// The vocabulary's logits from the last residual (output norm, head, soft-capping).
    std::vector<float> logits(const std::vector<double>& x, bool one_token) const;
    std::vector<double> ffn(const Layer& L, const std::vector<double>& h, bool one_token) const;
    /// `q8_down`: the down projection reads act(gate)·up as q8x (a decode step's).
    std::vector<double> dense_ffn(const Matrix& gate, const Matrix& up, const Matrix& down,
                                  const std::vector<double>& h, bool q8_down = false) const;
    void rope(std::vector<double>& x, uint32_t heads, uint32_t pos, float base) const;
    double store_kv(double v) const;
    /// x as the GPU's q8x stores it: rounded to f32, quantised, and the values it stands for.
    static std::vector<double> as_q8x(const std::vector<double>& x);

    ModelConfig config_;
    DType kv_type_;
    bool q8_activations_ = false;
    std::vector<float> token_embd_;         ///< n_vocab × n_embd
    std::vector<float> rope_freq_factors_;  ///< empty = none
    std::vector<float> output_norm_;
    Matrix output_;
    bool output_q8_ = false;  ///< the lm_head's x as q8x (one token)
    std::vector<Layer> layers_;
    std::vector<std::vector<float>> k_cache_, v_cache_;
    uint32_t kv_length_ = 0;
};

}  // namespace graphlens
