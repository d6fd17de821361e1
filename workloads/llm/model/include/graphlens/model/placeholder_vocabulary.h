#pragma once
// GraphLens's test models have no tokenizer: their inputs are token ids. llama.cpp needs the
// tokenizer keys to load a file, and takes "no_vocab" (no tokenizer; the vocabulary is
// "<arch>.vocab_size" placeholder tokens), so a model file written with it runs in llama.cpp
// on token ids, as in GraphLens.
#include <cstdint>

namespace graphlens {

class GgufWriter;

/// Sets "tokenizer.ggml.model" = "no_vocab". `n_vocab` must equal the "<arch>.vocab_size" the
/// file states (write_model_metadata writes it), which llama.cpp takes as its token count.
void add_placeholder_vocabulary(GgufWriter& writer, uint32_t n_vocab);

}  // namespace graphlens
