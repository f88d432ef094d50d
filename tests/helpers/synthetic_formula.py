"""The synthetic kernel of docs/EXECUTOR.md ("Kernels"), derived here independently of
cudagraph_cli/exec/kernels.py, for the tests that check the code against it.

* `aes_sbox()`: the byte permutation S, computed from its definition in FIPS-197 (section
  5.1.1): the multiplicative inverse in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (0 maps to
  0), then the affine map b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63.
  FIPS-197's own examples: S[0x53] = 0xed, S[0x00] = 0x63.
* `synthetic_by_hand(salt, inputs, m, t)`: output t's first m bytes, one byte at a time in
  plain Python:

      s0 = salt mod 256, s1 = (salt >> 8) mod 256
      A_k(i)   = S[(in_k[i mod len(in_k)] + s1 + 29 k) mod 256]
      out_t[j] = ((s0 + 101 t + 17 j + sum_k ((2k + 3) A_k(j) + 2 A_k(j XOR 1))) mod 256)
                 XOR s1
"""

from __future__ import annotations

import functools


def _gf_mul(a: int, b: int) -> int:
    product = 0
    while b:
        if b & 1:
            product ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return product


def _rotl(b: int, s: int) -> int:
    return ((b << s) | (b >> (8 - s))) & 0xFF


@functools.cache
def aes_sbox() -> tuple:
    table = []
    for x in range(256):
        inverse = 0 if x == 0 else next(y for y in range(1, 256) if _gf_mul(x, y) == 1)
        table.append(inverse ^ _rotl(inverse, 1) ^ _rotl(inverse, 2) ^ _rotl(inverse, 3)
                     ^ _rotl(inverse, 4) ^ 0x63)
    return tuple(table)


def synthetic_by_hand(salt: int, inputs: list, m: int, t: int) -> list:
    """Output t (m bytes) of the synthetic kernel on `inputs` (sequences of byte values)."""
    sbox = aes_sbox()
    s0, s1 = salt % 256, (salt >> 8) % 256
    out = []
    for j in range(m):
        acc = s0 + 17 * j
        for k, data in enumerate(inputs):
            if len(data):
                def a(i):
                    return sbox[(int(data[i % len(data)]) + s1 + 29 * k) % 256]
                acc += (2 * k + 3) * a(j) + 2 * a(j ^ 1)
        out.append(((acc + 101 * t) % 256) ^ s1)
    return out
