/* librelax-accel-runtime.so: the runtime half of the accel example backend, C99 against c_abi.h
 * only (what a vendor ships to deploy machines; it links nothing of Relax but librelax_runtime).
 *
 *  - Device runtime for device type 33 ("accel"): device memory is an arena of its own
 *    (ACCEL_ARENA_MB, default 256 MiB, malloc'd once), first-fit, never host tensors; every
 *    host<->device copy goes through `copy` and is counted ("accel.copies").
 *  - Loader "accel-so": the kernels the compiler plugin built with cc (a shared object written
 *    to a temporary file and dlopen'ed); kernel NAME is accel_kernel_NAME(data, shapes,
 *    scalars). A kernel refuses tensors that are not on the accel device (a missing copy).
 *  - Loader "accel-byoc": the vendor library routine conv2d + bias (+ relu) on the host, one
 *    function per line of the library text (compiler/byoc.cc); calls counted ("accel.byoc_calls").
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "relax/runtime/c_abi.h"

#define ACCEL_DEVICE_TYPE 33
#define MAX_ARGS 64

/* ---- Device memory: a first-fit arena. */

typedef struct Block {
  size_t offset, size;
  int used;
  struct Block* next;
} Block;

static unsigned char* g_arena;
static size_t g_arena_size;
static Block* g_blocks;
static int64_t g_copies, g_byoc_calls;

static int arena_init(void) {
  const char* mb = getenv("ACCEL_ARENA_MB");
  if (g_arena) return 0;
  g_arena_size = (size_t)(mb ? atol(mb) : 256) << 20;
  g_arena = (unsigned char*)malloc(g_arena_size);
  g_blocks = (Block*)calloc(1, sizeof(Block));
  if (!g_arena || !g_blocks) return -1;
  g_blocks->size = g_arena_size;
  return 0;
}

static int dev_alloc(void* self, DLDevice dev, uint64_t nbytes, uint64_t align, void** out) {
  Block* b;
  (void)self, (void)dev;
  if (arena_init() != 0) return RxSetLastError("accel: no memory for the arena"), kRxError;
  if (align < 64) align = 64;
  nbytes = (nbytes + align - 1) / align * align;
  if (nbytes == 0) nbytes = align;
  for (b = g_blocks; b; b = b->next) {
    if (b->used || b->size < nbytes) continue;  /* offsets stay multiples of 64 */
    if (b->size > nbytes) {
      Block* rest = (Block*)calloc(1, sizeof(Block));
      if (!rest) break;
      rest->offset = b->offset + nbytes, rest->size = b->size - nbytes, rest->next = b->next;
      b->size = nbytes, b->next = rest;
    }
    b->used = 1;
    *out = g_arena + b->offset;
    return kRxOk;
  }
  RxSetLastError("accel: device arena exhausted (set ACCEL_ARENA_MB)");
  return kRxError;
}

static int dev_free(void* self, DLDevice dev, void* ptr) {
  Block* b;
  (void)self, (void)dev;
  for (b = g_blocks; b; b = b->next) {
    if (!b->used || g_arena + b->offset != (unsigned char*)ptr) continue;
    b->used = 0;
    while (b->next && !b->next->used) { /* merge with free successors */
      Block* n = b->next;
      b->size += n->size, b->next = n->next;
      free(n);
    }
    return kRxOk;
  }
  RxSetLastError("accel: free of a pointer the arena did not allocate");
  return kRxBadArgument;
}

/* A tensor's first element: DLPack's data + byte_offset (the VM's memory plan puts tensors at
 * offsets in shared storage). */
static void* elements(const DLTensor* t) { return (char*)t->data + t->byte_offset; }

static size_t nbytes_of(const DLTensor* t) {
  size_t n = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  int i;
  for (i = 0; i < t->ndim; ++i) n *= (size_t)t->shape[i];
  return n;
}

static int dev_copy(void* self, const DLTensor* from, DLTensor* to) {
  (void)self;
  memcpy(elements(to), elements(from), nbytes_of(from));
  ++g_copies;
  return kRxOk;
}

static int dev_sync(void* self, DLDevice dev) { return (void)self, (void)dev, kRxOk; }

static int dev_attr(void* self, DLDevice dev, int32_t attr, RxAny* ret) {
  (void)self, (void)dev;
  if (attr == kRxDeviceExists) *ret = RxAnyInt(1);
  else if (attr == kRxDeviceName) *ret = RxAnyString("accel");
  else if (attr == kRxDeviceTotalMemory) *ret = RxAnyInt((int64_t)g_arena_size);
  return kRxOk;
}

/* ---- "accel-so": kernels compiled by cc. */

typedef int (*KernelFn)(void* const*, const int64_t* const*, const int64_t*);
typedef struct { KernelFn fn; char name[128]; } Kernel;
typedef struct { void* handle; Kernel kernels[256]; int n; } SoModule;

static int so_load(void* self, const uint8_t* bytes, uint64_t n, void** out) {
  char path[] = "/tmp/relax-accel-so-XXXXXX";
  int fd = mkstemp(path);
  SoModule* m;
  (void)self;
  if (fd < 0) return RxSetLastError("accel-so: cannot write a temporary file"), kRxError;
  if (write(fd, bytes, (size_t)n) != (ssize_t)n) {
    close(fd), unlink(path);
    return RxSetLastError("accel-so: short write"), kRxError;
  }
  close(fd);
  m = (SoModule*)calloc(1, sizeof(SoModule));
  m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  unlink(path);
  if (!m->handle) {
    free(m);
    return RxSetLastError("accel-so: dlopen of the kernel library failed"), kRxError;
  }
  *out = m;
  return kRxOk;
}

static int call_kernel(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  Kernel* k = (Kernel*)self;
  void* data[MAX_ARGS];
  const int64_t* shapes[MAX_ARGS];
  int64_t scalars[MAX_ARGS];
  int i, nt = 0, ns = 0;
  static char msg[256];
  (void)ret;
  if (nargs > MAX_ARGS) return RxSetLastError("accel kernel: too many arguments"), kRxBadArgument;
  for (i = 0; i < nargs; ++i) {
    if (args[i].type_code == kRxDLTensor) {
      const DLTensor* t = args[i].value.v_tensor;
      if (t->device.device_type != ACCEL_DEVICE_TYPE) {
        snprintf(msg, sizeof msg, "accel kernel %s: argument %d is on device type %d, not on the "
                 "accel device (a missing copy)", k->name, i, (int)t->device.device_type);
        return RxSetLastError(msg), kRxBadArgument;
      }
      data[nt] = elements(t), shapes[nt++] = t->shape;
    } else if (args[i].type_code == kRxInt || args[i].type_code == kRxBool) {
      scalars[ns++] = args[i].value.v_int64;
    }
  }
  if (k->fn(data, shapes, scalars) != 0) {
    snprintf(msg, sizeof msg, "accel kernel %s failed (an assertion or an allocation)", k->name);
    return RxSetLastError(msg), kRxError;
  }
  return kRxOk;
}

static int so_get(void* self, void* module, const char* name, RxPackedCFunc* f, void** fself) {
  SoModule* m = (SoModule*)module;
  char sym[160];
  KernelFn fn;
  (void)self;
  *f = NULL;
  snprintf(sym, sizeof sym, "accel_kernel_%s", name);
  fn = (KernelFn)(size_t)dlsym(m->handle, sym);  /* through size_t: ISO C has no fn<->void* cast */
  if (!fn || m->n >= 256) return kRxOk;
  m->kernels[m->n].fn = fn;
  snprintf(m->kernels[m->n].name, sizeof m->kernels[m->n].name, "%s", name);
  *f = &call_kernel, *fself = &m->kernels[m->n++];
  return kRxOk;
}

static void so_release(void* self, void* module) {
  (void)self;
  dlclose(((SoModule*)module)->handle);
  free(module);
}

/* ---- "accel-byoc": the vendor conv2d + bias (+ relu) routine. */

typedef struct { char symbol[64]; int relu, sh, sw, pt, pl, pb, pr, dh, dw; } Conv;
typedef struct { Conv convs[256]; int n; } ByocModule;

static int byoc_load(void* self, const uint8_t* bytes, uint64_t n, void** out) {
  ByocModule* m = (ByocModule*)calloc(1, sizeof(ByocModule));
  char* text = (char*)malloc((size_t)n + 1);
  char* line;
  (void)self;
  memcpy(text, bytes, (size_t)n), text[n] = 0;
  for (line = strtok(text, "\n"); line && m->n < 256; line = strtok(NULL, "\n")) {
    Conv* c = &m->convs[m->n];
    if (sscanf(line, "%63s %d %d %d %d %d %d %d %d %d", c->symbol, &c->relu, &c->sh, &c->sw,
               &c->pt, &c->pl, &c->pb, &c->pr, &c->dh, &c->dw) != 10) {
      free(text), free(m);
      return RxSetLastError("accel-byoc: a malformed library line"), kRxError;
    }
    ++m->n;
  }
  free(text);
  *out = m;
  return kRxOk;
}

/* out[n, o, y, x] = relu?(b[o] + sum_{i, ky, kx} in[n, i, y*sh - pt + ky*dh, x*sw - pl + kx*dw]
 *                                                 * w[o, i, ky, kx]) */
static int call_conv(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  const Conv* c = (const Conv*)self;
  const DLTensor *x, *w, *b;
  DLTensor* y;
  int64_t N, C, H, W, O, KH, KW, OH, OW, n, o, i, oy, ox, ky, kx;
  (void)ret;
  if (nargs != 4) return RxSetLastError("accel conv2d: (x, w, b, out) expected"), kRxBadArgument;
  x = args[0].value.v_tensor, w = args[1].value.v_tensor, b = args[2].value.v_tensor;
  y = args[3].value.v_tensor;
  N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  O = w->shape[0], KH = w->shape[2], KW = w->shape[3], OH = y->shape[2], OW = y->shape[3];
  if (w->shape[1] != C || y->shape[1] != O) return RxSetLastError("accel conv2d: shapes"), kRxBadArgument;
  for (n = 0; n < N; ++n)
    for (o = 0; o < O; ++o)
      for (oy = 0; oy < OH; ++oy)
        for (ox = 0; ox < OW; ++ox) {
          const float* xd = (const float*)elements(x);
          const float* wd = (const float*)elements(w);
          float acc = ((const float*)elements(b))[o];
          for (i = 0; i < C; ++i)
            for (ky = 0; ky < KH; ++ky) {
              int64_t iy = oy * c->sh - c->pt + ky * c->dh;
              if (iy < 0 || iy >= H) continue;
              for (kx = 0; kx < KW; ++kx) {
                int64_t ix = ox * c->sw - c->pl + kx * c->dw;
                if (ix < 0 || ix >= W) continue;
                acc += xd[((n * C + i) * H + iy) * W + ix] * wd[((o * C + i) * KH + ky) * KW + kx];
              }
            }
          ((float*)elements(y))[((n * O + o) * OH + oy) * OW + ox] = c->relu && acc < 0 ? 0 : acc;
        }
  ++g_byoc_calls;
  return kRxOk;
}

static int byoc_get(void* self, void* module, const char* name, RxPackedCFunc* f, void** fself) {
  ByocModule* m = (ByocModule*)module;
  int i;
  (void)self;
  *f = NULL;
  for (i = 0; i < m->n; ++i)
    if (strcmp(m->convs[i].symbol, name) == 0) *f = &call_conv, *fself = &m->convs[i];
  return kRxOk;
}

static void byoc_release(void* self, void* module) { (void)self, free(module); }

/* ---- Statistics and registration. */

static int get_counter(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  (void)args, (void)nargs;
  *ret = RxAnyInt(*(int64_t*)self);
  return kRxOk;
}

RX_RUNTIME_PLUGIN_ABI_VERSION()

RX_PLUGIN_VISIBLE int relax_runtime_plugin_init(void) {
  RxDeviceRuntime rt;
  RxModuleLoader so, byoc;
  memset(&rt, 0, sizeof rt), memset(&so, 0, sizeof so), memset(&byoc, 0, sizeof byoc);
  rt.struct_size = sizeof rt, rt.abi_version = RX_ABI_VERSION;
  rt.device_type = ACCEL_DEVICE_TYPE, rt.name = "accel";
  rt.alloc = &dev_alloc, rt.free = &dev_free, rt.copy = &dev_copy;
  rt.synchronize = &dev_sync, rt.get_attr = &dev_attr;
  so.struct_size = byoc.struct_size = sizeof so;
  so.abi_version = byoc.abi_version = RX_ABI_VERSION;
  so.format = "accel-so", so.load = &so_load, so.get_function = &so_get, so.release = &so_release;
  byoc.format = "accel-byoc", byoc.load = &byoc_load, byoc.get_function = &byoc_get;
  byoc.release = &byoc_release;
  if (RxRegisterDeviceRuntime(&rt) != 0 || RxRegisterModuleLoader(&so) != 0 ||
      RxRegisterModuleLoader(&byoc) != 0)
    return kRxError;
  RxRegisterGlobalFunc("accel.copies", &get_counter, &g_copies, NULL, 1);
  RxRegisterGlobalFunc("accel.byoc_calls", &get_counter, &g_byoc_calls, NULL, 1);
  return kRxOk;
}
