"""MLC-LLM's mixture-of-experts operators, ported to TVM 0.27's `relax.frontend.nn` (issue 34).

TVM's `nn` has no MoE operators; MLC-LLM writes its own as TIR and TE functions. These are the
ones its MoE models (Mixtral, Qwen2-MoE, Qwen3-MoE) run in float16 without CUTLASS or
FasterTransformer, which is what an OLMoE build for a plain cuda target runs:

  python/mlc_llm/op/moe_misc.py    gating_topk (the `top{k}` kernel), gating_softmax_topk
                                   (norm_topk_prob=False: softmax in float32, then top-k),
                                   moe_cumsum, get_indices, get_indptr (exclusive, int32),
                                   scatter_output, moe_sum
  python/mlc_llm/op/moe_matmul.py  gemv (one token: the weights of the chosen experts) and
                                   group_gemm (many tokens, rows grouped by expert, scheduled
                                   with s_tir.Schedule as MLC-LLM schedules it)

Read at mlc-ai/mlc-llm 79d603f085f50500e9509fa01785ffa7ecfaaa93. The kernels keep MLC-LLM's
names (`top8`, `get_indices`, `get_expert_instance_indptr`, `scatter_output`, `moe_gemv`,
`group_gemm`, ...) so that a dump reads like MLC-LLM's, and their bodies compute what MLC-LLM's
compute, tile sizes and schedule included; one signature differs (get_indptr's scalar comes
before its output: TVM 0.27's call_tir passes the arguments in order, the outputs last).
`moe_cumsum` is `op.cumsum`: TVM's pipeline lowers it
(DispatchSortScan) to its GPU scan `gpu_2d_continuous_cumsum`, or to `tvm.contrib.thrust.sum_scan`
when the target lists thrust in its libs.
"""

from __future__ import annotations

from functools import reduce

# MLC-LLM's thread count for its one-thread-per-row kernels (top-k, get_indices)
ROW_THREADS = 1024


def top_k(scores, k: int):
    """(values, indices) of the K largest entries of each row of SCORES [n, experts]: one thread
    per row keeps a sorted list of K in registers (MLC-LLM's gating_topk)."""
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    (rows, experts), dtype = scores.shape, scores.dtype
    index_dtype = "int32"

    def reset(values, indices):
        for t in range(k):
            T.buffer_store(values, T.min_value(dtype), indices=[t])
        # MLC-LLM stores at index -1 here (not t); every slot is written by the first K
        # updates anyway, since any value beats min_value
        for t in range(k):
            T.buffer_store(indices, t, indices=[-1])

    def insert(x, values, indices, vi, vk):
        # if x > values[0]: shift down, put at 0; elif x > values[1]: ...; a chain of K ifs
        ifs = [T.If(x[vi, vk] > values[i]) for i in range(k)]
        thens = [T.Then() for _ in range(k)]
        elses = [T.Else() for _ in range(k - 1)]
        for i in range(k):
            ifs[i].__enter__()
            with thens[i]:
                for j in range(k - 1, i, -1):
                    T.buffer_store(values, values[j - 1], indices=[j])
                    T.buffer_store(indices, indices[j - 1], indices=[j])
                T.buffer_store(values, x[vi, vk], indices=[i])
                T.buffer_store(indices, vk, indices=[i])
            if i != k - 1:
                elses[i].__enter__()
        for i in range(k - 1, -1, -1):
            if i != k - 1:
                elses[i].__exit__(None, None, None)
            ifs[i].__exit__(None, None, None)

    @T.prim_func(private=True, s_tir=True)
    def topk_func(var_x: T.handle, var_out: T.handle, var_out_index: T.handle) -> None:
        T.func_attr({"tirx.noalias": True, "tirx.is_scheduled": True})
        batch_size = T.int64()
        x = T.match_buffer(var_x, (batch_size, experts), dtype)
        out = T.match_buffer(var_out, (batch_size, k), dtype)
        out_index = T.match_buffer(var_out_index, (batch_size, k), index_dtype)
        local_top_k = T.sblock_alloc_buffer((k,), dtype=dtype, scope="local")
        local_top_k_index = T.sblock_alloc_buffer((k,), dtype=index_dtype, scope="local")
        for io in T.thread_binding(0, T.ceildiv(batch_size, ROW_THREADS), "blockIdx.x"):
            for ii in T.thread_binding(0, ROW_THREADS, "threadIdx.x"):
                with T.sblock("top_k"):
                    vi = T.axis.spatial(batch_size, io * ROW_THREADS + ii)
                    T.where(io * ROW_THREADS + ii < batch_size)
                    with T.sblock("init"):
                        reset(local_top_k, local_top_k_index)
                    for e in range(experts):
                        with T.sblock("update"):
                            ve = T.axis.remap("S", [e])
                            insert(x, local_top_k, local_top_k_index, vi, ve)
                    for j in T.unroll(k):
                        with T.sblock("output"):
                            vj = T.axis.remap("S", [j])
                            out[vi, vj] = local_top_k[vj]
                            out_index[vi, vj] = local_top_k_index[vj]

    return op.tensor_ir_op(
        topk_func, f"top{k}", args=[scores],
        out=(Tensor.placeholder([rows, k], dtype), Tensor.placeholder([rows, k], index_dtype)))


def softmax_top_k(logits, k: int):
    """The router of a model whose top-k probabilities are not renormalised
    (norm_topk_prob=False, OLMoE's): softmax over all experts in float32, then top_k."""
    from tvm.relax.frontend.nn import op

    probs = op.softmax(logits.astype("float32"), axis=-1).astype(logits.dtype)
    return top_k(probs, k)


def expert_cumsum(expert_indices, experts: int):
    """Inclusive cumsum over the expert-major mask [experts, tokens] (flattened): entry
    (e, t) counts the (expert, token) pairs up to token t of expert e, so rows can be grouped
    by expert (MLC-LLM's moe_cumsum)."""
    from tvm import te, tirx
    from tvm.relax.frontend.nn import op

    tokens, per_token = expert_indices.shape

    def mask(indices):
        return te.compute(
            (tokens, experts),
            lambda t, e: tirx.expr.Select(
                reduce(tirx.Or, [indices[t, j] == e for j in range(per_token)]),
                true_value=tirx.const(1, "int32"), false_value=tirx.const(0, "int32")))

    flat = (op.tensor_expr_op(mask, "expert_mask", args=[expert_indices])
            .permute_dims(1, 0).reshape(tokens * experts))
    return op.cumsum(flat, axis=0, exclusive=False, dtype="int32")


def shuffle_indices(cumsum, expert_indices):
    """(reverse_indices, token_indices), each [tokens * k]: position p of the expert-grouped
    rows holds token token_indices[p], and came from slot reverse_indices[p] of
    [tokens, k] (MLC-LLM's get_indices)."""
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    tokens, per_token = expert_indices.shape

    @T.prim_func(private=True, s_tir=True)
    def indices_func(var_cumsum: T.handle, var_expert_indices: T.handle,
                     var_reverse_indices: T.handle, var_token_indices: T.handle):
        T.func_attr({"tirx.is_scheduled": 1, "tirx.noalias": True})
        batch_size = T.int32()
        cumsum_len = T.int32()
        cumsum = T.match_buffer(var_cumsum, [cumsum_len], "int32")
        expert_indices = T.match_buffer(var_expert_indices, [batch_size, per_token], "int32")
        reverse_indices = T.match_buffer(var_reverse_indices, [batch_size * per_token], "int32")
        token_indices = T.match_buffer(var_token_indices, [batch_size * per_token], "int32")
        for bj_o in T.thread_binding(0, T.ceildiv(batch_size * per_token, ROW_THREADS),
                                     "blockIdx.x"):
            for bj_i in T.thread_binding(0, ROW_THREADS, "threadIdx.x"):
                with T.sblock("indices"):
                    T.reads(expert_indices[:, :], cumsum[:])
                    T.writes(reverse_indices[:], token_indices[:])
                    if bj_o * ROW_THREADS + bj_i < batch_size * per_token:
                        b: T.int32 = T.floordiv(bj_o * ROW_THREADS + bj_i, per_token)
                        j: T.int32 = T.floormod(bj_o * ROW_THREADS + bj_i, per_token)
                        e: T.int32 = expert_indices[b, j]
                        reverse_indices[cumsum[e * batch_size + b] - 1] = b * per_token + j
                        token_indices[cumsum[e * batch_size + b] - 1] = b

    return op.tensor_ir_op(
        indices_func, "get_indices", args=[cumsum, expert_indices],
        out=[Tensor.placeholder([tokens * per_token], "int32") for _ in range(2)])


def expert_indptr(cumsum, experts: int, tokens):
    """indptr [experts + 1], int32: expert e's rows are [indptr[e], indptr[e + 1]) of the
    grouped rows; indptr[0] = 0, indptr[e] = cumsum[e * tokens - 1] (MLC-LLM's get_indptr,
    inclusive=False, the form its TIR group GEMM reads)."""
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    length = experts + 1

    @T.prim_func(private=True, s_tir=True)
    # MLC-LLM's signature is (cumsum, indptr, batch_size); TVM 0.27's call_tir passes its
    # arguments in order, the outputs last, so here the scalar comes before the output
    def indptr_func(var_cumsum: T.handle, batch_size: T.int64, var_indptr: T.handle):
        T.func_attr({"tirx.noalias": True})
        cumsum = T.match_buffer(var_cumsum, shape=[batch_size * experts], dtype="int32")
        indptr = T.match_buffer(var_indptr, shape=[length], dtype="int32")
        for vi in T.serial(0, length):
            with T.sblock("indptr"):
                i = T.axis.spatial(length, vi)
                indptr[i] = T.Select(i > 0, cumsum[i * batch_size - 1], T.int32(0))

    assert cumsum.ndim == 1
    return op.tensor_ir_op(indptr_func, "get_expert_instance_indptr", args=[cumsum, tokens],
                           out=Tensor.placeholder([length], "int32"))


def scatter_rows(x, indices):
    """out[indices[i]] = x[i]: the experts' rows back in (token, slot) order (MLC-LLM's
    scatter_output)."""
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    dtype = x.dtype
    _, hidden = x.shape

    @T.prim_func(private=True, s_tir=True)
    def scatter_func(var_x: T.handle, var_indices: T.handle, var_out: T.handle):
        T.func_attr({"tirx.noalias": True})
        indices_len = T.int64()
        x = T.match_buffer(var_x, [indices_len, hidden], dtype)
        indices = T.match_buffer(var_indices, [indices_len], "int32")
        out = T.match_buffer(var_out, [indices_len, hidden], dtype)
        for i in T.serial(0, indices_len):
            for j in T.serial(0, hidden):
                with T.sblock("scatter"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    out[indices[vi], vj] = x[vi, vj]

    return op.tensor_ir_op(scatter_func, "scatter_output", args=[x, indices],
                           out=Tensor.placeholder(x.shape, dtype))


def sum_over_experts(x):
    """[tokens, k, hidden] -> [tokens, hidden] (MLC-LLM's moe_sum: a reshape for k = 1, a TE
    sum of two for k = 2, op.sum otherwise)."""
    from tvm import te
    from tvm.relax.frontend.nn import op

    if x.shape[1] == 1:
        return x.reshape(x.shape[0], x.shape[2])
    if x.ndim == 3 and x.shape[1] == 2:
        return op.tensor_expr_op(
            lambda x: te.compute((x.shape[0], x.shape[2]),
                                 lambda i, j: x[i, 0, j] + x[i, 1, j], name="sum_2"),
            "sum", args=[x])
    return op.sum(x, axis=1)


def expert_gemv(x, w, experts_of_token):
    """One token: o[e] = x (or x[e]) @ w[experts_of_token[0, e]].T for each of its k experts
    (MLC-LLM's moe_matmul.gemv; left to dlight's schedule, op_pattern kOutEWiseFusable)."""
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    (experts, out_features, in_features), dtype = w.shape, w.dtype
    _, per_token = experts_of_token.shape
    x_rows, _ = x.shape
    assert x.dtype == dtype and experts_of_token.dtype == "int32"
    assert x_rows in (1, per_token)

    def x_at(x, e, j):
        return x[0, j] if x_rows == 1 else x[e, j]

    index = "int32"  # a name, not a string in the annotation (which pyflakes reads as one)

    @T.prim_func(private=True, s_tir=True)
    def gemv_func(x: T.Buffer((x_rows, in_features), dtype),
                  w: T.Buffer((experts, out_features, in_features), dtype),
                  indptr: T.Buffer((1, per_token), index),
                  o: T.Buffer((per_token, out_features), dtype)):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        for e in T.thread_binding(per_token, thread="blockIdx.y"):
            with T.sblock("gemv_o"):
                e = T.axis.spatial(per_token, e)
                T.reads(x[:, :], w[indptr[0, e], :, :], indptr[0, e])
                T.writes(o[e, :])
                for i1, i2 in T.grid(out_features, in_features):
                    with T.sblock("gemv"):
                        i, j = T.axis.remap("SR", [i1, i2])
                        with T.init():
                            o[e, i] = T.cast(T.float16(0), dtype)
                        o[e, i] += x_at(x, e, j) * w[indptr[0, e], i, j]

    return op.tensor_ir_op(gemv_func, "moe_gemv", args=[x, w, experts_of_token],
                           out=Tensor.placeholder([per_token, out_features], dtype))


# MLC-LLM's group GEMM tiling: 8 x 128 output tiles, K in steps of 32, 8 x 32 threads, a
# persistent grid of 1024 blocks walking the tiles of every expert in turn
BLK_M, BLK_N, BLK_K = 8, 128, 32
TX, TY, CTA_COUNT = 8, 32, 1024
UNROLL = 64


def group_gemm(x, w, indptr):
    """out[r] = x[r] @ w[e].T for the rows r in [indptr[e], indptr[e + 1]) of each expert e
    (MLC-LLM's moe_matmul.group_gemm, its TIR and its schedule)."""
    from tvm import s_tir, tirx
    from tvm.relax.frontend.nn import Tensor, op
    from tvm.script import tirx as T

    (experts, n, k_dim), dtype = w.shape, w.dtype
    assert x.shape[1:] == [k_dim] and x.dtype == dtype
    assert indptr.shape == [experts + 1] and indptr.dtype == "int32"
    tiles_per_row = (n + BLK_N - 1) // BLK_N
    zero = tirx.const(0, dtype)

    @T.prim_func(private=True, s_tir=True)
    def gemm_func(var_x: T.handle, var_w: T.handle, var_indptr: T.handle, var_o: T.handle):
        T.func_attr({"tirx.is_scheduled": 1, "tirx.noalias": True})
        B = T.int32()
        X = T.match_buffer(var_x, (B, k_dim), dtype)
        W = T.match_buffer(var_w, (experts, n, k_dim), dtype)
        indptr = T.match_buffer(var_indptr, (experts + 1,), "int32")
        out = T.match_buffer(var_o, (B, n), dtype)

        for _bx in T.thread_binding(CTA_COUNT, thread="blockIdx.x"):
            with T.sblock("CTA"):
                bx = T.axis.spatial(CTA_COUNT, _bx)
                T.reads(indptr[:], X[:, :], W[:, :, :])
                T.writes(out[:, :])
                sum = T.sblock_alloc_buffer((2,), "int32", scope="local")
                row = T.sblock_alloc_buffer((2,), "int32", scope="local")
                cur_e = T.sblock_alloc_buffer((1,), "int32", scope="local")
                tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                sum[0] = 0
                sum[1] = T.ceildiv(indptr[1] - indptr[0], BLK_M) * tiles_per_row
                row[0] = 0
                row[1] = indptr[1] - indptr[0]
                cur_e[0] = 0
                tile_id[0] = bx
                while T.tvm_thread_invariant(cur_e[0] < experts):
                    # advance to the expert whose tiles hold tile_id
                    while sum[1] <= tile_id[0] and cur_e[0] < experts:
                        cur_e[0] += 1
                        if cur_e[0] < experts:
                            e: T.int32 = cur_e[0]
                            delta: T.int32 = indptr[e + 1] - indptr[e]
                            sum[0] = sum[1]
                            sum[1] += T.ceildiv(delta, BLK_M) * tiles_per_row
                            row[0] = row[1]
                            row[1] += delta
                    # every thread of the block must agree on the tile
                    T.tvm_storage_sync("shared")
                    if T.tvm_thread_invariant(cur_e[0] < experts):
                        e: T.int32 = cur_e[0]
                        num_tiles: T.int32 = tile_id[0] - sum[0]
                        m_offset: T.int32 = BLK_M * T.floordiv(num_tiles, tiles_per_row) + row[0]
                        n_offset: T.int32 = BLK_N * T.floormod(num_tiles, tiles_per_row)
                        with T.sblock("gemm"):
                            T.reads(row[1], X[m_offset:m_offset + BLK_M, :],
                                    W[e, n_offset:n_offset + BLK_N, :])
                            T.writes(out[m_offset:m_offset + BLK_M, n_offset:n_offset + BLK_N])
                            X_tile = T.sblock_alloc_buffer((BLK_M, k_dim), dtype, scope="shared")
                            W_tile = T.sblock_alloc_buffer((BLK_N, k_dim), dtype, scope="shared")
                            O_tile = T.sblock_alloc_buffer((BLK_M, BLK_N), dtype, scope="local")
                            for a0, a1 in T.grid(BLK_M, k_dim):
                                with T.sblock("X_shared"):
                                    i, j = T.axis.remap("SS", [a0, a1])
                                    X_tile[i, j] = T.if_then_else(
                                        m_offset + i < row[1], X[m_offset + i, j], zero)
                            for a0, a1 in T.grid(BLK_N, k_dim):
                                with T.sblock("W_shared"):
                                    i, j = T.axis.remap("SS", [a0, a1])
                                    W_tile[i, j] = T.if_then_else(
                                        n_offset + i < n, W[e, n_offset + i, j], zero)
                            for a0, a1, a2 in T.grid(BLK_M, BLK_N, k_dim):
                                with T.sblock("compute"):
                                    i, j, kk = T.axis.remap("SSR", [a0, a1, a2])
                                    with T.init():
                                        O_tile[i, j] = zero
                                    O_tile[i, j] += X_tile[i, kk] * W_tile[j, kk]
                            for a0, a1 in T.grid(BLK_M, BLK_N):
                                with T.sblock("store"):
                                    i, j = T.axis.remap("SS", [a0, a1])
                                    if m_offset + i < row[1] and n_offset + j < n:
                                        out[m_offset + i, n_offset + j] = O_tile[i, j]
                    tile_id[0] += CTA_COUNT

    sch = s_tir.Schedule(gemm_func)
    main = sch.get_sblock("compute")
    mi, ni, ki = sch.get_loops(main)
    ty, n_inner = sch.split(ni, [TY, None])
    tx, m_inner, vec = sch.split(mi, [TX, None, 1])
    k_outer, k_inner = sch.split(ki, factors=[None, BLK_K])
    sch.reorder(ty, tx, k_outer, k_inner, n_inner, m_inner, vec)
    sch.bind(ty, "threadIdx.y")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(vec)
    sch.annotate(tx, ann_key="pragma_auto_unroll_max_step", ann_val=UNROLL)
    sch.annotate(tx, ann_key="pragma_unroll_explicit", ann_val=1)
    store = sch.get_sblock("store")
    sch.reverse_compute_at(store, tx, preserve_unit_loops=True)
    _, store_vec = sch.split(sch.get_loops(store)[-1], [None, 1])
    sch.vectorize(store_vec)
    for name in ("X_shared", "W_shared"):
        # each tile is fetched by all TY x TX threads together, within the K loop
        block = sch.get_sblock(name)
        loops = len(sch.get_loops(block))
        sch.compute_at(block, k_outer, preserve_unit_loops=True)
        f_ty, f_tx, _, f_vec = sch.split(sch.fuse(*sch.get_loops(block)[-loops:]),
                                         factors=[TY, TX, None, 1])
        sch.vectorize(f_vec)
        sch.bind(f_ty, "threadIdx.y")
        sch.bind(f_tx, "threadIdx.x")
    sch.decompose_reduction(main, k_outer)

    return op.tensor_ir_op(sch.mod["main"], "group_gemm", args=[x, w, indptr],
                           out=Tensor.placeholder([x.shape[0], n], dtype))
