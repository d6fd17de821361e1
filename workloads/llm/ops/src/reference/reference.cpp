// Straightforward double-precision versions of every op: clarity over speed.
#include "graphlens/ops/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "graphlens/ops/ggml_blocks.h"

namespace graphlens::reference {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();
}

Vec add(std::span<const float> a, std::span<const float> b) {
    Vec out(a.size());
    for (size_t i = 0; i < a.size(); ++i) out[i] = double(a[i]) + double(b[i % b.size()]);
    return out;
}

Vec mul(std::span<const float> a, std::span<const float> b) {
    Vec out(a.size());
    for (size_t i = 0; i < a.size(); ++i) out[i] = double(a[i]) * double(b[i % b.size()]);
    return out;
}

Vec multi_add(std::span<const std::span<const float>> inputs) {
    Vec out(inputs.empty() ? 0 : inputs[0].size(), 0.0);
    for (const auto& in : inputs)
        for (size_t i = 0; i < out.size(); ++i) out[i] += in[i];
    return out;
}

Vec scale(std::span<const float> x, double s) {
    Vec out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * s;
    return out;
}

Vec rms_norm(std::span<const float> x, std::span<const float> weight, uint32_t dim, double eps) {
    Vec out(x.size());
    for (size_t r = 0; r < x.size() / dim; ++r) {
        double ss = 0;
        for (uint32_t i = 0; i < dim; ++i) ss += double(x[r * dim + i]) * x[r * dim + i];
        const double inv = 1.0 / std::sqrt(ss / dim + eps);
        for (uint32_t i = 0; i < dim; ++i)
            out[r * dim + i] = x[r * dim + i] * inv * (weight.empty() ? 1.0 : double(weight[i]));
    }
    return out;
}

Vec gelu(std::span<const float> x) {
    Vec out(x.size());
    const double k = std::sqrt(2.0 / M_PI);
    for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        out[i] = 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
    }
    return out;
}

Vec silu(std::span<const float> x) {
    Vec out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] / (1.0 + std::exp(-double(x[i])));
    return out;
}

Vec softcap(std::span<const float> x, double cap) {
    Vec out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = std::tanh(x[i] / cap) * cap;
    return out;
}

Vec softmax(std::span<const float> x, uint32_t cols, double scale, std::span<const float> mask,
            uint32_t mask_rows) {
    Vec out(x.size());
    for (size_t r = 0; r < x.size() / cols; ++r) {
        Vec l(cols);
        double mx = kNegInf;
        for (uint32_t i = 0; i < cols; ++i) {
            l[i] = x[r * cols + i] * scale;
            if (!mask.empty()) l[i] += mask[(r % mask_rows) * cols + i];
            mx = std::max(mx, l[i]);
        }
        if (mx == kNegInf) continue;  // fully masked: zeros
        double sum = 0;
        for (uint32_t i = 0; i < cols; ++i) sum += std::exp(l[i] - mx);
        for (uint32_t i = 0; i < cols; ++i) out[r * cols + i] = std::exp(l[i] - mx) / sum;
    }
    return out;
}

Vec rope(std::span<const float> x, std::span<const int32_t> positions,
         std::span<const float> freq_factors, const RopeParams& p, bool neox) {
    const uint32_t rd = p.rope_dim ? p.rope_dim : p.head_dim;
    Vec out(x.begin(), x.end());
    for (uint32_t s = 0; s < p.seq_len; ++s)
        for (uint32_t h = 0; h < p.n_heads; ++h) {
            const size_t base = (size_t(s) * p.n_heads + h) * p.head_dim;
            for (uint32_t j = 0; j < rd / 2; ++j) {
                double theta = positions[s] * double(p.freq_scale) *
                               std::pow(double(p.freq_base), -2.0 * j / rd);
                if (!freq_factors.empty()) theta /= freq_factors[j];
                const size_t i0 = base + (neox ? j : 2 * j);
                const size_t i1 = base + (neox ? j + rd / 2 : 2 * j + 1);
                const double a = x[i0], b = x[i1];
                out[i0] = a * std::cos(theta) - b * std::sin(theta);
                out[i1] = a * std::sin(theta) + b * std::cos(theta);
            }
        }
    return out;
}

Vec matmul(std::span<const float> w, std::span<const float> x, uint32_t n, uint32_t k, uint32_t m) {
    Vec out(size_t(n) * m);
    for (uint32_t c = 0; c < m; ++c)
        for (uint32_t r = 0; r < n; ++r) {
            double s = 0;
            for (uint32_t i = 0; i < k; ++i)
                s += double(w[size_t(r) * k + i]) * x[size_t(c) * k + i];
            out[size_t(c) * n + r] = s;
        }
    return out;
}

Vec matmul_id(std::span<const float> w, std::span<const float> x, std::span<const int32_t> ids,
              uint32_t n, uint32_t k, const MatmulIdParams& p, uint32_t x_slots) {
    Vec out(size_t(n) * p.n_ids * p.n_tokens);
    for (uint32_t t = 0; t < p.n_tokens; ++t)
        for (uint32_t s = 0; s < p.n_ids; ++s) {
            const int32_t e = ids[size_t(t) * p.n_ids + s];
            const float* we = w.data() + size_t(e) * n * k;
            const float* xs = x.data() + (size_t(t) * x_slots + (x_slots == 1 ? 0 : s)) * k;
            for (uint32_t r = 0; r < n; ++r) {
                double acc = 0;
                for (uint32_t i = 0; i < k; ++i) acc += double(we[size_t(r) * k + i]) * xs[i];
                out[(size_t(t) * p.n_ids + s) * n + r] = acc;
            }
        }
    return out;
}

Vec sdpa(std::span<const float> q, std::span<const float> k, std::span<const float> v,
         const SdpaParams& p) {
    const double scale = p.scale != 0 ? p.scale : 1.0 / std::sqrt(double(p.head_dim));
    const uint32_t group = p.n_heads / p.n_kv_heads;
    Vec out(size_t(p.head_dim) * p.n_heads * p.seq_q);
    for (uint32_t i = 0; i < p.seq_q; ++i)
        for (uint32_t h = 0; h < p.n_heads; ++h) {
            const uint32_t kvh = h / group;
            const uint32_t pos = p.seq_kv - p.seq_q + i;
            const uint32_t n_keys = p.causal ? std::min(p.seq_kv, pos + 1) : p.seq_kv;
            const uint32_t first = p.window > 0 && pos + 1 > p.window ? pos + 1 - p.window : 0;
            const float* qv = q.data() + (size_t(i) * p.n_heads + h) * p.head_dim;
            Vec s(n_keys, 0.0);
            double mx = kNegInf;
            for (uint32_t j = first; j < n_keys; ++j) {
                const float* kv = k.data() + (size_t(j) * p.n_kv_heads + kvh) * p.head_dim;
                double d = 0;
                for (uint32_t e = 0; e < p.head_dim; ++e) d += double(qv[e]) * kv[e];
                d *= scale;
                if (p.softcap > 0) d = p.softcap * std::tanh(d / p.softcap);
                s[j] = d;
                mx = std::max(mx, d);
            }
            double sum = 0;
            for (uint32_t j = first; j < n_keys; ++j) sum += (s[j] = std::exp(s[j] - mx));
            double* o = out.data() + (size_t(i) * p.n_heads + h) * p.head_dim;
            for (uint32_t j = first; j < n_keys; ++j) {
                const float* vv = v.data() + (size_t(j) * p.n_kv_heads + kvh) * p.head_dim;
                for (uint32_t e = 0; e < p.head_dim; ++e) o[e] += s[j] / sum * vv[e];
            }
        }
    return out;
}

Vec flash_attn_vec(std::span<const float> q, std::span<const float> k_cache,
                   std::span<const float> v_cache, const FlashAttnVecParams& p) {
    const double scale = p.scale != 0 ? p.scale : 1.0 / std::sqrt(double(p.head_dim));
    const uint32_t group = p.n_heads / p.n_kv_heads;
    const uint32_t first = (p.window > 0 && p.kv_len > p.window) ? p.kv_len - p.window : 0;
    Vec out(size_t(p.head_dim) * p.n_heads);
    for (uint32_t h = 0; h < p.n_heads; ++h) {
        const uint32_t kvh = h / group;
        const float* qv = q.data() + size_t(h) * p.head_dim;
        Vec s(p.kv_len, kNegInf);
        double mx = kNegInf;
        for (uint32_t j = first; j < p.kv_len; ++j) {
            const float* kv = k_cache.data() + (size_t(j) * p.n_kv_heads + kvh) * p.head_dim;
            double d = 0;
            for (uint32_t e = 0; e < p.head_dim; ++e) d += double(qv[e]) * kv[e];
            d *= scale;
            if (p.softcap > 0) d = p.softcap * std::tanh(d / p.softcap);
            s[j] = d;
            mx = std::max(mx, d);
        }
        double sum = 0;
        for (uint32_t j = first; j < p.kv_len; ++j) sum += (s[j] = std::exp(s[j] - mx));
        for (uint32_t j = first; j < p.kv_len; ++j) {
            const float* vv = v_cache.data() + (size_t(j) * p.n_kv_heads + kvh) * p.head_dim;
            for (uint32_t e = 0; e < p.head_dim; ++e)
                out[size_t(h) * p.head_dim + e] += s[j] / sum * vv[e];
        }
    }
    return out;
}

TopK topk(std::span<const float> logits, uint32_t n_experts, uint32_t k, bool normalize) {
    TopK r;
    const size_t tokens = logits.size() / n_experts;
    for (size_t t = 0; t < tokens; ++t) {
        const float* l = logits.data() + t * n_experts;
        double mx = kNegInf, sum = 0;
        for (uint32_t e = 0; e < n_experts; ++e) mx = std::max(mx, double(l[e]));
        for (uint32_t e = 0; e < n_experts; ++e) sum += std::exp(l[e] - mx);
        std::vector<uint32_t> order(n_experts);
        for (uint32_t e = 0; e < n_experts; ++e) order[e] = e;
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return l[a] > l[b]; });
        double chosen = 0;
        Vec w(k);
        for (uint32_t i = 0; i < k; ++i) chosen += (w[i] = std::exp(l[order[i]] - mx) / sum);
        for (uint32_t i = 0; i < k; ++i) {
            r.ids.push_back(static_cast<int32_t>(order[i]));
            r.weights.push_back(normalize ? w[i] / chosen : w[i]);
        }
    }
    return r;
}

Vec get_rows(std::span<const float> table, std::span<const int32_t> ids, uint32_t row_len) {
    Vec out;
    out.reserve(ids.size() * row_len);
    for (int32_t id : ids)
        for (uint32_t i = 0; i < row_len; ++i) out.push_back(table[size_t(id) * row_len + i]);
    return out;
}

AffineQuantized affine_quantize(std::span<const float> w, const AffineQuantParams& p) {
    if ((p.bits != 4 && p.bits != 8) || (p.group_size != 32 && p.group_size != 64) ||
        p.k % p.group_size != 0 || w.size() != size_t(p.n) * p.k)
        throw std::invalid_argument(
            "affine_quantize: bits must be 4 or 8, group_size 32 or 64 "
            "dividing k, and w must hold n * k values");
    AffineQuantized q;
    const uint32_t per_word = 32 / p.bits, qmax = (1u << p.bits) - 1;
    q.packed.assign(size_t(p.n) * p.k / per_word, 0);
    for (uint32_t r = 0; r < p.n; ++r)
        for (uint32_t g = 0; g < p.k / p.group_size; ++g) {
            const float* s = w.data() + size_t(r) * p.k + size_t(g) * p.group_size;
            float lo = s[0], hi = s[0];
            for (uint32_t i = 0; i < p.group_size; ++i)
                lo = std::min(lo, s[i]), hi = std::max(hi, s[i]);
            const uint16_t sh = ggml::float_to_half((hi - lo) / float(qmax));
            const uint16_t bh = ggml::float_to_half(lo);
            q.scales.push_back(sh);
            q.biases.push_back(bh);
            const float sc = ggml::half_to_float(sh), bias = ggml::half_to_float(bh);
            for (uint32_t i = 0; i < p.group_size; ++i) {
                const long v = sc > 0 ? std::lround((s[i] - bias) / sc) : 0;
                const uint32_t qv = static_cast<uint32_t>(std::clamp<long>(v, 0, qmax));
                const size_t e = size_t(r) * p.k + size_t(g) * p.group_size + i;
                q.packed[e / per_word] |= qv << ((e % per_word) * p.bits);
            }
        }
    return q;
}

std::vector<float> affine_dequantize(const AffineQuantized& q, const AffineQuantParams& p) {
    const uint32_t per_word = 32 / p.bits, mask = (1u << p.bits) - 1;
    std::vector<float> out(size_t(p.n) * p.k);
    for (size_t e = 0; e < out.size(); ++e) {
        const uint32_t v = (q.packed[e / per_word] >> ((e % per_word) * p.bits)) & mask;
        const size_t g = e / p.group_size;
        out[e] = ggml::half_to_float(q.scales[g]) * float(v) + ggml::half_to_float(q.biases[g]);
    }
    return out;
}

}  // namespace graphlens::reference
