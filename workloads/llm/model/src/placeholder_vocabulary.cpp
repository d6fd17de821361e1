#include "graphlens/model/placeholder_vocabulary.h"

#include <stdexcept>

#include "graphlens/model/gguf_writer.h"

namespace graphlens {

void add_placeholder_vocabulary(GgufWriter& writer, uint32_t n_vocab) {
    if (n_vocab == 0) throw std::invalid_argument("a placeholder vocabulary needs vocab_size > 0");
    writer.set("tokenizer.ggml.model", GgufValue::string("no_vocab"));
}

}  // namespace graphlens
