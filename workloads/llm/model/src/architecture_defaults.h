#pragma once
// Private to graphlens_model: a config of an architecture with the facts llama.cpp hard-codes
// for it rather than stores in a GGUF (rope style, norms, activation, ...), the start of every
// preset, tiny test model and GGUF-read config.
#include <string>

#include "graphlens/model/model_config.h"

namespace graphlens {

ModelConfig architecture_base_config(std::string name, Architecture architecture);

}  // namespace graphlens
