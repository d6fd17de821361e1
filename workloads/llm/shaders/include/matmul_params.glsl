// Push constants shared by the matvec / matmul / matvec_id kernels.
// y[col][row] = sum_k W[row][k] * x[col][k]; W has n rows of k elements, row r starting at
// byte r * row_bytes of the weight binding (+ expert * expert_bytes for the _id kernels).
layout(push_constant) uniform Params {
    uint n;             // rows of W = outputs per column
    uint k;             // row length
    uint m;             // columns of x (vectors / tokens)
    uint row_bytes;     // bytes per row of W
    uint x_stride;      // elements between columns of x
    uint y_stride;      // elements between columns of y
    uint bits;          // affine only: 4 or 8
    uint group_size;    // affine only: 32 or 64
    uint expert_bytes;  // _id only: bytes between experts' matrices
    uint n_ids;         // _id only: expert slots per token
    uint x_slot_stride; // _id only: elements between the x of two slots (0 = shared x)
#ifdef ROPE
    uint rope_head_dim; // matvec_blocks ROPE: outputs per head (rows of a head are consecutive)
    uint rope_dim;      // rotated dimensions of a head (the rest pass through)
    float freq_base;
    float freq_scale;
#endif
#ifdef ADD_NORM
    float norm_eps;     // matvec_blocks ADD_NORM: the norm's eps
#endif
} p;
