/* gentrace.c: writes a realistic synthetic Kineto (PyTorch profiler) trace.
 *
 * Used for samples/ and for benchmarks, so profdb ships and measures inputs it
 * made itself. The trace has what real training traces have: ProfilerStep#N
 * annotations, CPU ops with nested children and Input Dims, cudaLaunchKernel
 * runtime calls linked to kernels by correlation (plus flow events), kernels
 * on two compute streams, NCCL collectives on a communication stream, memcpy
 * and memset, a dataloader span, and process/thread metadata.
 *
 * usage: profdb-gentrace [--steps N] [--rank R] [--world W] [--seed S] [--gzip] OUT
 *        (OUT '-' writes to stdout). Deterministic for a given seed.
 *
 * A rank of a job with a designed straggler (bench/job_scale.sh):
 *   --straggle compute|comm|data:F   this rank's compute kernels, all-reduce
 *        kernels or data loading take F times as long (F from 1 to 100). With
 *        the option the all-reduces also wait for the gradient kernels they
 *        reduce (as NCCL's stream dependency does), so slower kernels make a
 *        longer step: give every rank of the job the same KIND, F = 1 for all
 *        but the straggler.
 *   --late R:US   rank R arrives US microseconds late at every all-reduce
 *        (report collectives): its all-reduce kernels start US later and
 *        every other rank's last US longer, waiting for it; the kernels carry
 *        the collective's "Process Group Name" and "Seq" (1, 2, ...) as
 *        PyTorch 2.4's do. Give every rank of the job the same option.
 *
 * Hostile shapes, for the resource-limit tests and bench/shapes.sh (about N
 * events each, streamed, so none is ever written to disk unless asked):
 *   --shape names --events N [--name-len L]   every annotation, op, kernel and
 *        GPU range has a name of its own (L characters, default 16)
 *   --shape tids --events N     every event on a thread of its own: X events,
 *        then B events left open on N/4 threads, closed in reverse order
 *   --shape streams --events N --streams S   launches and kernels spread over
 *        S streams (default 100000), round robin
 *   --shape steps --events N --steps S       S ProfilerSteps of a few ops each */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    FILE *f;
    gzFile gz;
    uint64_t rng;
    int64_t corr;      /* next correlation id */
    int64_t ext;       /* next External id */
    int rank;
    /* --straggle: factors of compute kernels, all-reduce kernels and data
     * loading (1 without it), and whether all-reduces wait for gradients */
    double slow_compute, slow_comm, slow_data;
    bool grad_wait;
    /* --late: the rank that arrives late at every all-reduce and by how
     * much (ns; late_rank -1 without it), and the all-reduces so far */
    long late_rank;
    int64_t late_ns;
    int64_t seq;
    bool first;        /* no comma before the first event */
    int64_t events;
} gen;

static void out(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(gen *g, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (g->gz)
        gzwrite(g->gz, buf, (unsigned)n);
    else
        fwrite(buf, 1, (size_t)n, g->f);
}

static uint32_t rnd(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return (uint32_t)(g->rng >> 11);
}

/* A duration in ns around mean_ns, +-25%. */
static int64_t jitter(gen *g, int64_t mean_ns)
{
    return mean_ns * 3 / 4 + (int64_t)(rnd(g) % (uint32_t)(mean_ns / 2 + 1));
}

/* Writes a microsecond timestamp with three decimals, as Kineto does. */
static void us(char *buf, int64_t ns)
{
    sprintf(buf, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void begin_event(gen *g)
{
    out(g, g->first ? "\n  " : ",\n  ");
    g->first = false;
    g->events++;
}

static void complete(gen *g, const char *cat, const char *name, int pid, int tid, int64_t ts,
                     int64_t dur, const char *args)
{
    char a[32], b[32];
    us(a, ts);
    us(b, dur);
    begin_event(g);
    out(g, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
           "\"ts\": %s, \"dur\": %s, \"args\": {%s}}",
        cat, name, pid, tid, a, b, args);
}

static void flow(gen *g, char ph, int64_t id, int pid, int tid, int64_t ts)
{
    char a[32];
    us(a, ts);
    begin_event(g);
    out(g, "{\"ph\": \"%c\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": %s, "
           "\"cat\": \"ac2g\", \"name\": \"ac2g\"%s}",
        ph, id, pid, tid, a, ph == 'f' ? ", \"bp\": \"e\"" : "");
}

static void metadata(gen *g, const char *name, int pid, int tid, const char *key,
                     const char *value)
{
    begin_event(g);
    out(g, "{\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0, \"pid\": %d, \"tid\": %d, "
           "\"args\": {\"%s\": %s}}",
        name, pid, tid, key, value);
}

enum { PID = 4242, TID_MAIN = 4242, TID_BWD = 4243, GPU = 0 };

static const char *const compute_kernels[] = {
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&)::{lambda()#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl, at::detail::Array<char*, 2>)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
    "ampere_sgemm_128x64_tn",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
};
static const char *const cpu_ops[] = {"aten::linear", "aten::gelu", "aten::layer_norm",
                                      "aten::matmul", "aten::sum"};

/* One CPU op that launches one kernel: op, runtime call, flow, kernel. */
static int64_t launch(gen *g, int tid, int64_t t, int k, int stream, int64_t *gpu_free)
{
    int64_t ext = g->ext++, corr = g->corr++;
    int64_t op_dur = jitter(g, 40000), launch_at = t + op_dur / 3;
    int64_t launch_dur = jitter(g, 8000);
    char args[256];
    snprintf(args, sizeof args, "\"External id\": %" PRId64 ", \"Input Dims\": [[%d, 1024], [1024, 1024]], "
             "\"Input type\": [\"float\", \"float\"]", ext, 32 + 32 * g->rank);
    complete(g, "cpu_op", cpu_ops[k], PID, tid, t, op_dur, args);
    snprintf(args, sizeof args, "\"External id\": %" PRId64 ", \"cbid\": 211, \"correlation\": %" PRId64,
             ext, corr);
    complete(g, "cuda_runtime", "cudaLaunchKernel", PID, tid, launch_at, launch_dur, args);
    flow(g, 's', corr, PID, tid, launch_at);
    int64_t start = launch_at + launch_dur + 2000;
    if (start < *gpu_free)
        start = *gpu_free;
    int64_t kdur = (int64_t)((double)jitter(g, k == 0 ? 180000 : 60000) * g->slow_compute);
    snprintf(args, sizeof args, "\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": %d, "
             "\"correlation\": %" PRId64 ", \"registers per thread\": 96, \"grid\": [128, 1, 1], "
             "\"block\": [256, 1, 1], \"External id\": %" PRId64, GPU, stream, corr, ext);
    complete(g, "kernel", compute_kernels[k], GPU, stream, start, kdur, args);
    flow(g, 'f', corr, GPU, stream, start);
    *gpu_free = start + kdur;
    return t + op_dur + jitter(g, 3000);
}

static int64_t memop(gen *g, int64_t t, const char *cat, const char *name, const char *rt,
                     int64_t bytes, int64_t *gpu_free)
{
    int64_t corr = g->corr++, ext = g->ext++;
    char args[256];
    int64_t rdur = jitter(g, 10000);
    snprintf(args, sizeof args, "\"External id\": %" PRId64 ", \"cbid\": 41, \"correlation\": %" PRId64,
             ext, corr);
    complete(g, "cuda_runtime", rt, PID, TID_MAIN, t, rdur, args);
    int64_t start = t + rdur > *gpu_free ? t + rdur : *gpu_free;
    int64_t dur = jitter(g, bytes / 20);
    snprintf(args, sizeof args, "\"device\": %d, \"context\": 1, \"stream\": 7, \"correlation\": %" PRId64
             ", \"bytes\": %" PRId64 ", \"memory bandwidth (GB/s)\": %.2f, \"External id\": %" PRId64,
             GPU, corr, bytes, (double)bytes / (double)dur, ext);
    complete(g, cat, name, GPU, 7, start, dur, args);
    *gpu_free = start + dur;
    return t + rdur + jitter(g, 2000);
}

static int64_t allreduce(gen *g, int world, int64_t t, int64_t *comm_free, int64_t grads_ready)
{
    int64_t corr = g->corr++, ext = g->ext++;
    int64_t nelems = 4194304;
    char args[512];
    int64_t op_dur = jitter(g, 30000);
    snprintf(args, sizeof args, "\"External id\": %" PRId64 ", \"Collective name\": \"allreduce\", "
             "\"In msg nelems\": %" PRId64 ", \"Out msg nelems\": %" PRId64 ", \"Group size\": %d, "
             "\"dtype\": \"Float\", \"Process Group Name\": \"0\"", ext, nelems, nelems, world);
    complete(g, "cpu_op", "record_param_comms", PID, TID_BWD, t, op_dur, args);
    snprintf(args, sizeof args, "\"External id\": %" PRId64 ", \"cbid\": 211, \"correlation\": %" PRId64,
             ext, corr);
    complete(g, "cuda_runtime", "cudaLaunchKernel", PID, TID_BWD, t + 5000, 7000, args);
    int64_t start = t + 14000 > *comm_free ? t + 14000 : *comm_free;
    if (g->grad_wait && grads_ready > start)
        start = grads_ready;
    int64_t dur = (int64_t)((double)jitter(g, 900000) * g->slow_comm);
    int n = snprintf(args, sizeof args, "\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": 20, "
             "\"correlation\": %" PRId64 ", \"External id\": %" PRId64 ", \"Collective name\": \"allreduce\", "
             "\"In msg nelems\": %" PRId64 ", \"Out msg nelems\": %" PRId64 ", \"Group size\": %d, "
             "\"dtype\": \"Float\"", GPU, corr, ext, nelems, nelems, world);
    if (g->late_rank >= 0) {
        /* the late rank starts its part late; the others wait for it, and
         * every rank's kernel ends together with the collective */
        ++g->seq;
        /* the transfer takes the same time on every rank (it is one
         * collective): set by its number, not by this rank's jitter */
        dur = (int64_t)((double)(800000 + (g->seq * 2654435761u) % 200000) * g->slow_comm) +
              jitter(g, 20000); /* and 15-25 us of this rank's own */
        if (g->rank == g->late_rank)
            start += g->late_ns;
        else
            dur += g->late_ns;
        snprintf(args + n, sizeof args - (size_t)n,
                 ", \"Process Group Name\": \"0\", \"Seq\": %" PRId64, g->seq);
    }
    complete(g, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
             GPU, 20, start, dur, args);
    *comm_free = start + dur;
    return t + op_dur + jitter(g, 5000);
}

/* One training step: data loading, forward on the main thread, backward with
 * gradient all-reduce on the autograd thread, optimizer. */
static int64_t step(gen *g, int n, int world, int64_t t, int64_t *gpu_free, int64_t *comm_free)
{
    int64_t start = t;
    char name[64];
    /* Data loading, then the host-to-device copy of the batch. */
    int64_t dl = (int64_t)((double)jitter(g, 300000) * g->slow_data);
    complete(g, "cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", PID,
             TID_MAIN, t + 1000, dl, "\"External id\": 0");
    t += dl + 2000;
    t = memop(g, t, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", "cudaMemcpyAsync",
              8 << 20, gpu_free);
    t = memop(g, t, "gpu_memset", "Memset (Device)", "cudaMemsetAsync", 1 << 20, gpu_free);
    for (int layer = 0; layer < 6; layer++)
        for (int k = 0; k < 5; k++)
            t = launch(g, TID_MAIN, t, k, 7, gpu_free);
    int64_t bt = t;
    int64_t stream8_free = *gpu_free;
    for (int layer = 0; layer < 6; layer++) {
        for (int k = 0; k < 3; k++)
            bt = launch(g, TID_BWD, bt, k, layer % 2 ? 8 : 7, layer % 2 ? &stream8_free : gpu_free);
        if (layer % 2 == 1)
            bt = allreduce(g, world, bt, comm_free, stream8_free > *gpu_free ? stream8_free : *gpu_free);
    }
    t = bt > t ? bt : t;
    if (stream8_free > *gpu_free)
        *gpu_free = stream8_free;
    /* The optimizer waits for the gradients, like a real .step(). */
    complete(g, "cuda_runtime", "cudaStreamSynchronize", PID, TID_MAIN, t,
             (*comm_free > t ? *comm_free - t : 0) + 5000, "\"correlation\": 0");
    t = (*comm_free > t ? *comm_free : t) + 6000;
    for (int k = 0; k < 3; k++)
        t = launch(g, TID_MAIN, t, 4, 7, gpu_free);
    snprintf(name, sizeof name, "ProfilerStep#%d", n);
    complete(g, "user_annotation", name, PID, TID_MAIN, start, t - start + 1000,
             "\"External id\": 0");
    return t + 2000;
}

/* ---- hostile shapes (see the file comment) ------------------------------ */

/* "prefix_<k>" padded with 'x' to len characters (at least the number). */
static const char *shape_name(char *buf, size_t cap, const char *prefix, int64_t k, int len)
{
    int n = snprintf(buf, cap, "%s_%" PRId64 "_", prefix, k);
    while (n < len && (size_t)n + 1 < cap)
        buf[n++] = 'x';
    buf[n] = '\0';
    return buf;
}

/* A kernel launched by a runtime call: the call at t on tid, the kernel on
 * stream at gpu_t. */
static void launch_pair(gen *g, const char *kernel, int tid, int64_t t, int stream, int64_t gpu_t,
                        int64_t kdur)
{
    int64_t corr = g->corr++;
    char args[160];
    snprintf(args, sizeof args, "\"correlation\": %" PRId64, corr);
    complete(g, "cuda_runtime", "cudaLaunchKernel", PID, tid, t, 2000, args);
    snprintf(args, sizeof args, "\"device\": 0, \"stream\": %d, \"correlation\": %" PRId64,
             stream, corr);
    complete(g, "kernel", kernel, GPU, stream, gpu_t, kdur, args);
}

/* Groups of five events with names of their own: an annotation around an
 * op around a launch, the kernel and a GPU range around it; a ProfilerStep
 * every 1000 groups. */
static void shape_names(gen *g, int64_t events, int len)
{
    char a[1200], b[1200];
    int64_t t = 1700000000000000LL;
    int64_t groups = events / 5;
    for (int64_t k = 0; k < groups; k++) {
        if (k % 1000 == 0) {
            snprintf(a, sizeof a, "ProfilerStep#%" PRId64, k / 1000);
            int64_t n = groups - k < 1000 ? groups - k : 1000;
            complete(g, "user_annotation", a, PID, TID_MAIN, t, n * 10000 - 100, "");
        }
        complete(g, "user_annotation", shape_name(a, sizeof a, "ann", k, len), PID, TID_MAIN,
                 t + 100, 8000, "");
        snprintf(b, sizeof b, "\"Input Dims\": [[%" PRId64 "]]", k % 7);
        complete(g, "cpu_op", shape_name(a, sizeof a, "op", k, len), PID, TID_MAIN, t + 200,
                 6000, b);
        launch_pair(g, shape_name(a, sizeof a, "kernel", k, len), TID_MAIN, t + 1000, 7,
                    t + 5000, 3000);
        complete(g, "gpu_user_annotation", shape_name(a, sizeof a, "range", k, len), GPU, 7,
                 t + 4900, 3200, "");
        t += 10000;
    }
}

/* X events each on a thread of its own, then B events on threads of their
 * own, all open at once, closed in reverse order. */
static void shape_tids(gen *g, int64_t events)
{
    int64_t t = 1700000000000000LL, nx = events / 2, nb = events / 4;
    for (int64_t k = 0; k < nx; k++)
        complete(g, "cpu_op", "aten::add", PID, (int)(100000 + k), t + k * 1000, 500, "");
    char ts[32];
    for (int64_t k = 0; k < nb; k++) {
        us(ts, t + k * 1000);
        begin_event(g);
        out(g, "{\"ph\": \"B\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": %d, "
               "\"tid\": %" PRId64 ", \"ts\": %s}", PID, 100000 + nx + k, ts);
    }
    for (int64_t k = nb - 1; k >= 0; k--) {
        us(ts, t + (nb + (nb - k)) * 1000);
        begin_event(g);
        out(g, "{\"ph\": \"E\", \"pid\": %d, \"tid\": %" PRId64 ", \"ts\": %s}", PID,
            100000 + nx + k, ts);
    }
}

/* Launches and kernels spread round robin over many streams. */
static void shape_streams(gen *g, int64_t events, long streams)
{
    int64_t t = 1700000000000000LL;
    for (int64_t k = 0; k < events / 2; k++) {
        launch_pair(g, compute_kernels[k % 5], TID_MAIN, t, (int)(10 + k % streams), t + 3000,
                    jitter(g, 20000));
        t += 2500;
    }
}

/* Many short ProfilerSteps: a step, then ops, each launching a kernel. */
static void shape_steps(gen *g, int64_t events, long steps)
{
    int64_t t = 1700000000000000LL, per = events / steps;
    int64_t ops = (per - 1) / 4 > 0 ? (per - 1) / 4 : 1;
    char name[64];
    for (long s = 0; s < steps; s++) {
        snprintf(name, sizeof name, "ProfilerStep#%ld", s);
        complete(g, "user_annotation", name, PID, TID_MAIN, t, ops * 10000, "");
        for (int64_t k = 0; k < ops; k++) {
            int64_t at = t + k * 10000;
            complete(g, "cpu_op", cpu_ops[k % 5], PID, TID_MAIN, at + 100, 5000, "");
            launch_pair(g, compute_kernels[k % 5], TID_MAIN, at + 1000, 7, at + 4000,
                        jitter(g, 5000));
        }
        t += ops * 10000 + 1000;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: profdb-gentrace [--steps N] [--rank R] [--world W] [--seed S] "
                    "[--gzip] [--shape names|tids|streams|steps --events N [--name-len L] "
                    "[--streams S]] [--straggle compute|comm|data:F] [--late R:US] OUT\n");
    exit(2);
}

int main(int argc, char **argv)
{
    long steps = 5, rank = 0, world = 2, seed = 1, events = 0, name_len = 16, streams = 100000;
    bool gz = false;
    const char *path = NULL, *shape = NULL, *straggle = NULL, *late = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gzip") == 0)
            gz = true;
        else if (i + 1 < argc && strcmp(argv[i], "--steps") == 0)
            steps = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--rank") == 0)
            rank = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--world") == 0)
            world = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
            seed = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--shape") == 0)
            shape = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--events") == 0)
            events = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--name-len") == 0)
            name_len = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--streams") == 0)
            streams = atol(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--straggle") == 0)
            straggle = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--late") == 0)
            late = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            usage(); /* --help or a typo: not a file name ("-" alone is stdout) */
        else if (!path)
            path = argv[i];
        else
            usage();
    }
    if (!path || steps < 1 || world < 1 || rank < 0 || rank >= world ||
        (shape && (events < 10 || name_len < 1 || name_len > 1000 || streams < 1)))
        usage();
    gen g = {.rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(seed * 7919 + rank), .corr = 1,
             .ext = 1, .rank = (int)rank, .first = true, .slow_compute = 1.0,
             .slow_comm = 1.0, .slow_data = 1.0, .late_rank = -1};
    if (late) {
        char *colon = NULL, *end = NULL;
        long r = strtol(late, &colon, 10);
        double us_late = colon != late && *colon == ':' ? strtod(colon + 1, &end) : -1.0;
        if (!end || end == colon + 1 || *end != '\0' || r < 0 || r >= world ||
            !(us_late >= 0.0 && us_late <= 1e7) || shape)
            usage();
        g.late_rank = r;
        g.late_ns = (int64_t)(us_late * 1000.0);
    }
    if (straggle) {
        const char *colon = strchr(straggle, ':');
        char *end = NULL;
        double f = colon ? strtod(colon + 1, &end) : 0.0;
        size_t kl = colon ? (size_t)(colon - straggle) : 0;
        if (!colon || end == colon + 1 || *end != '\0' || !(f >= 1.0 && f <= 100.0) || shape)
            usage();
        if (kl == 7 && strncmp(straggle, "compute", 7) == 0)
            g.slow_compute = f;
        else if (kl == 4 && strncmp(straggle, "comm", 4) == 0)
            g.slow_comm = f;
        else if (kl == 4 && strncmp(straggle, "data", 4) == 0)
            g.slow_data = f;
        else
            usage();
        g.grad_wait = true;
    }
    if (gz) {
        g.gz = strcmp(path, "-") == 0 ? gzdopen(1, "wb6") : gzopen(path, "wb6");
    } else {
        g.f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    }
    if (!g.gz && !g.f) {
        perror(path);
        return 2;
    }
    out(&g, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
            "\"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712, \"computeMajor\": 8, "
            "\"computeMinor\": 0, \"numSms\": 108}],\n"
            "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %ld, \"world_size\": %ld},\n"
            "  \"record_shapes\": 1,\n  \"traceEvents\": [", rank, world);
    metadata(&g, "process_name", PID, 0, "name", "\"python3\"");
    metadata(&g, "process_labels", PID, 0, "labels", "\"CPU\"");
    metadata(&g, "thread_name", PID, TID_MAIN, "name", "\"thread 4242 (python3)\"");
    metadata(&g, "thread_name", PID, TID_BWD, "name", "\"thread 4243 (pt_autograd_0)\"");
    metadata(&g, "process_name", GPU, 0, "name", "\"python3\"");
    metadata(&g, "process_labels", GPU, 0, "labels", "\"GPU 0\"");
    int64_t t = 1700000000000000LL + rank * 1234; /* ns */
    int64_t gpu_free = t, comm_free = t;
    if (!shape) {
        for (long n = 0; n < steps; n++)
            t = step(&g, (int)n, (int)world, t, &gpu_free, &comm_free);
    } else if (strcmp(shape, "names") == 0) {
        shape_names(&g, events, (int)name_len);
    } else if (strcmp(shape, "tids") == 0) {
        shape_tids(&g, events);
    } else if (strcmp(shape, "streams") == 0) {
        shape_streams(&g, events, streams);
    } else if (strcmp(shape, "steps") == 0) {
        shape_steps(&g, events, steps);
    } else {
        usage();
    }
    char ts[32];
    us(ts, t);
    begin_event(&g);
    out(&g, "{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", "
            "\"tid\": \"\", \"ts\": %s}", ts);
    out(&g, "\n  ],\n  \"traceName\": \"gentrace_rank%ld.pt.trace.json\",\n"
            "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n", rank);
    if (g.gz)
        gzclose(g.gz);
    else if (g.f != stdout)
        fclose(g.f);
    fprintf(stderr, "profdb-gentrace: %" PRId64 " events\n", g.events);
    return 0;
}
