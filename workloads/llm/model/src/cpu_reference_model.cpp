#include "graphlens/model/cpu_reference_model.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/ggml_blocks.h"

namespace graphlens {

namespace {
double gelu_tanh(double x) {
    // The tanh approximation gemma uses (gelu_pytorch_tanh).
    constexpr double kSqrt2OverPi = 0.7978845608028654;
    return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}
double silu(double x) {
    return x / (1.0 + std::exp(-x));
}
double softcap(double x, double cap) {
    return cap * std::tanh(x / cap);
}
}  // namespace

CpuReferenceModel::CpuReferenceModel(const ModelWeights& weights, DType kv_type,
                                     bool q8_activations, int64_t q8_ffn_output_min_embd)
    : config_(weights.config()), kv_type_(kv_type), q8_activations_(q8_activations) {
    if (kv_type != DType::f32 && kv_type != DType::f16)
        throw std::invalid_argument("CpuReferenceModel: KV cache type must be f32 or f16");
    const ModelConfig& c = config_;
    auto matrix = [&](const std::string& name) {
        const WeightSpec& s = weights.spec(name);
        Matrix m;
        m.cols = static_cast<uint32_t>(s.shape[0]);
        m.rows = static_cast<uint32_t>(s.elements() / m.cols);
        m.w = weights.values(name);
        return m;
    };
    // Expert e of a 3-D [cols, rows, n_expert] tensor.
    auto experts = [&](const std::string& name) {
        const WeightSpec& s = weights.spec(name);
        const auto all = weights.values(name);
        const auto cols = static_cast<uint32_t>(s.shape[0]),
                   rows = static_cast<uint32_t>(s.shape[1]);
        std::vector<Matrix> out(static_cast<size_t>(s.shape[2]));
        for (size_t e = 0; e < out.size(); ++e) {
            out[e].cols = cols;
            out[e].rows = rows;
            const auto begin = all.begin() + static_cast<ptrdiff_t>(e * rows * cols);
            out[e].w.assign(begin, begin + static_cast<ptrdiff_t>(rows * cols));
        }
        return out;
    };
    token_embd_ = weights.values("token_embd.weight");
    if (c.rope_freq_factors) rope_freq_factors_ = weights.values("rope_freqs.weight");
    output_norm_ = weights.values("output_norm.weight");
    const std::string output_name = c.tied_embeddings ? "token_embd.weight" : "output.weight";
    output_ = matrix(output_name);
    output_q8_ = mat_vecs_read_q8_x({weights.spec(output_name).dtype}, c.n_embd);
    for (uint32_t il = 0; il < c.n_layer; ++il) {
        const std::string b = fmt::format("blk.{}.", il);
        Layer L;
        L.attn_norm = weights.values(b + "attn_norm.weight");
        auto type = [&](const std::string& name) { return weights.spec(b + name).dtype; };
        L.attn_q8 = mat_vecs_read_q8_x(
            {type("attn_q.weight"), type("attn_k.weight"), type("attn_v.weight")}, c.n_embd);
        if (!c.is_moe()) {
            L.ffn_q8 =
                mat_vecs_read_q8_x({type("ffn_gate.weight"), type("ffn_up.weight")}, c.n_embd);
            L.down_q8 = ffn_down_reads_q8_x(c, type("ffn_down.weight"), q8_ffn_output_min_embd);
        }
        L.wq = matrix(b + "attn_q.weight");
        L.wk = matrix(b + "attn_k.weight");
        L.wv = matrix(b + "attn_v.weight");
        if (c.qkv_bias) {
            L.q_bias = weights.values(b + "attn_q.bias");
            L.k_bias = weights.values(b + "attn_k.bias");
            L.v_bias = weights.values(b + "attn_v.bias");
        }
        if (c.qk_norm) {
            L.q_norm = weights.values(b + "attn_q_norm.weight");
            L.k_norm = weights.values(b + "attn_k_norm.weight");
        }
        L.wo = matrix(b + "attn_output.weight");
        if (c.post_norms) {
            L.post_attn_norm = weights.values(b + "post_attention_norm.weight");
            L.post_ffw_norm = weights.values(b + "post_ffw_norm.weight");
        }
        L.ffn_norm = weights.values(b + "ffn_norm.weight");
        if (c.is_moe()) {
            L.router = matrix(b + "ffn_gate_inp.weight");
            L.gate_e = experts(b + "ffn_gate_exps.weight");
            L.up_e = experts(b + "ffn_up_exps.weight");
            L.down_e = experts(b + "ffn_down_exps.weight");
        } else {
            L.gate = matrix(b + "ffn_gate.weight");
            L.up = matrix(b + "ffn_up.weight");
            L.down = matrix(b + "ffn_down.weight");
        }
        layers_.push_back(std::move(L));
    }
    k_cache_.resize(c.n_layer);
    v_cache_.resize(c.n_layer);
}

void CpuReferenceModel::set_cache(uint32_t layer, uint32_t length, std::span<const float> keys,
                                  std::span<const float> values) {
    const size_t n = static_cast<size_t>(length) * config_.kv_dim();
    if (layer >= config_.n_layer || keys.size() != n || values.size() != n)
        throw std::invalid_argument(fmt::format(
            "set_cache: layer {} with {} positions needs {} keys and values, got {} and {}", layer,
            length, n, keys.size(), values.size()));
    k_cache_[layer].clear();
    v_cache_[layer].clear();
    for (size_t i = 0; i < n; ++i) {
        k_cache_[layer].push_back(static_cast<float>(store_kv(keys[i])));
        v_cache_[layer].push_back(static_cast<float>(store_kv(values[i])));
    }
    kv_length_ = length;
}

std::vector<double> CpuReferenceModel::as_q8x(const std::vector<double>& x) {
    const std::vector<float> f(x.begin(), x.end());
    const auto stored = ggml::dequantize(DType::q8x, ggml::quantize(DType::q8x, f), f.size());
    return {stored.begin(), stored.end()};
}

double CpuReferenceModel::store_kv(double v) const {
    if (kv_type_ == DType::f16)
        return ggml::half_to_float(ggml::float_to_half(static_cast<float>(v)));
    return static_cast<float>(v);
}

std::vector<double> CpuReferenceModel::matvec(const Matrix& m, const std::vector<double>& x) const {
    std::vector<double> y(m.rows);
    for (uint32_t r = 0; r < m.rows; ++r) {
        const float* row = m.w.data() + static_cast<size_t>(r) * m.cols;
        double acc = 0;
        for (uint32_t i = 0; i < m.cols; ++i) acc += static_cast<double>(row[i]) * x[i];
        y[r] = acc;
    }
    return y;
}

/// RMS norm of every `row`-long row of x, times w (w broadcast over rows).
std::vector<double> CpuReferenceModel::rms_norm(const std::vector<double>& x,
                                                const std::vector<float>& w, size_t row) const {
    std::vector<double> y(x.size());
    for (size_t r0 = 0; r0 < x.size(); r0 += row) {
        double ss = 0;
        for (size_t i = 0; i < row; ++i) ss += x[r0 + i] * x[r0 + i];
        const double inv = 1.0 / std::sqrt(ss / static_cast<double>(row) + config_.rms_eps);
        for (size_t i = 0; i < row; ++i) y[r0 + i] = x[r0 + i] * inv * w[i];
    }
    return y;
}

void CpuReferenceModel::rope(std::vector<double>& x, uint32_t heads, uint32_t pos,
                             float base) const {
    const uint32_t d = config_.head_dim;
    for (uint32_t h = 0; h < heads; ++h) {
        double* v = x.data() + static_cast<size_t>(h) * d;
        for (uint32_t i = 0; i < d / 2; ++i) {
            double theta =
                pos * std::pow(static_cast<double>(base), -2.0 * i / static_cast<double>(d));
            if (!rope_freq_factors_.empty()) theta /= rope_freq_factors_[i];
            const double c = std::cos(theta), s = std::sin(theta);
            // normal: pairs (2i, 2i+1); neox: pairs (i, i + d/2).
            const uint32_t a = config_.rope_style == RopeStyle::normal ? 2 * i : i;
            const uint32_t b = config_.rope_style == RopeStyle::normal ? 2 * i + 1 : i + d / 2;
            const double x0 = v[a], x1 = v[b];
            v[a] = x0 * c - x1 * s;
            v[b] = x0 * s + x1 * c;
        }
    }
}

std::vector<double> CpuReferenceModel::dense_ffn(const Matrix& gate, const Matrix& up,
                                                 const Matrix& down, const std::vector<double>& h,
                                                 bool q8_down) const {
    auto g = matvec(gate, h);
    const auto u = matvec(up, h);
    for (size_t i = 0; i < g.size(); ++i)
        g[i] = (config_.activation == Activation::gelu ? gelu_tanh(g[i]) : silu(g[i])) * u[i];
    return matvec(down, q8_down ? as_q8x(g) : g);
}

std::vector<double> CpuReferenceModel::ffn(const Layer& L, const std::vector<double>& h,
                                           bool one_token) const {
    if (!config_.is_moe()) return dense_ffn(L.gate, L.up, L.down, h, one_token && L.down_q8);
    // Router: softmax over all experts, keep the top k (lower index first on ties), and
    // renormalise their probabilities (qwen3moe's norm_topk_prob).
    const auto logits = matvec(L.router, h);
    const double mx = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double sum = 0;
    for (size_t e = 0; e < p.size(); ++e) sum += p[e] = std::exp(logits[e] - mx);
    for (auto& v : p) v /= sum;
    std::vector<uint32_t> order(p.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return p[a] > p[b]; });
    double selected = 0;
    for (uint32_t k = 0; k < config_.n_expert_used; ++k) selected += p[order[k]];
    std::vector<double> out(config_.n_embd, 0.0);
    for (uint32_t k = 0; k < config_.n_expert_used; ++k) {
        const uint32_t e = order[k];
        const auto y = dense_ffn(L.gate_e[e], L.up_e[e], L.down_e[e], h);
        for (size_t i = 0; i < out.size(); ++i) out[i] += p[e] / selected * y[i];
    }
    return out;
}

std::vector<float> CpuReferenceModel::forward(std::span<const int32_t> tokens) {
    const ModelConfig& c = config_;
    if (tokens.empty()) throw std::invalid_argument("forward: no tokens");
    const bool one_token = q8_activations_ && tokens.size() == 1;  // a decode step
    std::vector<double> x;
    for (const int32_t token : tokens) {
        x = embedding(token);
        for (uint32_t il = 0; il < c.n_layer; ++il) layer_forward(il, kv_length_, one_token, x);
        ++kv_length_;
    }
    return logits(x, one_token);
}

std::vector<double> CpuReferenceModel::embedding(int32_t token) const {
    const ModelConfig& c = config_;
    if (token < 0 || static_cast<uint32_t>(token) >= c.n_vocab)
        throw std::out_of_range(fmt::format("token {} outside the vocabulary", token));
    std::vector<double> x(token_embd_.begin() + static_cast<ptrdiff_t>(token) * c.n_embd,
                          token_embd_.begin() + static_cast<ptrdiff_t>(token + 1) * c.n_embd);
    if (c.scale_embeddings)
        for (auto& v : x) v *= std::sqrt(static_cast<double>(c.n_embd));
    return x;
}

void CpuReferenceModel::layer_forward(uint32_t il, uint32_t pos, bool one_token,
                                      std::vector<double>& x) {
    const ModelConfig& c = config_;
    const Layer& L = layers_[il];
    auto h = rms_norm(x, L.attn_norm, c.n_embd);
    if (one_token && L.attn_q8) h = as_q8x(h);
    auto q = matvec(L.wq, h), k = matvec(L.wk, h), v = matvec(L.wv, h);
    if (c.qkv_bias)
        for (size_t i = 0; i < q.size(); ++i) {
            q[i] += L.q_bias[i];
            if (i < k.size()) k[i] += L.k_bias[i], v[i] += L.v_bias[i];
        }
    if (c.qk_norm) {
        q = rms_norm(q, L.q_norm, c.head_dim);
        k = rms_norm(k, L.k_norm, c.head_dim);
    }
    rope(q, c.n_head, pos, c.layer_rope_base(il));
    rope(k, c.n_head_kv, pos, c.layer_rope_base(il));
    for (uint32_t i = 0; i < c.kv_dim(); ++i) {
        k_cache_[il].push_back(static_cast<float>(store_kv(k[i])));
        v_cache_[il].push_back(static_cast<float>(store_kv(v[i])));
    }
    auto o = matvec(L.wo, attention(il, pos, q));
    if (c.post_norms) o = rms_norm(o, L.post_attn_norm, c.n_embd);
    for (uint32_t i = 0; i < c.n_embd; ++i) x[i] += o[i];
    h = rms_norm(x, L.ffn_norm, c.n_embd);
    if (one_token && L.ffn_q8) h = as_q8x(h);
    auto f = ffn(L, h, one_token);
    if (c.post_norms) f = rms_norm(f, L.post_ffw_norm, c.n_embd);
    for (uint32_t i = 0; i < c.n_embd; ++i) x[i] += f[i];
}

std::vector<double> CpuReferenceModel::attention(uint32_t il, uint32_t pos,
                                                 const std::vector<double>& q) const {
    const ModelConfig& c = config_;
    const uint32_t kv_dim = c.kv_dim(), hd = c.head_dim;
    const uint32_t group = c.n_head / c.n_head_kv;
    // Cached positions [first, pos]; sliding layers see the last `sliding_window` only.
    uint32_t first = 0;
    if (c.layer_uses_sliding_window(il) && pos + 1 > c.sliding_window)
        first = pos + 1 - c.sliding_window;
    std::vector<double> attn(c.q_dim(), 0.0);
    const double scale = c.effective_attention_scale();
    for (uint32_t head = 0; head < c.n_head; ++head) {
        const uint32_t kvh = head / group;
        std::vector<double> s(pos + 1 - first);
        for (uint32_t j = first; j <= pos; ++j) {
            const float* kj = k_cache_[il].data() + static_cast<size_t>(j) * kv_dim + kvh * hd;
            double dot = 0;
            for (uint32_t d = 0; d < hd; ++d) dot += q[head * hd + d] * kj[d];
            dot *= scale;
            if (c.attn_logit_softcap > 0) dot = softcap(dot, c.attn_logit_softcap);
            s[j - first] = dot;
        }
        const double mx = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (auto& e : s) sum += e = std::exp(e - mx);
        for (uint32_t j = first; j <= pos; ++j) {
            const float* vj = v_cache_[il].data() + static_cast<size_t>(j) * kv_dim + kvh * hd;
            for (uint32_t d = 0; d < hd; ++d) attn[head * hd + d] += s[j - first] / sum * vj[d];
        }
    }
    return attn;
}

std::vector<float> CpuReferenceModel::logits(const std::vector<double>& x, bool one_token) const {
    // Of the last token only, as an engine computes them.
    const ModelConfig& c = config_;
    auto h = rms_norm(x, output_norm_, c.n_embd);
    if (one_token && output_q8_) h = as_q8x(h);
    auto logits = matvec(output_, h);
    std::vector<float> out(logits.size());
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<float>(
            c.final_logit_softcap > 0 ? softcap(logits[i], c.final_logit_softcap) : logits[i]);
    return out;
}

}  // namespace graphlens
