// cgraph's kernel library in CUDA C: the same semantics as exec/kernels.py (the NumPy
// reference), so that a module's outputs on a GPU equal the reference executor's bit for bit.
//
// Compiled by NVRTC to a cubin for the device's compute capability (cuda/nvrtc.py). With
// CGRAPH_HOST defined, the same text compiles as plain C++ for the host (g++): the tests run
// these kernels on the CPU through a simulated driver and compare them with the reference.
//
// Every kernel takes one argument, a struct passed by value; cuda/cuda_backend.py packs it
// (ctypes mirrors of these structs, checked against cg_sizeof below by the tests). Kernels
// loop over their elements with a grid-stride loop, so any grid covers any size.

#ifdef CGRAPH_HOST
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define CG_KERNEL extern "C"
struct cg_dim3 { unsigned x, y, z; };
static cg_dim3 blockIdx, threadIdx, blockDim, gridDim;
#else
#define CG_KERNEL extern "C" __global__
#endif

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

// ---- the synthetic kernel ------------------------------------------------------------------
// Over bytes, with S the byte permutation below, s0 = salt & 0xFF, s1 = (salt >> 8) & 0xFF:
//   A_k(i)   = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256]
//   out_t[j] = ((s0 + 101 t + 17 j + sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1))) mod 256) XOR s1
// (exec/kernels.py, synthetic_bytes; docs/EXECUTOR.md, "Kernels"). The u32 arithmetic below
// wraps modulo 2^32, a multiple of 256, so its low byte is the formula's.
// Each thread computes one aligned pair of bytes, j and j + 1 = j XOR 1, which read each
// other's input bytes: it reads every input at both (modulo its length) before writing
// either. The host copies an input that overlaps an output other than exactly in place into
// scratch memory first, and one in place whose last byte's partner wraps to byte 0 too.

// The AES S-box (FIPS-197, figure 7): the same table as exec/kernels.py's SBOX.
#ifdef CGRAPH_HOST
static const u8 cg_sbox[256] = {
#else
__device__ static const u8 cg_sbox[256] = {
#endif
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

#define CG_SYNTH_STRUCT(NAME, MAX_IN, MAX_OUT)                                                  \
    struct NAME {                                                                             \
        u64 in_ptr[MAX_IN];                                                                   \
        u64 in_len[MAX_IN];                                                                   \
        u64 out_ptr[MAX_OUT];                                                                 \
        u64 out_len[MAX_OUT];                                                                 \
        u64 m_max;                                                                            \
        u32 salt;                                                                             \
        u32 t0;                                                                               \
        u32 n_in;                                                                             \
        u32 n_out;                                                                            \
    };

#define CG_SYNTH_KERNEL(KNAME, NAME)                                                           \
    CG_KERNEL void KNAME(NAME a) {                                                             \
        u64 step = (u64)gridDim.x * blockDim.x;                                                \
        u32 s0 = a.salt & 0xFFu, s1 = (a.salt >> 8) & 0xFFu;                                   \
        for (u64 q = (u64)blockIdx.x * blockDim.x + threadIdx.x; 2 * q < a.m_max; q += step) { \
            u64 j = 2 * q;                                                                     \
            u32 mix0 = s0 + 17u * (u32)(j & 0xFFu);                                            \
            u32 mix1 = s0 + 17u * (u32)((j + 1) & 0xFFu);                                      \
            for (u32 k = 0; k < a.n_in; ++k) {                                                 \
                u64 n = a.in_len[k];                                                           \
                if (n == 0) continue;                                                          \
                const u8* in = (const u8*)a.in_ptr[k];                                         \
                u32 offset = s1 + 29u * k, mul = 2u * k + 3u;                                  \
                u32 x = cg_sbox[(in[j < n ? j : j % n] + offset) & 0xFFu];                     \
                u32 y = cg_sbox[(in[j + 1 < n ? j + 1 : (j + 1) % n] + offset) & 0xFFu];       \
                mix0 += mul * x + 2u * y;                                                      \
                mix1 += mul * y + 2u * x;                                                      \
            }                                                                                  \
            for (u32 t = 0; t < a.n_out; ++t) {                                                \
                u32 out_t = 101u * (a.t0 + t);                                                 \
                u8* out = (u8*)a.out_ptr[t];                                                   \
                if (j < a.out_len[t]) out[j] = (u8)((mix0 + out_t) ^ s1);                      \
                if (j + 1 < a.out_len[t]) out[j + 1] = (u8)((mix1 + out_t) ^ s1);              \
            }                                                                                  \
        }                                                                                      \
    }

CG_SYNTH_STRUCT(SynthSmall, 8, 4)
CG_SYNTH_STRUCT(SynthLarge, 126, 16)
CG_SYNTH_KERNEL(cg_synthetic_small, SynthSmall)
CG_SYNTH_KERNEL(cg_synthetic_large, SynthLarge)

// ---- elementwise builtins ------------------------------------------------------------------
// Inputs are read as float64, the operation runs in float64, and the result is rounded once
// to the output dtype (exp, tanh and sigmoid through float32 first); NaN results are written
// as the positive quiet NaN. Inputs broadcast to the output by strides (0 on a broadcast
// dimension), in elements.

#define CG_MAX_DIMS 8
enum { CG_F16 = 0, CG_F32 = 1, CG_F64 = 2 };

struct EwArgs {
    u64 out;
    u64 in[2];
    i64 n;                          // elements of the output
    i64 shape[CG_MAX_DIMS];         // the output's shape (ndim entries used)
    i64 stride[2][CG_MAX_DIMS];     // each input's strides in elements, 0 where broadcast
    int ndim;
    int out_dt;
    int in_dt[2];
    int flat;                       // bit k: input k has the output's shape (offset = index)
    int pad;
};

#ifdef CGRAPH_HOST
static inline u64 cg_dbits(double v) { u64 b; memcpy(&b, &v, 8); return b; }
static inline double cg_bitsd(u64 b) { double v; memcpy(&v, &b, 8); return v; }
#else
__device__ static inline u64 cg_dbits(double v) { return (u64)__double_as_longlong(v); }
__device__ static inline double cg_bitsd(u64 b) { return __longlong_as_double((i64)b); }
#endif

#define CG_F64_NAN 0x7ff8000000000000ULL
#define CG_F32_NAN 0x7fc00000u
#define CG_F16_NAN 0x7e00u

// binary16 -> binary64: exact.
__device__ static inline double cg_f16_to_f64(u16 h) {
    u64 sign = (u64)(h >> 15) << 63;
    u32 e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {  // zero or subnormal: m * 2^-24, exact
        double v = (double)m * 5.9604644775390625e-08;
        return sign ? -v : v;
    }
    if (e == 31) return cg_bitsd(m ? CG_F64_NAN : (sign | 0x7ff0000000000000ULL));
    return cg_bitsd(sign | ((u64)(e - 15 + 1023) << 52) | ((u64)m << 42));
}

// binary64 -> binary16, round to nearest even (NumPy's npy_doublebits_to_halfbits).
__device__ static inline u16 cg_f64_to_f16(double v) {
    u64 d = cg_dbits(v);
    u16 h_sgn = (u16)((d & 0x8000000000000000ULL) >> 48);
    u64 d_exp = d & 0x7ff0000000000000ULL;
    if (d_exp >= 0x40f0000000000000ULL) {  // overflow, inf or NaN
        if (d_exp == 0x7ff0000000000000ULL && (d & 0x000fffffffffffffULL) != 0)
            return (u16)CG_F16_NAN;
        return (u16)(h_sgn + 0x7c00u);
    }
    if (d_exp <= 0x3f00000000000000ULL) {  // subnormal or zero
        if (d_exp < 0x3e60000000000000ULL) return h_sgn;
        u64 e = d_exp >> 52;
        u64 d_sig = 0x0010000000000000ULL + (d & 0x000fffffffffffffULL);
        d_sig <<= (e - 998);
        if ((d_sig & 0x003fffffffffffffULL) != 0x0010000000000000ULL) d_sig += 0x0010000000000000ULL;
        return (u16)(h_sgn + (u16)(d_sig >> 53));
    }
    u16 h_exp = (u16)((d_exp - 0x3f00000000000000ULL) >> 42);
    u64 d_sig = d & 0x000fffffffffffffULL;
    if ((d_sig & 0x000007ffffffffffULL) != 0x0000020000000000ULL) d_sig += 0x0000020000000000ULL;
    u16 h_sig = (u16)(d_sig >> 42);
    h_sig = (u16)(h_sig + h_exp);  // a carry out of the significand bumps the exponent
    return (u16)(h_sgn + h_sig);
}

__device__ static inline double cg_load(u64 ptr, int dt, i64 i) {
    if (dt == CG_F16) return cg_f16_to_f64(((const u16*)ptr)[i]);
    if (dt == CG_F32) return (double)((const float*)ptr)[i];
    return ((const double*)ptr)[i];
}

__device__ static inline void cg_store(u64 ptr, int dt, i64 i, double v) {
    bool nan = v != v;
    if (dt == CG_F16) {
        ((u16*)ptr)[i] = nan ? (u16)CG_F16_NAN : cg_f64_to_f16(v);
    } else if (dt == CG_F32) {
        float f = (float)v;
        if (nan) ((u32*)ptr)[i] = CG_F32_NAN; else ((float*)ptr)[i] = f;
    } else {
        if (nan) ((u64*)ptr)[i] = CG_F64_NAN; else ((double*)ptr)[i] = v;
    }
}

__device__ static inline double cg_max(double a, double b) {
    return a != a ? a : (b != b ? b : (a >= b ? a : b));
}
__device__ static inline double cg_min(double a, double b) {
    return a != a ? a : (b != b ? b : (a <= b ? a : b));
}
__device__ static inline double cg_round32(double v) { return (double)(float)v; }

// The generic loop computes in binary64 and rounds once when it stores, whatever the dtypes.
// CG_EW_KERNEL_F32's FEXPR is the same operation on binary32 values: for float32 inputs and
// output that have the output's shape, the kernel computes in binary32 instead, with the same
// results bit for bit (a binary32 sum, difference, product or quotient rounded from binary64
// equals the binary32 one: 53 >= 2 * 24 + 2 bits; max, min, negation and copies are exact),
// and without the index and dtype work (the launches of a chain are this).
#define CG_EW_KERNEL(NAME, EXPR) CG_EW_BODY(NAME, EXPR, 0, 0.0f)
#define CG_EW_KERNEL_F32(NAME, EXPR, FEXPR) CG_EW_BODY(NAME, EXPR, 1, FEXPR)
#define CG_EW_BODY(NAME, EXPR, HAS_F32, FEXPR)                                                 \
    CG_KERNEL void cg_ew_##NAME(EwArgs a) {                                                    \
        u64 step = (u64)gridDim.x * blockDim.x;                                                \
        i64 first = (i64)((u64)blockIdx.x * blockDim.x + threadIdx.x);                        \
        if (HAS_F32 && a.flat == 3 && a.out_dt == CG_F32 && a.in_dt[0] == CG_F32 &&            \
            (!a.in[1] || a.in_dt[1] == CG_F32)) {                                              \
            const float* p = (const float*)a.in[0];                                            \
            const float* q = (const float*)a.in[1];                                            \
            for (i64 i = first; i < a.n; i += (i64)step) {                                     \
                float x = p[i];                                                                \
                float y = q ? q[i] : 0.0f;                                                     \
                (void)x;                                                                       \
                (void)y;                                                                       \
                float v = (FEXPR);                                                             \
                if (v != v) ((u32*)a.out)[i] = CG_F32_NAN; else ((float*)a.out)[i] = v;        \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        for (i64 i = first; i < a.n; i += (i64)step) {                                         \
            i64 o0 = i, o1 = i;                                                                \
            if ((a.flat & 3) != 3) {                                                           \
                i64 r = i, s0 = 0, s1 = 0;                                                     \
                for (int d = a.ndim - 1; d >= 0; --d) {                                        \
                    i64 idx = r % a.shape[d];                                                  \
                    r /= a.shape[d];                                                           \
                    s0 += idx * a.stride[0][d];                                                \
                    s1 += idx * a.stride[1][d];                                                \
                }                                                                              \
                if (!(a.flat & 1)) o0 = s0;                                                    \
                if (!(a.flat & 2)) o1 = s1;                                                    \
            }                                                                                  \
            double x = cg_load(a.in[0], a.in_dt[0], o0);                                      \
            double y = a.in[1] ? cg_load(a.in[1], a.in_dt[1], o1) : 0.0;                      \
            (void)y;                                                                           \
            cg_store(a.out, a.out_dt, i, (EXPR));                                              \
        }                                                                                      \
    }

__device__ static inline float cg_maxf(float a, float b) {
    return a != a ? a : (b != b ? b : (a >= b ? a : b));
}
__device__ static inline float cg_minf(float a, float b) {
    return a != a ? a : (b != b ? b : (a <= b ? a : b));
}

CG_EW_KERNEL_F32(add, x + y, x + y)
CG_EW_KERNEL_F32(subtract, x - y, x - y)
CG_EW_KERNEL_F32(multiply, x * y, x * y)
CG_EW_KERNEL_F32(divide, x / y, x / y)
CG_EW_KERNEL_F32(maximum, cg_max(x, y), cg_maxf(x, y))
CG_EW_KERNEL_F32(minimum, cg_min(x, y), cg_minf(x, y))
CG_EW_KERNEL_F32(add_one, x + 1.0, x + 1.0f)
CG_EW_KERNEL(exp, cg_round32(exp(x)))
CG_EW_KERNEL_F32(relu, cg_max(x, 0.0), cg_maxf(x, 0.0f))
CG_EW_KERNEL_F32(negative, -x, -x)
CG_EW_KERNEL(tanh, cg_round32(tanh(x)))
CG_EW_KERNEL(sqrt, sqrt(x))
CG_EW_KERNEL(sigmoid, cg_round32(1.0 / (1.0 + exp(-x))))
CG_EW_KERNEL_F32(copy, x, x)
CG_EW_KERNEL_F32(identity, x, x)


// ---- host entry points (CGRAPH_HOST only): what the simulated driver calls -------------------
#ifdef CGRAPH_HOST
// Runs the requested grid thread by thread; a grid over 65536 threads runs as one thread (a
// grid-stride loop covers every size with any grid).
#define CG_HOST_ENTRY(KNAME, T)                                                                \
    extern "C" void cg_host_##KNAME(void** params, unsigned grid, unsigned block) {            \
        T a;                                                                                   \
        memcpy(&a, params[0], sizeof(T));                                                      \
        if ((u64)grid * block > 65536u) grid = block = 1;                                      \
        gridDim.x = grid;                                                                      \
        blockDim.x = block;                                                                    \
        for (unsigned b = 0; b < grid; ++b)                                                    \
            for (unsigned t = 0; t < block; ++t) {                                             \
                blockIdx.x = b;                                                                \
                threadIdx.x = t;                                                               \
                KNAME(a);                                                                      \
            }                                                                                  \
    }

CG_HOST_ENTRY(cg_synthetic_small, SynthSmall)
CG_HOST_ENTRY(cg_synthetic_large, SynthLarge)
#define CG_HOST_EW(NAME) CG_HOST_ENTRY(cg_ew_##NAME, EwArgs)
CG_HOST_EW(add) CG_HOST_EW(subtract) CG_HOST_EW(multiply) CG_HOST_EW(divide)
CG_HOST_EW(maximum) CG_HOST_EW(minimum) CG_HOST_EW(add_one) CG_HOST_EW(exp) CG_HOST_EW(relu)
CG_HOST_EW(negative) CG_HOST_EW(tanh) CG_HOST_EW(sqrt) CG_HOST_EW(sigmoid) CG_HOST_EW(copy)
CG_HOST_EW(identity)

extern "C" u64 cg_sizeof(int which) {
    return which == 0 ? sizeof(SynthSmall) : which == 1 ? sizeof(SynthLarge) : sizeof(EwArgs);
}
extern "C" u16 cg_host_f64_to_f16(double v) { return cg_f64_to_f16(v); }
extern "C" double cg_host_f16_to_f64(u16 h) { return cg_f16_to_f64(h); }
#endif
