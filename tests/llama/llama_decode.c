// A small program on llama.cpp's C API and its Vulkan backend (the prebuilt libraries of
// scripts/fetch-llama-vulkan.sh): it loads a GGUF model, evaluates a prompt of token ids and
// then decodes a few tokens greedily, one llama_decode each. It is the foreign program the
// capture layer's tests record: nobody here wrote the engine it drives.
//
//   llama_decode MODEL.gguf --backends DIR [--prompt N] [--decode N] [--logits FILE]
//
// Prints the decoded token ids and the time per decode step (llama.cpp's own timer,
// llama_perf_context); --logits writes the last step's logits (float32, n_vocab of them) so a
// replay can be compared with what llama.cpp computed.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "llama.h"

struct options {
    const char* model;
    const char* backends;
    const char* logits;
    int prompt;
    int decode;
};

static int usage(void) {
    fprintf(stderr,
            "usage: llama_decode MODEL.gguf --backends DIR [--prompt N] [--decode N] "
            "[--logits FILE]\n");
    return 2;
}

static int parse(int argc, char** argv, struct options* o) {
    o->model = NULL;
    o->backends = NULL;
    o->logits = NULL;
    o->prompt = 4;
    o->decode = 3;
    for (int i = 1; i < argc; ++i) {
        const int has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--backends") && has_value)
            o->backends = argv[++i];
        else if (!strcmp(argv[i], "--logits") && has_value)
            o->logits = argv[++i];
        else if (!strcmp(argv[i], "--prompt") && has_value)
            o->prompt = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--decode") && has_value)
            o->decode = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !o->model)
            o->model = argv[i];
        else
            return 0;
    }
    return o->model && o->backends && o->prompt > 0 && o->decode >= 0;
}

static int argmax(const float* v, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (v[i] > v[best]) best = i;
    return best;
}

static int write_logits(const char* path, const float* logits, int n) {
    FILE* f = fopen(path, "wb");
    if (!f || fwrite(logits, sizeof(float), (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "llama_decode: cannot write %s\n", path);
        if (f) fclose(f);
        return 0;
    }
    return fclose(f) == 0;
}

// One decode step per token after the prompt, each its own llama_decode (its own graph
// submission), as an interactive generation loop runs.
static int generate(struct llama_context* ctx, const struct options* o, int n_vocab) {
    llama_token tokens[256];
    if (o->prompt > 256) return 0;
    for (int i = 0; i < o->prompt; ++i) tokens[i] = (llama_token)((7 * i + 3) % n_vocab);
    if (llama_decode(ctx, llama_batch_get_one(tokens, o->prompt)) != 0) {
        fprintf(stderr, "llama_decode: the prompt failed to evaluate\n");
        return 0;
    }
    llama_token next = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
    printf("tokens:");
    for (int step = 0; step < o->decode; ++step) {
        printf(" %d", next);
        if (llama_decode(ctx, llama_batch_get_one(&next, 1)) != 0) {
            fprintf(stderr, "llama_decode: decode step %d failed\n", step);
            return 0;
        }
        next = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
    }
    printf("\n");
    return !o->logits || write_logits(o->logits, llama_get_logits_ith(ctx, -1), n_vocab);
}

int main(int argc, char** argv) {
    struct options o;
    if (!parse(argc, argv, &o)) return usage();
    ggml_backend_load_all_from_path(o.backends);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 999;  // every layer on the Vulkan device
    struct llama_model* model = llama_model_load_from_file(o.model, mp);
    if (!model) {
        fprintf(stderr, "llama_decode: cannot load %s\n", o.model);
        return 1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 256;
    cp.n_batch = 256;
    cp.no_perf = 0;
    struct llama_context* ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "llama_decode: cannot create a context\n");
        llama_model_free(model);
        return 1;
    }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    const int ok = generate(ctx, &o, n_vocab);
    const struct llama_perf_context_data perf = llama_perf_context(ctx);
    if (ok && perf.n_eval > 0)
        printf("decode: %d steps, %.3f ms per token (llama.cpp's timer)\n", perf.n_eval,
               perf.t_eval_ms / perf.n_eval);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return ok ? 0 : 1;
}
