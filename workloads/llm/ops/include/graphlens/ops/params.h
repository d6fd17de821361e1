#pragma once
// Shape parameters of the ops that need more than their TensorViews (see graphlens/ops/ops.h).
// Layouts are ggml's: shape[0] is the innermost (contiguous) dimension.
#include <algorithm>
#include <cstdint>

namespace graphlens {

/// rope / rope_neox_f32. x and out: f32 [head_dim, n_heads, seq_len]; positions: i32 [seq_len].
struct RopeParams {
    uint32_t head_dim = 0;
    uint32_t n_heads = 0;
    uint32_t seq_len = 0;
    uint32_t rope_dim = 0;  ///< dims rotated (partial rotation when < head_dim); 0 = head_dim
    float freq_base = 10000.0f;
    float freq_scale = 1.0f;  ///< positions are multiplied by this (linear scaling)
};

/// quantized_matmul (MLX affine quantisation): weight u32 [k * bits / 32, n] (values packed
/// low bits first), scales and biases f16 [k / group_size, n]; w = scale * q + bias.
struct AffineQuantParams {
    uint32_t n = 0;            ///< output features (rows of W)
    uint32_t k = 0;            ///< input features (multiple of 32 and of group_size)
    uint32_t bits = 4;         ///< 4 or 8
    uint32_t group_size = 64;  ///< 32 or 64
};

/// quantized_matmul_id_ggml: weight [k, n, n_experts] (ggml blocks), ids i32
/// [n_ids, n_tokens], x f32 [k, x_slots, n_tokens] with x_slots 1 (every slot multiplies the
/// same x: gate/up) or n_ids (one x per slot: down), out f32 [n, n_ids, n_tokens].
struct MatmulIdParams {
    uint32_t n_experts = 0;
    uint32_t n_ids = 0;  ///< experts used per token
    uint32_t n_tokens = 1;
};

/// sdpa: q, out f32 [head_dim, n_heads, seq_q]; k, v f32 or f16 (both the same)
/// [head_dim, n_kv_heads, seq_kv]. Query i is at absolute position pos = seq_kv - seq_q + i
/// (causal: sees keys up to it; a window w > 0: only keys after pos - w, as flash_attn_vec).
struct SdpaParams {
    uint32_t head_dim = 0;  ///< at most 256
    uint32_t n_heads = 0;
    uint32_t n_kv_heads = 0;  ///< divides n_heads (grouped-query attention)
    uint32_t seq_q = 0;
    uint32_t seq_kv = 0;
    float scale = 0.0f;  ///< 0 = 1 / sqrt(head_dim)
    bool causal = true;
    float softcap = 0.0f;  ///< > 0: scores become softcap * tanh(score / softcap)
    uint32_t window = 0;   ///< > 0: sliding window, keys pos - window + 1 .. pos
};

/// flash_attn_vec (decode, one query token): q, out f32 [head_dim, n_heads]; k and v caches
/// f32 or f16 [head_dim, n_kv_heads, capacity] of which the first kv_len tokens are valid;
/// tmp f32 scratch of flash_attn_vec_tmp_elements(params) elements; counters u32 of
/// flash_attn_vec_counter_elements(params) elements, zero before the first run (each run
/// leaves them zero).
struct FlashAttnVecParams {
    uint32_t head_dim = 0;  ///< multiple of 4, at most 256
    uint32_t n_heads = 0;
    uint32_t n_kv_heads = 0;
    uint32_t kv_len = 0;
    /// Keys per workgroup before the last one combines; 0: flash_attn_vec_split_len's choice.
    uint32_t split_len = 0;
    float scale = 0.0f;    ///< 0 = 1 / sqrt(head_dim)
    float softcap = 0.0f;  ///< > 0: scores become softcap * tanh(score / softcap)
    uint32_t window = 0;   ///< > 0: sliding window, only the last `window` keys
};

/// flash_attn_vec's push constants (flash_attn_vec*.comp, Params), in their order: a decode
/// loop that reuses one recorded step for every token writes each token's kv_len here.
struct FlashAttnVecPush {
    uint32_t head_dim, n_heads, n_kv_heads, kv_len, split_len, n_splits;
    float scale, softcap;
    uint32_t window;
};

/// greedy_next_token's push constants (greedy_next_token.comp), in their order: a decode loop
/// writes each token's slot and next position here.
struct GreedyNextTokenPush {
    uint32_t n_vocab, slot;
    int32_t next_position;
};

/// Logits each workgroup of greedy_next_token reads (256 threads, 4 values each): the grid
/// spreads the vocabulary over the GPU, so its loads are one round trip rather than a chain.
constexpr uint32_t kGreedyNextTokenPerWorkgroup = 1024;
/// greedy_next_token's workgroups for a vocabulary of n_vocab.
inline uint32_t greedy_next_token_workgroups(uint32_t n_vocab) {
    return std::max<uint32_t>(
        1, (n_vocab + kGreedyNextTokenPerWorkgroup - 1) / kGreedyNextTokenPerWorkgroup);
}
/// u32 elements of greedy_next_token's scratch: the arrival counter (zero before the first
/// run, left zero by every run) and each workgroup's best value and index.
inline uint64_t greedy_next_token_scratch_elements(uint32_t n_vocab) {
    return 1 + 2ull * greedy_next_token_workgroups(n_vocab);
}

/// Workgroups (splits x query heads) the automatic split length aims at: about two per SM of
/// a large GPU. A constant, not a device query, so a capture is the same on every device.
constexpr uint32_t kFlashAttnVecTargetWorkgroups = 256;

/// Keys per split: p.split_len, or when it is 0 the shortest of 128, 256, 512, ... whose whole
/// splits times n_heads stay within kFlashAttnVecTargetWorkgroups (a partial last split is
/// not counted: a decode step's KV length is one past a round context). The grid stays near a
/// full GPU: shorter splits would only add partials to combine, longer ones leave SMs idle
/// (measurements: docs/history.md, "Decode attention: automatic split length").
inline uint32_t flash_attn_vec_split_len(const FlashAttnVecParams& p) {
    if (p.split_len) return p.split_len;
    uint32_t len = 128;
    while (len < p.kv_len && len < (1u << 31) &&
           uint64_t(p.kv_len / len) * p.n_heads > kFlashAttnVecTargetWorkgroups)
        len *= 2;
    return len;
}
/// Number of splits flash_attn_vec uses.
inline uint32_t flash_attn_vec_splits(const FlashAttnVecParams& p) {
    const uint32_t len = flash_attn_vec_split_len(p);
    return p.kv_len == 0 ? 1 : (p.kv_len + len - 1) / len;
}
/// f32 elements of flash_attn_vec's tmp scratch: (head_dim + 2) per head and split.
inline uint64_t flash_attn_vec_tmp_elements(const FlashAttnVecParams& p) {
    return uint64_t(p.head_dim + 2) * p.n_heads * flash_attn_vec_splits(p);
}
/// f32 elements of a tmp scratch that serves every KV length up to p.kv_len (a KV cache's
/// capacity): the automatic split length can give a shorter length more splits than a longer
/// one, but never more than kFlashAttnVecTargetWorkgroups / n_heads whole ones and a partial.
inline uint64_t flash_attn_vec_tmp_capacity_elements(const FlashAttnVecParams& p) {
    uint64_t splits = flash_attn_vec_splits(p);
    if (!p.split_len && p.n_heads)
        splits = std::max<uint64_t>(splits, kFlashAttnVecTargetWorkgroups / p.n_heads + 1);
    return uint64_t(p.head_dim + 2) * p.n_heads * splits;
}
/// u32 elements of flash_attn_vec's arrival counters: one per query head (the _gqa grid has
/// fewer rows, n_kv_heads x head batches, and uses the first of them).
inline uint64_t flash_attn_vec_counter_elements(const FlashAttnVecParams& p) {
    return p.n_heads;
}

}  // namespace graphlens
