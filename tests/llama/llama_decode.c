// A small program on llama.cpp's C API and its Vulkan backend (the prebuilt libraries of
// scripts/fetch-llama-vulkan.sh): it loads a GGUF model, evaluates a prompt of token ids and
// then decodes a few tokens greedily, one llama_decode each. It is the foreign program the
// capture layer's tests record: nobody here wrote the engine it drives.
//
//   llama_decode MODEL.gguf --backends DIR [--prompt N] [--decode N] [--logits FILE]
//                [--ctx N] [--skip N]
//
// Prints the decoded token ids and the time per decode step (llama.cpp's own timer,
// llama_perf_context), and the wall time per decode step as a generation loop sees it (the
// llama_decode call, the logits it hands back and the argmax over them; median, min, max over
// the steps after the first --skip); --logits writes the last step's logits (float32, n_vocab
// of them) so a replay can be compared with what llama.cpp computed. --ctx sets the context
// (default 256), which must hold the prompt and the decoded tokens.
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "llama.h"

struct options {
    const char* model;
    const char* backends;
    const char* logits;
    int prompt;
    int decode;
    int ctx;
    int skip;
};

static int usage(void) {
    fprintf(stderr,
            "usage: llama_decode MODEL.gguf --backends DIR [--prompt N] [--decode N] "
            "[--logits FILE] [--ctx N] [--skip N]\n");
    return 2;
}

static int parse(int argc, char** argv, struct options* o) {
    o->model = NULL;
    o->backends = NULL;
    o->logits = NULL;
    o->prompt = 4;
    o->decode = 3;
    o->ctx = 256;
    o->skip = 0;
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
        else if (!strcmp(argv[i], "--ctx") && has_value)
            o->ctx = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--skip") && has_value)
            o->skip = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !o->model)
            o->model = argv[i];
        else
            return 0;
    }
    return o->model && o->backends && o->prompt > 0 && o->decode >= 0 && o->skip >= 0 &&
           o->prompt + o->decode <= o->ctx;
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

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare_doubles(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// Median, min and max of the wall times of the decode steps after the first `skip`.
static void print_wall(double* ms, int steps, int skip) {
    const int n = steps - skip;
    if (n <= 0) return;
    qsort(ms + skip, (size_t)n, sizeof(double), compare_doubles);
    const double median = n % 2 ? ms[skip + n / 2] : (ms[skip + n / 2 - 1] + ms[skip + n / 2]) / 2;
    printf("wall per token: median %.4f ms, min %.4f ms, max %.4f ms over %d steps after %d\n",
           median, ms[skip], ms[skip + n - 1], n, skip);
}

// One decode step per token after the prompt, each its own llama_decode (its own graph
// submission), as an interactive generation loop runs.
static int generate(struct llama_context* ctx, const struct options* o, int n_vocab) {
    llama_token* tokens = malloc(sizeof(llama_token) * (size_t)o->prompt);
    double* wall = malloc(sizeof(double) * (size_t)(o->decode > 0 ? o->decode : 1));
    if (!tokens || !wall) return 0;
    for (int i = 0; i < o->prompt; ++i) tokens[i] = (llama_token)((7 * i + 3) % n_vocab);
    const int evaluated = llama_decode(ctx, llama_batch_get_one(tokens, o->prompt)) == 0;
    free(tokens);
    if (!evaluated) {
        fprintf(stderr, "llama_decode: the prompt failed to evaluate\n");
        free(wall);
        return 0;
    }
    llama_token next = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
    printf("tokens:");
    for (int step = 0; step < o->decode; ++step) {
        printf(" %d", next);
        const double t0 = now_ms();
        if (llama_decode(ctx, llama_batch_get_one(&next, 1)) != 0) {
            fprintf(stderr, "llama_decode: decode step %d failed\n", step);
            free(wall);
            return 0;
        }
        next = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
        wall[step] = now_ms() - t0;
    }
    printf("\n");
    print_wall(wall, o->decode, o->skip < o->decode ? o->skip : 0);
    free(wall);
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
    cp.n_ctx = (uint32_t)o.ctx;
    cp.n_batch = (uint32_t)(o.prompt > 256 ? o.prompt : 256);
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
