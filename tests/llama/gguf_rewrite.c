// Reads a GGUF file with ggml's own gguf reader and writes it again with ggml's writer (the
// prebuilt libggml-base of scripts/fetch-llama-vulkan.sh), renaming the model: a file whose
// every byte ggml laid out, for checking that GraphLens reads what ggml writes.
//
//   gguf_rewrite IN.gguf OUT.gguf NEW_NAME
#include <stdint.h>
#include <stdio.h>

#include "ggml.h"
#include "gguf.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: gguf_rewrite IN.gguf OUT.gguf NEW_NAME\n");
        return 2;
    }
    struct ggml_context* data = NULL;
    struct gguf_init_params params = {.no_alloc = false, .ctx = &data};
    struct gguf_context* file = gguf_init_from_file(argv[1], params);
    if (!file) {
        fprintf(stderr, "gguf_rewrite: ggml cannot read %s\n", argv[1]);
        return 1;
    }
    // A new context, as ggml's own tools build one: the keys copied, every tensor added from
    // the ggml context that holds its data.
    struct gguf_context* out = gguf_init_empty();
    gguf_set_kv(out, file);
    gguf_set_val_str(out, "general.name", argv[3]);
    for (int64_t i = 0; i < gguf_get_n_tensors(file); ++i)
        gguf_add_tensor(out, ggml_get_tensor(data, gguf_get_tensor_name(file, i)));
    const int ok = gguf_write_to_file(out, argv[2], false);
    printf("%s: %lld tensors, %lld keys\n", argv[2], (long long)gguf_get_n_tensors(out),
           (long long)gguf_get_n_kv(out));
    gguf_free(out);
    gguf_free(file);
    ggml_free(data);
    return ok ? 0 : 1;
}
