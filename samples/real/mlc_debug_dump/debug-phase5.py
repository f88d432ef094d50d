# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

pages_elem_offset = TypeVar("pages_elem_offset")
page_size = TypeVar("page_size")
seq_len = TypeVar("seq_len")
batch_size = TypeVar("batch_size")
num_pages = TypeVar("num_pages")
position_map_elem_offset = TypeVar("position_map_elem_offset")
seqlen = TypeVar("seqlen")
ntoken = TypeVar("ntoken")
max_batch_size = TypeVar("max_batch_size")
max_total_seq_len = TypeVar("max_total_seq_len")
prefill_chunk_size = TypeVar("prefill_chunk_size")
support_sliding_window = TypeVar("support_sliding_window")
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def batch_decode_paged_kv(Q: T.Buffer(("B", 32, 64), "float16"), pages: T.Buffer(("max_num_pages", 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), page_table_indptr: T.Buffer((B + 1,), "int32", offset_factor=1), page_table_values: T.Buffer(("nnz_pages",), "int32", offset_factor=1), length_info: T.Buffer((B,), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((B,), "int32", offset_factor=1), q_rope_position: T.Buffer((B,), "int32", offset_factor=1), output: T.Buffer((B, 32, 64), "float16"), lse: T.Buffer((B, 32), "float32"), rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        B = T.int32()
        max_num_pages = T.int32()
        nnz_pages = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for bx in T.thread_binding(B, thread="blockIdx.x"):
            for fused_by_bz in T.thread_binding(8, thread="blockIdx.y"):
                for ty in T.thread_binding(4, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        for tz in T.thread_binding(8, thread="threadIdx.z"):
                            with T.sblock("attn"):
                                T.reads(page_table_indptr[bx:bx + 2], length_info[bx], q_rope_position[bx], Q[bx, fused_by_bz // 8 * 4 + fused_by_bz % 8 * 4 + ty, tx * 4 - 32:tx * 4 - 32 + 68])
                                T.writes(output[bx, fused_by_bz % 8 * 4 + fused_by_bz // 8 * 4 + ty, tx * 4:tx * 4 + 4], lse[bx, fused_by_bz % 8 * 4 + fused_by_bz // 8 * 4 + ty])
                                Q_local = T.sblock_alloc_buffer((4,), "float16", scope="local")
                                kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                                K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                                V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                                O_allreduce = T.sblock_alloc_buffer((8, 4, 64), scope="shared")
                                md_allreduce = T.sblock_alloc_buffer((8, 4, 2), scope="shared")
                                S_reduce_local = T.sblock_alloc_buffer((1,), scope="local")
                                t0 = T.sblock_alloc_buffer((1,), scope="local")
                                S_local = T.sblock_alloc_buffer((4,), scope="local")
                                QK_local = T.sblock_alloc_buffer((4,), scope="local")
                                V_local = T.sblock_alloc_buffer((4,), "float16", scope="local")
                                m_prev = T.sblock_alloc_buffer((1,), scope="local")
                                d_prev = T.sblock_alloc_buffer((1,), scope="local")
                                other_m = T.sblock_alloc_buffer((1,), scope="local")
                                other_d = T.sblock_alloc_buffer((1,), scope="local")
                                exp_mprev = T.sblock_alloc_buffer((1,), scope="local")
                                exp_otherm = T.sblock_alloc_buffer((1,), scope="local")
                                other_o = T.sblock_alloc_buffer((4,), scope="local")
                                st_m = T.sblock_alloc_buffer((1,), scope="local")
                                st_d = T.sblock_alloc_buffer((1,), scope="local")
                                O_local = T.sblock_alloc_buffer((4,), scope="local")
                                by: T.let[T.int32] = fused_by_bz % 8
                                bz: T.let[T.int32] = fused_by_bz // 8
                                batch_idx: T.let[T.int32] = bx
                                cur_page_indptr_begin: T.let[T.int32] = page_table_indptr[batch_idx]
                                cur_page_indptr_end: T.let[T.int32] = page_table_indptr[batch_idx + 1]
                                kv_chunk_len[0] = T.if_then_else(cur_page_indptr_begin != cur_page_indptr_end, (cur_page_indptr_end - cur_page_indptr_begin - 1) * 16 + length_info[batch_idx], 0)
                                st_m[0] = T.float32(-50000.0)
                                st_d[0] = T.float32(1.0)
                                for vec in T.vectorized(4):
                                    O_local[vec] = T.float32(0.0)
                                for vec in T.vectorized(4):
                                    freq = T.float32()
                                    Q_local[vec] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec]) + T.sin(freq) * T.Cast("float32", T.if_then_else(tx * 4 + vec < 32, Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec + 32] * T.float16(-1.0), Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec - 32]))), where={freq: T.Cast("float32", q_rope_position[batch_idx]) * rope_scale / T.pow(rope_theta, T.Cast("float32", (tx * 4 + vec) * 2 % 64) / T.float32(64.0))}), Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec])
                                for iterator in range((kv_chunk_len[0] + 31) // 32):
                                    tile_start_s: T.let[T.int32] = tz * 4 + ty
                                    tile_start_g: T.let[T.int32] = (iterator * 8 + tz) * 4 + ty
                                    for j in range(1):
                                        with T.sblock("KV_load"):
                                            T.reads()
                                            T.writes()
                                            row_g: T.let[T.int32] = tile_start_g + j
                                            if row_g < kv_chunk_len[0]:
                                                seq_offset: T.let[T.int32] = row_g
                                                page_no: T.let[T.int32] = page_table_values[cur_page_indptr_begin + seq_offset // 16]
                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                for vec in T.vectorized(4):
                                                    freq = T.float32()
                                                    K_smem[tile_start_s + j, tx * 4 + vec] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", pages[page_no, 0, by, page_offset, tx * 4 + vec]) + T.sin(freq) * T.Cast("float32", T.if_then_else(tx * 4 + vec < 32, pages[page_no, 0, by, page_offset, tx * 4 + vec + 32] * T.float16(-1.0), pages[page_no, 0, by, page_offset, tx * 4 + vec - 32]))), where={freq: T.Cast("float32", k_rope_pos_offset[batch_idx] + row_g) * rope_scale / T.pow(rope_theta, T.Cast("float32", (tx * 4 + vec) * 2 % 64) / T.float32(64.0))}), pages[page_no, 0, by, page_offset, tx * 4 + vec])
                                                    V_smem[tile_start_s + j, tx * 4 + vec] = pages[page_no, 1, by, page_offset, tx * 4 + vec]
                                            else:
                                                for vec in T.vectorized(4):
                                                    K_smem[tile_start_s + j, tx * 4 + vec] = T.float16(0.0)
                                                    V_smem[tile_start_s + j, tx * 4 + vec] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    m_prev[0] = st_m[0]
                                    for j in range(4):
                                        for vec in T.vectorized(4):
                                            QK_local[vec] = T.Cast("float32", Q_local[vec]) * T.Cast("float32", K_smem[tz * 4 + j, tx * 4 + vec]) * sm_scale * T.float32(1.4426950408889634)
                                        S_reduce_local[0] = T.float32(0.0)
                                        for vec in T.unroll(4):
                                            S_reduce_local[0] = S_reduce_local[0] + QK_local[vec]
                                        with T.sblock("block_cross_thread"):
                                            T.reads(S_reduce_local[0])
                                            T.writes(t0[0])
                                            T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]), "reduce_scope", 0)
                                            T.tvm_thread_allreduce(T.uint32(1), S_reduce_local[0], T.bool(True), t0[0], tx)
                                        S_local[j] = T.float32(-50000.0)
                                        if (iterator * 8 + tz) * 4 + j < kv_chunk_len[0]:
                                            S_local[j] = t0[0]
                                        st_m[0] = T.max(st_m[0], S_local[j])
                                    o_scale: T.let[T.float32] = T.exp2(m_prev[0] - st_m[0])
                                    st_d[0] = st_d[0] * o_scale
                                    for j in range(4):
                                        S_local[j] = T.exp2(S_local[j] - st_m[0])
                                        st_d[0] = st_d[0] + S_local[j]
                                    for j in T.vectorized(4):
                                        O_local[j] = O_local[j] * o_scale
                                    for j in range(4):
                                        for vec in T.vectorized(4):
                                            V_local[vec] = V_smem[tz * 4 + j, tx * 4 + vec]
                                        for vec in T.vectorized(4):
                                            O_local[vec] = O_local[vec] + T.Cast("float32", V_local[vec]) * S_local[j]
                                for vec in T.vectorized(4):
                                    O_allreduce[tz, ty, tx * 4 + vec] = O_local[vec]
                                md_allreduce[tz, ty, 0] = st_m[0]
                                md_allreduce[tz, ty, 1] = st_d[0]
                                T.tvm_storage_sync("shared", T.bool(False), -1)
                                st_m[0] = T.float32(-50000.0)
                                st_d[0] = T.float32(1.0)
                                for vec in T.vectorized(4):
                                    O_local[vec] = T.float32(0.0)
                                for j in range(8):
                                    m_prev[0] = st_m[0]
                                    d_prev[0] = st_d[0]
                                    other_m[0] = md_allreduce[j, ty, 0]
                                    other_d[0] = md_allreduce[j, ty, 1]
                                    for vec in T.vectorized(4):
                                        other_o[vec] = O_allreduce[j, ty, tx * 4 + vec]
                                    st_m[0] = T.max(st_m[0], other_m[0])
                                    st_d[0] = d_prev[0] * T.exp2(m_prev[0] - st_m[0]) + other_d[0] * T.exp2(other_m[0] - st_m[0])
                                    exp_mprev[0] = T.exp2(m_prev[0] - st_m[0])
                                    exp_otherm[0] = T.exp2(other_m[0] - st_m[0])
                                    for vec in T.vectorized(4):
                                        O_local[vec] = O_local[vec] * exp_mprev[0] + other_o[vec] * exp_otherm[0]
                                for vec in T.vectorized(4):
                                    O_local[vec] = O_local[vec] / st_d[0]
                                for vec in T.vectorized(4):
                                    output[batch_idx, by * 4 + bz * 4 + ty, tx * 4 + vec] = T.Cast("float16", O_local[vec])
                                lse[batch_idx, by * 4 + bz * 4 + ty] = st_m[0] + T.log2(st_d[0])

    @T.prim_func(s_tir=True)
    def batch_decode_paged_kv_sliding_window(Q: T.Buffer(("B", 32, 64), "float16"), pages: T.Buffer(("max_num_pages", 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), page_table_indptr: T.Buffer((B + 1,), "int32", offset_factor=1), page_table_values: T.Buffer(("nnz_pages",), "int32", offset_factor=1), length_info: T.Buffer((3, B), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((B,), "int32", offset_factor=1), q_rope_position: T.Buffer((B,), "int32", offset_factor=1), output: T.Buffer((B, 32, 64), "float16"), lse: T.Buffer((B, 32), "float32"), rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        B = T.int32()
        max_num_pages = T.int32()
        nnz_pages = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for bx in T.thread_binding(B, thread="blockIdx.x"):
            for fused_by_bz in T.thread_binding(8, thread="blockIdx.y"):
                for ty in T.thread_binding(4, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        for tz in T.thread_binding(8, thread="threadIdx.z"):
                            with T.sblock("attn"):
                                T.reads(page_table_indptr[bx:bx + 2], length_info[0:3, bx], q_rope_position[bx], Q[bx, fused_by_bz // 8 * 4 + fused_by_bz % 8 * 4 + ty, tx * 4 - 32:tx * 4 - 32 + 68])
                                T.writes(output[bx, fused_by_bz % 8 * 4 + fused_by_bz // 8 * 4 + ty, tx * 4:tx * 4 + 4], lse[bx, fused_by_bz % 8 * 4 + fused_by_bz // 8 * 4 + ty])
                                Q_local = T.sblock_alloc_buffer((4,), "float16", scope="local")
                                kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                                K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                                V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                                O_allreduce = T.sblock_alloc_buffer((8, 4, 64), scope="shared")
                                md_allreduce = T.sblock_alloc_buffer((8, 4, 2), scope="shared")
                                S_reduce_local = T.sblock_alloc_buffer((1,), scope="local")
                                t0 = T.sblock_alloc_buffer((1,), scope="local")
                                S_local = T.sblock_alloc_buffer((4,), scope="local")
                                QK_local = T.sblock_alloc_buffer((4,), scope="local")
                                V_local = T.sblock_alloc_buffer((4,), "float16", scope="local")
                                m_prev = T.sblock_alloc_buffer((1,), scope="local")
                                d_prev = T.sblock_alloc_buffer((1,), scope="local")
                                other_m = T.sblock_alloc_buffer((1,), scope="local")
                                other_d = T.sblock_alloc_buffer((1,), scope="local")
                                exp_mprev = T.sblock_alloc_buffer((1,), scope="local")
                                exp_otherm = T.sblock_alloc_buffer((1,), scope="local")
                                other_o = T.sblock_alloc_buffer((4,), scope="local")
                                st_m = T.sblock_alloc_buffer((1,), scope="local")
                                st_d = T.sblock_alloc_buffer((1,), scope="local")
                                O_local = T.sblock_alloc_buffer((4,), scope="local")
                                by: T.let[T.int32] = fused_by_bz % 8
                                bz: T.let[T.int32] = fused_by_bz // 8
                                batch_idx: T.let[T.int32] = bx
                                cur_page_indptr_begin: T.let[T.int32] = page_table_indptr[batch_idx]
                                cur_page_indptr_end: T.let[T.int32] = page_table_indptr[batch_idx + 1]
                                kv_chunk_len[0] = T.if_then_else(cur_page_indptr_begin != cur_page_indptr_end, (cur_page_indptr_end - cur_page_indptr_begin - 1) * 16 + length_info[0, batch_idx] - length_info[1, batch_idx] + length_info[2, batch_idx], 0)
                                st_m[0] = T.float32(-50000.0)
                                st_d[0] = T.float32(1.0)
                                for vec in T.vectorized(4):
                                    O_local[vec] = T.float32(0.0)
                                for vec in T.vectorized(4):
                                    freq = T.float32()
                                    Q_local[vec] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec]) + T.sin(freq) * T.Cast("float32", T.if_then_else(tx * 4 + vec < 32, Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec + 32] * T.float16(-1.0), Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec - 32]))), where={freq: T.Cast("float32", q_rope_position[batch_idx]) * rope_scale / T.pow(rope_theta, T.Cast("float32", (tx * 4 + vec) * 2 % 64) / T.float32(64.0))}), Q[bx, by * 4 + bz * 4 + ty, tx * 4 + vec])
                                for iterator in range((kv_chunk_len[0] + 31) // 32):
                                    tile_start_s: T.let[T.int32] = tz * 4 + ty
                                    tile_start_g: T.let[T.int32] = (iterator * 8 + tz) * 4 + ty
                                    for j in range(1):
                                        with T.sblock("KV_load"):
                                            T.reads()
                                            T.writes()
                                            row_g: T.let[T.int32] = tile_start_g + j
                                            if row_g < kv_chunk_len[0]:
                                                seq_offset: T.let[T.int32] = T.if_then_else(row_g < length_info[2, batch_idx], row_g, row_g - length_info[2, batch_idx] + length_info[1, batch_idx])
                                                page_no: T.let[T.int32] = page_table_values[cur_page_indptr_begin + seq_offset // 16]
                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                for vec in T.vectorized(4):
                                                    freq = T.float32()
                                                    K_smem[tile_start_s + j, tx * 4 + vec] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", pages[page_no, 0, by, page_offset, tx * 4 + vec]) + T.sin(freq) * T.Cast("float32", T.if_then_else(tx * 4 + vec < 32, pages[page_no, 0, by, page_offset, tx * 4 + vec + 32] * T.float16(-1.0), pages[page_no, 0, by, page_offset, tx * 4 + vec - 32]))), where={freq: T.Cast("float32", k_rope_pos_offset[batch_idx] + row_g) * rope_scale / T.pow(rope_theta, T.Cast("float32", (tx * 4 + vec) * 2 % 64) / T.float32(64.0))}), pages[page_no, 0, by, page_offset, tx * 4 + vec])
                                                    V_smem[tile_start_s + j, tx * 4 + vec] = pages[page_no, 1, by, page_offset, tx * 4 + vec]
                                            else:
                                                for vec in T.vectorized(4):
                                                    K_smem[tile_start_s + j, tx * 4 + vec] = T.float16(0.0)
                                                    V_smem[tile_start_s + j, tx * 4 + vec] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    m_prev[0] = st_m[0]
                                    for j in range(4):
                                        for vec in T.vectorized(4):
                                            QK_local[vec] = T.Cast("float32", Q_local[vec]) * T.Cast("float32", K_smem[tz * 4 + j, tx * 4 + vec]) * sm_scale * T.float32(1.4426950408889634)
                                        S_reduce_local[0] = T.float32(0.0)
                                        for vec in T.unroll(4):
                                            S_reduce_local[0] = S_reduce_local[0] + QK_local[vec]
                                        with T.sblock("block_cross_thread"):
                                            T.reads(S_reduce_local[0])
                                            T.writes(t0[0])
                                            T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]), "reduce_scope", 0)
                                            T.tvm_thread_allreduce(T.uint32(1), S_reduce_local[0], T.bool(True), t0[0], tx)
                                        S_local[j] = T.float32(-50000.0)
                                        if (iterator * 8 + tz) * 4 + j < kv_chunk_len[0]:
                                            S_local[j] = t0[0]
                                        st_m[0] = T.max(st_m[0], S_local[j])
                                    o_scale: T.let[T.float32] = T.exp2(m_prev[0] - st_m[0])
                                    st_d[0] = st_d[0] * o_scale
                                    for j in range(4):
                                        S_local[j] = T.exp2(S_local[j] - st_m[0])
                                        st_d[0] = st_d[0] + S_local[j]
                                    for j in T.vectorized(4):
                                        O_local[j] = O_local[j] * o_scale
                                    for j in range(4):
                                        for vec in T.vectorized(4):
                                            V_local[vec] = V_smem[tz * 4 + j, tx * 4 + vec]
                                        for vec in T.vectorized(4):
                                            O_local[vec] = O_local[vec] + T.Cast("float32", V_local[vec]) * S_local[j]
                                for vec in T.vectorized(4):
                                    O_allreduce[tz, ty, tx * 4 + vec] = O_local[vec]
                                md_allreduce[tz, ty, 0] = st_m[0]
                                md_allreduce[tz, ty, 1] = st_d[0]
                                T.tvm_storage_sync("shared", T.bool(False), -1)
                                st_m[0] = T.float32(-50000.0)
                                st_d[0] = T.float32(1.0)
                                for vec in T.vectorized(4):
                                    O_local[vec] = T.float32(0.0)
                                for j in range(8):
                                    m_prev[0] = st_m[0]
                                    d_prev[0] = st_d[0]
                                    other_m[0] = md_allreduce[j, ty, 0]
                                    other_d[0] = md_allreduce[j, ty, 1]
                                    for vec in T.vectorized(4):
                                        other_o[vec] = O_allreduce[j, ty, tx * 4 + vec]
                                    st_m[0] = T.max(st_m[0], other_m[0])
                                    st_d[0] = d_prev[0] * T.exp2(m_prev[0] - st_m[0]) + other_d[0] * T.exp2(other_m[0] - st_m[0])
                                    exp_mprev[0] = T.exp2(m_prev[0] - st_m[0])
                                    exp_otherm[0] = T.exp2(other_m[0] - st_m[0])
                                    for vec in T.vectorized(4):
                                        O_local[vec] = O_local[vec] * exp_mprev[0] + other_o[vec] * exp_otherm[0]
                                for vec in T.vectorized(4):
                                    O_local[vec] = O_local[vec] / st_d[0]
                                for vec in T.vectorized(4):
                                    output[batch_idx, by * 4 + bz * 4 + ty, tx * 4 + vec] = T.Cast("float16", O_local[vec])
                                lse[batch_idx, by * 4 + bz * 4 + ty] = st_m[0] + T.log2(st_d[0])

    @T.prim_func(s_tir=True)
    def batch_prefill_paged_kv(q: T.Buffer(("total_len", 32, 64), "float16"), q_indptr: T.Buffer(("batch_size + 1",), "int32", offset_factor=1), pages: T.Buffer(("max_num_pages", 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), page_indptr: T.Buffer((batch_size + 1,), "int32", offset_factor=1), page_values: T.Buffer(("nnz_pages",), "int32", offset_factor=1), length_info: T.Buffer((batch_size,), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((batch_size,), "int32", offset_factor=1), q_rope_position: T.Buffer((total_len,), "int32", offset_factor=1), output: T.Buffer((total_len, 32, 64), "float16"), lse: T.Buffer((total_len, 32), "float32"), causal: T.int32, rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        total_len = T.int32()
        batch_size = T.int32()
        max_num_pages = T.int32()
        nnz_pages = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for lbx in T.thread_binding(16, thread="blockIdx.x"):
            for lby in T.thread_binding(8, thread="blockIdx.y"):
                for lty in T.thread_binding(4, thread="threadIdx.y"):
                    for ltx in T.thread_binding(32, thread="threadIdx.x"):
                        with T.sblock("attn"):
                            bx, by, ty, tx = T.axis.remap("SSSS", [lbx, lby, lty, ltx])
                            T.reads()
                            T.writes()
                            tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_idx = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_tiles = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_rows = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            iterator = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            Q_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            O_local = T.sblock_alloc_buffer((32, 64), scope="local")
                            S_smem = T.sblock_alloc_buffer((32, 32), scope="shared")
                            S_local = T.sblock_alloc_buffer((32, 32), scope="local")
                            m_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_prev_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            d_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_new = T.sblock_alloc_buffer((1,), scope="local")
                            m_prev = T.sblock_alloc_buffer((1,), scope="local")
                            d_new = T.sblock_alloc_buffer((1,), scope="local")
                            tile_id[0] = bx
                            batch_idx[0] = 0
                            batch_rows[0] = (q_indptr[1] - q_indptr[0]) * 4
                            batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                            while T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                while tile_id[0] >= batch_tiles[0] and batch_idx[0] < batch_size:
                                    tile_id[0] = tile_id[0] - batch_tiles[0]
                                    batch_idx[0] = batch_idx[0] + 1
                                    if batch_idx[0] < batch_size:
                                        b_idx: T.let[T.int32] = batch_idx[0]
                                        batch_rows[0] = (q_indptr[b_idx + 1] - q_indptr[b_idx]) * 4
                                        batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                                if T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                    b_idx: T.let[T.int32] = batch_idx[0]
                                    LH_start: T.let[T.int32] = tile_id[0] * 32
                                    q_indptr_val: T.let[T.int32] = q_indptr[b_idx]
                                    cur_page_indptr_begin: T.let[T.int32] = page_indptr[b_idx]
                                    cur_page_indptr_end: T.let[T.int32] = page_indptr[b_idx + 1]
                                    kv_chunk_len[0] = T.if_then_else(cur_page_indptr_begin != cur_page_indptr_end, (cur_page_indptr_end - cur_page_indptr_begin - 1) * 16 + length_info[b_idx], 0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for i in range(1):
                                        row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                        if row < 32:
                                            m_smem[row] = T.float32(-50000.0)
                                            d_smem[row] = T.float32(1.0)
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads()
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = T.float32(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for li_1_lj_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_1_lj_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_0, lj_0_0 in T.grid(2, 2):
                                                for lj_1 in T.vectorized(4):
                                                    with T.sblock("Q_load"):
                                                        i = T.axis.spatial(32, li_0 * 16 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) // 8)
                                                        j = T.axis.spatial(64, lj_0_0 * 32 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) % 8 * 4 + lj_1)
                                                        T.reads()
                                                        T.writes()
                                                        cur_L: T.let[T.int32] = q_indptr_val + (LH_start + i) // 4
                                                        cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                        if cur_L < q_indptr[b_idx + 1]:
                                                            freq = T.float32()
                                                            Q_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", q[cur_L, cur_H_qo, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, q[cur_L, cur_H_qo, j + 32] * T.float16(-1.0), q[cur_L, cur_H_qo, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), q[cur_L, cur_H_qo, j])
                                                        else:
                                                            Q_smem[i, j] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for iterator_1 in range((kv_chunk_len[0] + 31) // 32):
                                        L_kv_start: T.let[T.int32] = iterator_1 * 32
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("K_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = cur_L
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                freq = T.float32()
                                                                K_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", pages[page_no, 0, by, page_offset, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, pages[page_no, 0, by, page_offset, j + 32] * T.float16(-1.0), pages[page_no, 0, by, page_offset, j - 32]))), where={freq: T.Cast("float32", k_rope_pos_offset[b_idx] + cur_L) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), pages[page_no, 0, by, page_offset, j])
                                                            else:
                                                                K_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("V_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = cur_L
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                V_smem[i, j] = pages[page_no, 1, by, page_offset, j]
                                                            else:
                                                                V_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(Q_smem[0:32, 0:64], K_smem[0:32, 0:64])
                                            T.writes(S_local[0:32, 0:32])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(2):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("S_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 8 * 2 + li_1_init)
                                                                    j = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 8 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(S_local[i, j])
                                                                    S_local[i, j] = T.float32(0.0)
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0 in range(4):
                                                        for li_1 in T.unroll(2):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    for lk_1 in range(16):
                                                                        with T.sblock("S_gemm_update"):
                                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                            k = T.axis.reduce(64, lk_0 * 16 + lk_1)
                                                                            T.reads(S_local[i, j], Q_smem[i, k], K_smem[j, k])
                                                                            T.writes(S_local[i, j])
                                                                            S_local[i, j] = S_local[i, j] + T.Cast("float32", Q_smem[i, k]) * T.Cast("float32", K_smem[j, k]) * sm_scale * T.float32(1.4426950408889634)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_1 in range(2):
                                                    for lj_1_0 in T.unroll(1):
                                                        for lj_1_1 in T.vectorized(4):
                                                            with T.sblock("S_store"):
                                                                i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                T.reads(S_local[i, j])
                                                                T.writes(S_smem[i, j])
                                                                S_smem[i, j] = S_local[i, j]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update1"):
                                                    T.reads(m_smem[row], kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], m_new[i], S_smem[row, 0:32], d_smem[row], m_prev[i])
                                                    T.writes(m_prev[i], m_new[i], d_new[i])
                                                    m_prev[i] = m_smem[row]
                                                    m_new[i] = m_smem[row]
                                                    row_: T.let[T.int32] = (LH_start + row) // 4
                                                    for j in range(32):
                                                        if T.if_then_else(T.And(causal > 0, T.bool(False)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(0 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            m_new[i] = T.max(m_new[i], S_smem[row, j])
                                                    d_new[i] = d_smem[row] * T.exp2(m_prev[i] - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            with T.sblock("update"):
                                                T.reads(kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], S_smem[row, 0:32], m_new[i])
                                                T.writes(S_smem[row, 0:32])
                                                for j in range(32):
                                                    if row < 32:
                                                        row_: T.let[T.int32] = (LH_start + row) // 4
                                                        if T.if_then_else(T.And(causal > 0, T.bool(False)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(0 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            S_smem[row, j] = T.exp2(S_smem[row, j] - m_new[i])
                                                        else:
                                                            S_smem[row, j] = T.exp2(T.float32(-50000.0) - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update"):
                                                    T.reads(d_new[i], S_smem[row, 0:32], m_new[i], m_prev[i])
                                                    T.writes(d_new[i], m_smem[row], d_smem[row], m_prev_smem[row])
                                                    for j in range(32):
                                                        d_new[i] = d_new[i] + S_smem[row, j]
                                                    m_smem[row] = m_new[i]
                                                    d_smem[row] = d_new[i]
                                                    m_prev_smem[row] = m_prev[i]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(m_prev_smem[0:32], m_smem[0:32], S_smem[0:32, 0:32], V_smem[0:32, 0:64])
                                            T.writes(O_local[0:32, 0:64])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(4):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("O_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 16 * 4 + li_1_init)
                                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 16 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(O_local[i, j])
                                                                    O_local[i, j] = O_local[i, j] * T.exp2(m_prev_smem[i] - m_smem[i])
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, lk_1 in T.grid(2, 16):
                                                        for li_1 in T.unroll(4):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    with T.sblock("O_gemm_update"):
                                                                        i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                                        j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                        k = T.axis.reduce(32, lk_0 * 16 + lk_1)
                                                                        T.reads(O_local[i, j], m_prev_smem[i], m_smem[i], S_smem[i, k], V_smem[k, j])
                                                                        T.writes(O_local[i, j])
                                                                        O_local[i, j] = O_local[i, j] + S_smem[i, k] * T.Cast("float32", V_smem[k, j])
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_store"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads(q_indptr[b_idx:b_idx + 2], O_local[i, j], d_smem[i])
                                                            T.writes(output[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4, j])
                                                            cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                            cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                            if cur_L < q_indptr[b_idx + 1]:
                                                                output[cur_L, cur_H_qo, j] = T.Cast("float16", O_local[i, j] / d_smem[i])
                                    for li_0 in range(1):
                                        for li_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                with T.sblock("lse_store"):
                                                    i = T.axis.spatial(32, li_0 * 128 + li_1 * 32 + li_2)
                                                    T.where((li_0 * 4 + li_1) * 32 + li_2 < 32)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], m_smem[i], d_smem[i])
                                                    T.writes(lse[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        lse[cur_L, cur_H_qo] = m_smem[i] + T.log2(d_smem[i])
                                    tile_id[0] = tile_id[0] + 16

    @T.prim_func(s_tir=True)
    def batch_prefill_paged_kv_sliding_window(q: T.Buffer(("total_len", 32, 64), "float16"), q_indptr: T.Buffer(("batch_size + 1",), "int32", offset_factor=1), pages: T.Buffer(("max_num_pages", 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), page_indptr: T.Buffer((batch_size + 1,), "int32", offset_factor=1), page_values: T.Buffer(("nnz_pages",), "int32", offset_factor=1), length_info: T.Buffer((3, batch_size), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((batch_size,), "int32", offset_factor=1), q_rope_position: T.Buffer((total_len,), "int32", offset_factor=1), output: T.Buffer((total_len, 32, 64), "float16"), lse: T.Buffer((total_len, 32), "float32"), causal: T.int32, rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        total_len = T.int32()
        batch_size = T.int32()
        max_num_pages = T.int32()
        nnz_pages = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for lbx in T.thread_binding(16, thread="blockIdx.x"):
            for lby in T.thread_binding(8, thread="blockIdx.y"):
                for lty in T.thread_binding(4, thread="threadIdx.y"):
                    for ltx in T.thread_binding(32, thread="threadIdx.x"):
                        with T.sblock("attn"):
                            bx, by, ty, tx = T.axis.remap("SSSS", [lbx, lby, lty, ltx])
                            T.reads()
                            T.writes()
                            tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_idx = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_tiles = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_rows = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            iterator = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            Q_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            O_local = T.sblock_alloc_buffer((32, 64), scope="local")
                            S_smem = T.sblock_alloc_buffer((32, 32), scope="shared")
                            S_local = T.sblock_alloc_buffer((32, 32), scope="local")
                            m_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_prev_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            d_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_new = T.sblock_alloc_buffer((1,), scope="local")
                            m_prev = T.sblock_alloc_buffer((1,), scope="local")
                            d_new = T.sblock_alloc_buffer((1,), scope="local")
                            tile_id[0] = bx
                            batch_idx[0] = 0
                            batch_rows[0] = (q_indptr[1] - q_indptr[0]) * 4
                            batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                            while T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                while tile_id[0] >= batch_tiles[0] and batch_idx[0] < batch_size:
                                    tile_id[0] = tile_id[0] - batch_tiles[0]
                                    batch_idx[0] = batch_idx[0] + 1
                                    if batch_idx[0] < batch_size:
                                        b_idx: T.let[T.int32] = batch_idx[0]
                                        batch_rows[0] = (q_indptr[b_idx + 1] - q_indptr[b_idx]) * 4
                                        batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                                if T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                    b_idx: T.let[T.int32] = batch_idx[0]
                                    LH_start: T.let[T.int32] = tile_id[0] * 32
                                    q_indptr_val: T.let[T.int32] = q_indptr[b_idx]
                                    cur_page_indptr_begin: T.let[T.int32] = page_indptr[b_idx]
                                    cur_page_indptr_end: T.let[T.int32] = page_indptr[b_idx + 1]
                                    kv_chunk_len[0] = T.if_then_else(cur_page_indptr_begin != cur_page_indptr_end, (cur_page_indptr_end - cur_page_indptr_begin - 1) * 16 + length_info[0, b_idx] - length_info[1, b_idx] + length_info[2, b_idx], 0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for i in range(1):
                                        row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                        if row < 32:
                                            m_smem[row] = T.float32(-50000.0)
                                            d_smem[row] = T.float32(1.0)
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads()
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = T.float32(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for li_1_lj_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_1_lj_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_0, lj_0_0 in T.grid(2, 2):
                                                for lj_1 in T.vectorized(4):
                                                    with T.sblock("Q_load"):
                                                        i = T.axis.spatial(32, li_0 * 16 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) // 8)
                                                        j = T.axis.spatial(64, lj_0_0 * 32 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) % 8 * 4 + lj_1)
                                                        T.reads()
                                                        T.writes()
                                                        cur_L: T.let[T.int32] = q_indptr_val + (LH_start + i) // 4
                                                        cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                        if cur_L < q_indptr[b_idx + 1]:
                                                            freq = T.float32()
                                                            Q_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", q[cur_L, cur_H_qo, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, q[cur_L, cur_H_qo, j + 32] * T.float16(-1.0), q[cur_L, cur_H_qo, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), q[cur_L, cur_H_qo, j])
                                                        else:
                                                            Q_smem[i, j] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for iterator_1 in range((kv_chunk_len[0] + 31) // 32):
                                        L_kv_start: T.let[T.int32] = iterator_1 * 32
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("K_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = T.if_then_else(cur_L < length_info[2, b_idx], cur_L, cur_L - length_info[2, b_idx] + length_info[1, b_idx])
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                freq = T.float32()
                                                                K_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", pages[page_no, 0, by, page_offset, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, pages[page_no, 0, by, page_offset, j + 32] * T.float16(-1.0), pages[page_no, 0, by, page_offset, j - 32]))), where={freq: T.Cast("float32", k_rope_pos_offset[b_idx] + cur_L) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), pages[page_no, 0, by, page_offset, j])
                                                            else:
                                                                K_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("V_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = T.if_then_else(cur_L < length_info[2, b_idx], cur_L, cur_L - length_info[2, b_idx] + length_info[1, b_idx])
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                V_smem[i, j] = pages[page_no, 1, by, page_offset, j]
                                                            else:
                                                                V_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(Q_smem[0:32, 0:64], K_smem[0:32, 0:64])
                                            T.writes(S_local[0:32, 0:32])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(2):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("S_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 8 * 2 + li_1_init)
                                                                    j = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 8 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(S_local[i, j])
                                                                    S_local[i, j] = T.float32(0.0)
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0 in range(4):
                                                        for li_1 in T.unroll(2):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    for lk_1 in range(16):
                                                                        with T.sblock("S_gemm_update"):
                                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                            k = T.axis.reduce(64, lk_0 * 16 + lk_1)
                                                                            T.reads(S_local[i, j], Q_smem[i, k], K_smem[j, k])
                                                                            T.writes(S_local[i, j])
                                                                            S_local[i, j] = S_local[i, j] + T.Cast("float32", Q_smem[i, k]) * T.Cast("float32", K_smem[j, k]) * sm_scale * T.float32(1.4426950408889634)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_1 in range(2):
                                                    for lj_1_0 in T.unroll(1):
                                                        for lj_1_1 in T.vectorized(4):
                                                            with T.sblock("S_store"):
                                                                i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                T.reads(S_local[i, j])
                                                                T.writes(S_smem[i, j])
                                                                S_smem[i, j] = S_local[i, j]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update1"):
                                                    T.reads(m_smem[row], kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], m_new[i], S_smem[row, 0:32], d_smem[row], m_prev[i])
                                                    T.writes(m_prev[i], m_new[i], d_new[i])
                                                    m_prev[i] = m_smem[row]
                                                    m_new[i] = m_smem[row]
                                                    row_: T.let[T.int32] = (LH_start + row) // 4
                                                    for j in range(32):
                                                        if T.if_then_else(T.And(causal > 0, T.bool(True)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(1024 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            m_new[i] = T.max(m_new[i], S_smem[row, j])
                                                    d_new[i] = d_smem[row] * T.exp2(m_prev[i] - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            with T.sblock("update"):
                                                T.reads(kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], S_smem[row, 0:32], m_new[i])
                                                T.writes(S_smem[row, 0:32])
                                                for j in range(32):
                                                    if row < 32:
                                                        row_: T.let[T.int32] = (LH_start + row) // 4
                                                        if T.if_then_else(T.And(causal > 0, T.bool(True)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(1024 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            S_smem[row, j] = T.exp2(S_smem[row, j] - m_new[i])
                                                        else:
                                                            S_smem[row, j] = T.exp2(T.float32(-50000.0) - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update"):
                                                    T.reads(d_new[i], S_smem[row, 0:32], m_new[i], m_prev[i])
                                                    T.writes(d_new[i], m_smem[row], d_smem[row], m_prev_smem[row])
                                                    for j in range(32):
                                                        d_new[i] = d_new[i] + S_smem[row, j]
                                                    m_smem[row] = m_new[i]
                                                    d_smem[row] = d_new[i]
                                                    m_prev_smem[row] = m_prev[i]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(m_prev_smem[0:32], m_smem[0:32], S_smem[0:32, 0:32], V_smem[0:32, 0:64])
                                            T.writes(O_local[0:32, 0:64])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(4):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("O_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 16 * 4 + li_1_init)
                                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 16 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(O_local[i, j])
                                                                    O_local[i, j] = O_local[i, j] * T.exp2(m_prev_smem[i] - m_smem[i])
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, lk_1 in T.grid(2, 16):
                                                        for li_1 in T.unroll(4):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    with T.sblock("O_gemm_update"):
                                                                        i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                                        j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                        k = T.axis.reduce(32, lk_0 * 16 + lk_1)
                                                                        T.reads(O_local[i, j], m_prev_smem[i], m_smem[i], S_smem[i, k], V_smem[k, j])
                                                                        T.writes(O_local[i, j])
                                                                        O_local[i, j] = O_local[i, j] + S_smem[i, k] * T.Cast("float32", V_smem[k, j])
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_store"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads(q_indptr[b_idx:b_idx + 2], O_local[i, j], d_smem[i])
                                                            T.writes(output[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4, j])
                                                            cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                            cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                            if cur_L < q_indptr[b_idx + 1]:
                                                                output[cur_L, cur_H_qo, j] = T.Cast("float16", O_local[i, j] / d_smem[i])
                                    for li_0 in range(1):
                                        for li_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                with T.sblock("lse_store"):
                                                    i = T.axis.spatial(32, li_0 * 128 + li_1 * 32 + li_2)
                                                    T.where((li_0 * 4 + li_1) * 32 + li_2 < 32)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], m_smem[i], d_smem[i])
                                                    T.writes(lse[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        lse[cur_L, cur_H_qo] = m_smem[i] + T.log2(d_smem[i])
                                    tile_id[0] = tile_id[0] + 16

    @T.prim_func(s_tir=True)
    def batch_prefill_ragged_kv(q: T.Buffer(("qo_len", 32, 64), "float16"), q_indptr: T.Buffer(("batch_size + 1",), "int32", offset_factor=1), k: T.Buffer(("kv_len", 8, 64), "float16"), v: T.Buffer((kv_len, 8, 64), "float16"), kv_indptr: T.Buffer((batch_size + 1,), "int32", offset_factor=1), q_rope_position: T.Buffer((qo_len,), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((batch_size,), "int32", offset_factor=1), output: T.Buffer((qo_len, 32, 64), "float16"), lse: T.Buffer((qo_len, 32), "float32"), causal: T.int32, rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        qo_len = T.int32()
        batch_size = T.int32()
        kv_len = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for lbx in T.thread_binding(16, thread="blockIdx.x"):
            for lby in T.thread_binding(8, thread="blockIdx.y"):
                for lty in T.thread_binding(4, thread="threadIdx.y"):
                    for ltx in T.thread_binding(32, thread="threadIdx.x"):
                        with T.sblock("attn"):
                            bx, by, ty, tx = T.axis.remap("SSSS", [lbx, lby, lty, ltx])
                            T.reads()
                            T.writes()
                            tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_idx = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_tiles = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_rows = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            iterator = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            Q_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            K_smem = T.sblock_alloc_buffer((64, 32), "float16", scope="shared")
                            V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            O_local = T.sblock_alloc_buffer((32, 64), scope="local")
                            S_smem = T.sblock_alloc_buffer((32, 32), scope="shared")
                            S_local = T.sblock_alloc_buffer((32, 32), scope="local")
                            m_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_prev_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            d_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_new = T.sblock_alloc_buffer((1,), scope="local")
                            m_prev = T.sblock_alloc_buffer((1,), scope="local")
                            d_new = T.sblock_alloc_buffer((1,), scope="local")
                            tile_id[0] = bx
                            batch_idx[0] = 0
                            batch_rows[0] = (q_indptr[1] - q_indptr[0]) * 4
                            batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                            while T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                while tile_id[0] >= batch_tiles[0] and batch_idx[0] < batch_size:
                                    tile_id[0] = tile_id[0] - batch_tiles[0]
                                    batch_idx[0] = batch_idx[0] + 1
                                    if batch_idx[0] < batch_size:
                                        b_idx: T.let[T.int32] = batch_idx[0]
                                        batch_rows[0] = (q_indptr[b_idx + 1] - q_indptr[b_idx]) * 4
                                        batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                                if T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                    b_idx: T.let[T.int32] = batch_idx[0]
                                    q_indptr_val: T.let[T.int32] = q_indptr[b_idx]
                                    LH_start: T.let[T.int32] = tile_id[0] * 32
                                    kv_chunk_len[0] = kv_indptr[b_idx + 1] - kv_indptr[b_idx]
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for i in range(1):
                                        row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                        if row < 32:
                                            m_smem[row] = T.float32(-50000.0)
                                            d_smem[row] = T.float32(1.0)
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads()
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = T.float32(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for li_1_lj_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_1_lj_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_0, lj_0_0 in T.grid(2, 2):
                                                for lj_1 in T.vectorized(4):
                                                    with T.sblock("Q_load"):
                                                        i = T.axis.spatial(32, li_0 * 16 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) // 8)
                                                        j = T.axis.spatial(64, lj_0_0 * 32 + (li_1_lj_0_1_fused_0 * 32 + li_1_lj_0_1_fused_1) % 8 * 4 + lj_1)
                                                        T.reads()
                                                        T.writes()
                                                        cur_L: T.let[T.int32] = q_indptr_val + (LH_start + i) // 4
                                                        cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                        if cur_L < q_indptr[b_idx + 1]:
                                                            freq = T.float32()
                                                            Q_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", q[cur_L, cur_H_qo, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, q[cur_L, cur_H_qo, j + 32] * T.float16(-1.0), q[cur_L, cur_H_qo, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), q[cur_L, cur_H_qo, j])
                                                        else:
                                                            Q_smem[i, j] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for iterator_1 in range((kv_chunk_len[0] + 31) // 32):
                                        L_kv_start: T.let[T.int32] = iterator_1 * 32
                                        L_kv_base: T.let[T.int32] = kv_indptr[b_idx]
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("K_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads(kv_chunk_len[0], k_rope_pos_offset[b_idx], k[L_kv_base + L_kv_start + i, by, j - 32:j - 32 + 65])
                                                            T.writes(K_smem[j, i])
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                freq = T.float32()
                                                                K_smem[j, i] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", k[L_kv_base + cur_L, by, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, k[L_kv_base + cur_L, by, j + 32] * T.float16(-1.0), k[L_kv_base + cur_L, by, j - 32]))), where={freq: T.Cast("float32", k_rope_pos_offset[b_idx] + cur_L) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), k[L_kv_base + cur_L, by, j])
                                                            else:
                                                                K_smem[j, i] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for lz_1_ly_0_1_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for lz_1_ly_0_1_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for lz_0, ly_0_0 in T.grid(2, 2):
                                                    for ly_1 in T.vectorized(4):
                                                        with T.sblock("V_load"):
                                                            i = T.axis.spatial(32, lz_0 * 16 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) // 8)
                                                            j = T.axis.spatial(64, ly_0_0 * 32 + (lz_1_ly_0_1_fused_0 * 32 + lz_1_ly_0_1_fused_1) % 8 * 4 + ly_1)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                V_smem[i, j] = v[L_kv_base + cur_L, by, j]
                                                            else:
                                                                V_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(Q_smem[0:32, 0:64], K_smem[0:64, 0:32])
                                            T.writes(S_local[0:32, 0:32])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(2):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("S_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 8 * 2 + li_1_init)
                                                                    j = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 8 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(S_local[i, j])
                                                                    S_local[i, j] = T.float32(0.0)
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0 in range(4):
                                                        for li_1 in T.unroll(2):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    for lk_1 in range(16):
                                                                        with T.sblock("S_gemm_update"):
                                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                            k_1 = T.axis.reduce(64, lk_0 * 16 + lk_1)
                                                                            T.reads(S_local[i, j], Q_smem[i, k_1], K_smem[k_1, j])
                                                                            T.writes(S_local[i, j])
                                                                            S_local[i, j] = S_local[i, j] + T.Cast("float32", Q_smem[i, k_1]) * T.Cast("float32", K_smem[k_1, j]) * sm_scale * T.float32(1.4426950408889634)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_1 in range(2):
                                                    for lj_1_0 in T.unroll(1):
                                                        for lj_1_1 in T.vectorized(4):
                                                            with T.sblock("S_store"):
                                                                i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                                j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                T.reads(S_local[i, j])
                                                                T.writes(S_smem[i, j])
                                                                S_smem[i, j] = S_local[i, j]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update1"):
                                                    T.reads(m_smem[row], kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], m_new[i], S_smem[row, 0:32], d_smem[row], m_prev[i])
                                                    T.writes(m_prev[i], m_new[i], d_new[i])
                                                    m_prev[i] = m_smem[row]
                                                    m_new[i] = m_smem[row]
                                                    row_: T.let[T.int32] = (LH_start + row) // 4
                                                    for j in range(32):
                                                        if T.if_then_else(T.And(causal > 0, T.bool(False)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(0 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            m_new[i] = T.max(m_new[i], S_smem[row, j])
                                                    d_new[i] = d_smem[row] * T.exp2(m_prev[i] - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            with T.sblock("update"):
                                                T.reads(kv_chunk_len[0], q_indptr[b_idx:b_idx + 2], S_smem[row, 0:32], m_new[i])
                                                T.writes(S_smem[row, 0:32])
                                                for j in range(32):
                                                    if row < 32:
                                                        row_: T.let[T.int32] = (LH_start + row) // 4
                                                        if T.if_then_else(T.And(causal > 0, T.bool(False)), L_kv_start + j < kv_chunk_len[0] and L_kv_start + j >= T.max(kv_chunk_len[0] - T.max(0 - row_ - 1, 0), 0), T.if_then_else(causal > 0, L_kv_start + j < kv_chunk_len[0] - (q_indptr[b_idx + 1] - q_indptr[b_idx]) + row_ + 1, L_kv_start + j < kv_chunk_len[0])):
                                                            S_smem[row, j] = T.exp2(S_smem[row, j] - m_new[i])
                                                        else:
                                                            S_smem[row, j] = T.exp2(T.float32(-50000.0) - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update"):
                                                    T.reads(d_new[i], S_smem[row, 0:32], m_new[i], m_prev[i])
                                                    T.writes(d_new[i], m_smem[row], d_smem[row], m_prev_smem[row])
                                                    for j in range(32):
                                                        d_new[i] = d_new[i] + S_smem[row, j]
                                                    m_smem[row] = m_new[i]
                                                    d_smem[row] = d_new[i]
                                                    m_prev_smem[row] = m_prev[i]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(m_prev_smem[0:32], m_smem[0:32], S_smem[0:32, 0:32], V_smem[0:32, 0:64])
                                            T.writes(O_local[0:32, 0:64])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init in T.unroll(4):
                                                        for lj_1_0_init in T.unroll(1):
                                                            for lj_1_1_init in T.vectorized(4):
                                                                with T.sblock("O_gemm_init"):
                                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 16 * 4 + li_1_init)
                                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 16 * 4 + lj_1_0_init * 4 + lj_1_1_init)
                                                                    T.reads()
                                                                    T.writes(O_local[i, j])
                                                                    O_local[i, j] = O_local[i, j] * T.exp2(m_prev_smem[i] - m_smem[i])
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, lk_1 in T.grid(2, 16):
                                                        for li_1 in T.unroll(4):
                                                            for lj_1_0 in T.unroll(1):
                                                                for lj_1_1 in T.vectorized(4):
                                                                    with T.sblock("O_gemm_update"):
                                                                        i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                                        j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                                        k_1 = T.axis.reduce(32, lk_0 * 16 + lk_1)
                                                                        T.reads(O_local[i, j], m_prev_smem[i], m_smem[i], S_smem[i, k_1], V_smem[k_1, j])
                                                                        T.writes(O_local[i, j])
                                                                        O_local[i, j] = O_local[i, j] + S_smem[i, k_1] * T.Cast("float32", V_smem[k_1, j])
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1 in range(4):
                                                for lj_1_0 in T.unroll(1):
                                                    for lj_1_1 in T.vectorized(4):
                                                        with T.sblock("O_store"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1_0 * 4 + lj_1_1)
                                                            T.reads(q_indptr[b_idx:b_idx + 2], O_local[i, j], d_smem[i])
                                                            T.writes(output[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4, j])
                                                            cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                            cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                            if cur_L < q_indptr[b_idx + 1]:
                                                                output[cur_L, cur_H_qo, j] = T.Cast("float16", O_local[i, j] / d_smem[i])
                                    for li_0 in range(1):
                                        for li_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                with T.sblock("lse_store"):
                                                    i = T.axis.spatial(32, li_0 * 128 + li_1 * 32 + li_2)
                                                    T.where((li_0 * 4 + li_1) * 32 + li_2 < 32)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], m_smem[i], d_smem[i])
                                                    T.writes(lse[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        lse[cur_L, cur_H_qo] = m_smem[i] + T.log2(d_smem[i])
                                    tile_id[0] = tile_id[0] + 16

    @T.prim_func(s_tir=True)
    def batch_tree_attn(q: T.Buffer(("qo_len", 32, 64), "float16"), q_indptr: T.Buffer(("batch_size_plus_1",), "int32", offset_factor=1), k: T.Buffer(("kv_len", 8, 64), "float16"), v: T.Buffer((kv_len, 8, 64), "float16"), kv_indptr: T.Buffer((batch_size_plus_1,), "int32", offset_factor=1), q_rope_position: T.Buffer((qo_len,), "int32", offset_factor=1), mn_indptr: T.Buffer((batch_size_plus_1,), "int32", offset_factor=1), mask: T.Buffer(("tree_size", 2), "int32", offset_factor=1), output: T.Buffer((qo_len, 32, 64), "float16"), lse: T.Buffer((qo_len, 32), "float32"), rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32):
        qo_len = T.int32()
        batch_size_plus_1 = T.int32()
        kv_len = T.int32()
        tree_size = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for lbx in T.thread_binding(16, thread="blockIdx.x"):
            for lby in T.thread_binding(8, thread="blockIdx.y"):
                for lty in T.thread_binding(4, thread="threadIdx.y"):
                    for ltx in T.thread_binding(32, thread="threadIdx.x"):
                        with T.sblock("attn"):
                            bx, by, ty, tx = T.axis.remap("SSSS", [lbx, lby, lty, ltx])
                            T.reads()
                            T.writes()
                            tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_idx = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_tiles = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_rows = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            iterator = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            Q_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            O_local = T.sblock_alloc_buffer((32, 64), scope="local")
                            S_smem = T.sblock_alloc_buffer((32, 32), scope="shared")
                            S_local = T.sblock_alloc_buffer((32, 32), scope="local")
                            m_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_prev_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            d_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_new = T.sblock_alloc_buffer((1,), scope="local")
                            m_prev = T.sblock_alloc_buffer((1,), scope="local")
                            d_new = T.sblock_alloc_buffer((1,), scope="local")
                            tile_id[0] = bx
                            batch_idx[0] = 0
                            batch_rows[0] = (q_indptr[1] - q_indptr[0]) * 4
                            batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                            while T.tvm_thread_invariant(batch_idx[0] < batch_size_plus_1 - 1):
                                while tile_id[0] >= batch_tiles[0] and batch_idx[0] < batch_size_plus_1 - 1:
                                    tile_id[0] = tile_id[0] - batch_tiles[0]
                                    batch_idx[0] = batch_idx[0] + 1
                                    if batch_idx[0] < batch_size_plus_1 - 1:
                                        b_idx: T.let[T.int32] = batch_idx[0]
                                        batch_rows[0] = (q_indptr[b_idx + 1] - q_indptr[b_idx]) * 4
                                        batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                                if T.tvm_thread_invariant(batch_idx[0] < batch_size_plus_1 - 1):
                                    b_idx: T.let[T.int32] = batch_idx[0]
                                    LH_start: T.let[T.int32] = tile_id[0] * 32
                                    q_indptr_val: T.let[T.int32] = q_indptr[b_idx]
                                    kv_chunk_len[0] = kv_indptr[b_idx + 1] - kv_indptr[b_idx]
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for i in range(1):
                                        row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                        if row < 32:
                                            m_smem[row] = T.float32(-50000.0)
                                            d_smem[row] = T.float32(1.0)
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1, lj_1 in T.grid(4, 4):
                                                with T.sblock("O_init"):
                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                    T.reads()
                                                    T.writes(O_local[i, j])
                                                    O_local[i, j] = T.float32(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for li_lj_fused_0 in range(4):
                                        for li_lj_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_lj_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_lj_fused_3 in T.vectorized(4):
                                                    with T.sblock("Q_load"):
                                                        i = T.axis.spatial(32, (li_lj_fused_0 * 512 + li_lj_fused_1 * 128 + li_lj_fused_2 * 4 + li_lj_fused_3) // 64)
                                                        j = T.axis.spatial(64, (li_lj_fused_0 * 512 + li_lj_fused_1 * 128 + li_lj_fused_2 * 4 + li_lj_fused_3) % 64)
                                                        T.reads()
                                                        T.writes()
                                                        cur_L: T.let[T.int32] = q_indptr_val + (LH_start + i) // 4
                                                        cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                        if cur_L < q_indptr[b_idx + 1]:
                                                            freq = T.float32()
                                                            Q_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", q[cur_L, cur_H_qo, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, q[cur_L, cur_H_qo, j + 32] * T.float16(-1.0), q[cur_L, cur_H_qo, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), q[cur_L, cur_H_qo, j])
                                                        else:
                                                            Q_smem[i, j] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for iterator_1 in range((kv_chunk_len[0] + 31) // 32):
                                        L_kv_start: T.let[T.int32] = iterator_1 * 32
                                        L_kv_base: T.let[T.int32] = kv_indptr[b_idx]
                                        for lz_ly_fused_0 in range(4):
                                            for lz_ly_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                                                for lz_ly_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lz_ly_fused_3 in T.vectorized(4):
                                                        with T.sblock("KV_load"):
                                                            i = T.axis.spatial(32, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) // 64)
                                                            j = T.axis.spatial(64, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) % 64)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_base + L_kv_start + i
                                                            if L_kv_start + i < kv_chunk_len[0]:
                                                                freq = T.float32()
                                                                K_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", k[cur_L, by, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, k[cur_L, by, j + 32] * T.float16(-1.0), k[cur_L, by, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), k[cur_L, by, j])
                                                                V_smem[i, j] = v[cur_L, by, j]
                                                            else:
                                                                K_smem[i, j] = T.float16(0.0)
                                                                V_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(Q_smem[0:32, 0:64], K_smem[0:32, 0:64])
                                            T.writes(S_local[0:32, 0:32])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init, lj_1_init in T.grid(2, 4):
                                                        with T.sblock("S_gemm_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 8 * 2 + li_1_init)
                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 8 * 4 + lj_1_init)
                                                            T.reads()
                                                            T.writes(S_local[i, j])
                                                            S_local[i, j] = T.float32(0.0)
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, li_1, lj_1, lk_1 in T.grid(8, 2, 4, 8):
                                                        with T.sblock("S_gemm_update"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1)
                                                            k_1 = T.axis.reduce(64, lk_0 * 8 + lk_1)
                                                            T.reads(S_local[i, j], Q_smem[i, k_1], K_smem[j, k_1])
                                                            T.writes(S_local[i, j])
                                                            S_local[i, j] = S_local[i, j] + T.Cast("float32", Q_smem[i, k_1]) * T.Cast("float32", K_smem[j, k_1]) * sm_scale * T.float32(1.4426950408889634)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_1, lj_1 in T.grid(2, 4):
                                                    with T.sblock("S_store"):
                                                        i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                        j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1)
                                                        T.reads(S_local[i, j])
                                                        T.writes(S_smem[i, j])
                                                        S_smem[i, j] = S_local[i, j]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update1"):
                                                    T.reads(m_smem[row], kv_chunk_len[0], mn_indptr[b_idx:b_idx + 2], mask[T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0]):T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0]) + (T.max((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] + 31 - kv_chunk_len[0]) + 1 - T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0])), 0:2], q_indptr[b_idx:b_idx + 2], m_new[i], S_smem[row, 0:32], d_smem[row], m_prev[i])
                                                    T.writes(m_prev[i], m_new[i], d_new[i])
                                                    m_prev[i] = m_smem[row]
                                                    m_new[i] = m_smem[row]
                                                    row_: T.let[T.int32] = (LH_start + row) // 4
                                                    for j in range(32):
                                                        if L_kv_start + j < kv_chunk_len[0] and (L_kv_start + j < kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) or mask[mn_indptr[b_idx] + (row_ + (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] >= mask[mn_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]))), 0] and mask[mn_indptr[b_idx] + (row_ + (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] < mask[mn_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]))), 1]):
                                                            m_new[i] = T.max(m_new[i], S_smem[row, j])
                                                    d_new[i] = d_smem[row] * T.exp2(m_prev[i] - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            with T.sblock("update"):
                                                T.reads(kv_chunk_len[0], mn_indptr[b_idx:b_idx + 2], mask[T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0]):T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0]) + (T.max((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] + 31 - kv_chunk_len[0]) + 1 - T.min((LH_start + row) // 4 + mn_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + mn_indptr[b_idx + 1] - kv_chunk_len[0])), 0:2], q_indptr[b_idx:b_idx + 2], S_smem[row, 0:32], m_new[i])
                                                T.writes(S_smem[row, 0:32])
                                                for j in range(32):
                                                    if row < 32:
                                                        row_: T.let[T.int32] = (LH_start + row) // 4
                                                        if L_kv_start + j < kv_chunk_len[0] and (L_kv_start + j < kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) or mask[mn_indptr[b_idx] + (row_ + (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] >= mask[mn_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]))), 0] and mask[mn_indptr[b_idx] + (row_ + (mn_indptr[b_idx + 1] - mn_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] < mask[mn_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (mn_indptr[b_idx + 1] - mn_indptr[b_idx]))), 1]):
                                                            S_smem[row, j] = T.exp2(S_smem[row, j] - m_new[i])
                                                        else:
                                                            S_smem[row, j] = T.exp2(T.float32(-50000.0) - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update"):
                                                    T.reads(d_new[i], S_smem[row, 0:32], m_new[i], m_prev[i])
                                                    T.writes(d_new[i], m_smem[row], d_smem[row], m_prev_smem[row])
                                                    for j in range(32):
                                                        d_new[i] = d_new[i] + S_smem[row, j]
                                                    m_smem[row] = m_new[i]
                                                    d_smem[row] = d_new[i]
                                                    m_prev_smem[row] = m_prev[i]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(m_prev_smem[0:32], m_smem[0:32], S_smem[0:32, 0:32], V_smem[0:32, 0:64])
                                            T.writes(O_local[0:32, 0:64])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init, lj_1_init in T.grid(4, 4):
                                                        with T.sblock("O_gemm_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 16 * 4 + li_1_init)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 16 * 4 + lj_1_init)
                                                            T.reads()
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = O_local[i, j] * T.exp2(m_prev_smem[i] - m_smem[i])
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, lk_1, li_1, lj_1 in T.grid(4, 8, 4, 4):
                                                        with T.sblock("O_gemm_update"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                            k_1 = T.axis.reduce(32, lk_0 * 8 + lk_1)
                                                            T.reads(O_local[i, j], m_prev_smem[i], m_smem[i], S_smem[i, k_1], V_smem[k_1, j])
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = O_local[i, j] + S_smem[i, k_1] * T.Cast("float32", V_smem[k_1, j])
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1, lj_1 in T.grid(4, 4):
                                                with T.sblock("O_store"):
                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], O_local[i, j], d_smem[i])
                                                    T.writes(output[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4, j])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        output[cur_L, cur_H_qo, j] = T.Cast("float16", O_local[i, j] / d_smem[i])
                                    for li_0 in range(1):
                                        for li_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                with T.sblock("lse_store"):
                                                    i = T.axis.spatial(32, li_0 * 128 + li_1 * 32 + li_2)
                                                    T.where((li_0 * 4 + li_1) * 32 + li_2 < 32)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], m_smem[i], d_smem[i])
                                                    T.writes(lse[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        lse[cur_L, cur_H_qo] = m_smem[i] + T.log2(d_smem[i])
                                    tile_id[0] = tile_id[0] + 16

    @T.prim_func(s_tir=True)
    def compact_kv_copy(pages: T.Buffer(("num_pages", 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), copy_length_indptr: T.Buffer(("batch_size + 1",), "int32", offset_factor=1), copy_src_dst_pos: T.Buffer((2, "total_copy_length"), "int32", offset_factor=1), batch_size: T.int32):
        num_pages = T.int32()
        total_copy_length = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        with T.sblock("root"):
            T.reads()
            T.writes()
            for bhd_o in T.thread_binding((batch_size * 512 + 1023) // 1024, thread="blockIdx.x"):
                for bhd_i in T.thread_binding(1024, thread="threadIdx.x"):
                    b: T.int32 = (bhd_o * 1024 + bhd_i) // 512
                    h: T.int32 = (bhd_o * 1024 + bhd_i) // 64 % 8
                    d: T.int32 = (bhd_o * 1024 + bhd_i) % 64
                    if bhd_o * 1024 + bhd_i < batch_size * 8 * 64:
                        for i in range(copy_length_indptr[b + 1] - copy_length_indptr[b]):
                            src_pos: T.int32 = copy_src_dst_pos[0, copy_length_indptr[b] + i]
                            dst_pos: T.int32 = copy_src_dst_pos[1, copy_length_indptr[b] + i]
                            pages[dst_pos // 16, 0, h, dst_pos % 16, d] = pages[src_pos // 16, 0, h, src_pos % 16, d]
                            pages[dst_pos // 16, 1, h, dst_pos % 16, d] = pages[src_pos // 16, 1, h, src_pos % 16, d]

    @T.prim_func(s_tir=True)
    def copy_single_page(pages: T.Buffer(("num_pages", 2, 8, page_size, 64), "float16", elem_offset=pages_elem_offset), src_page_id: T.int64, tgt_page_id: T.int64, copy_length: T.int64):
        num_pages = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for b in T.thread_binding((copy_length * T.int64(512) + T.int64(1023)) // T.int64(1024), thread="blockIdx.x"):
            for t in T.thread_binding(1024, thread="threadIdx.x"):
                with T.sblock("copy"):
                    vh = T.axis.spatial(8, T.Cast("int32", (b * T.int64(1024) + T.Cast("int64", t)) // (copy_length * T.int64(64))))
                    vp = T.axis.spatial(copy_length, (b * T.int64(1024) + T.Cast("int64", t)) % (copy_length * T.int64(64)) // T.int64(64))
                    vd = T.axis.spatial(64, T.Cast("int32", (b * T.int64(1024) + T.Cast("int64", t)) % T.int64(64)))
                    T.where(b * T.int64(1024) + T.Cast("int64", t) < copy_length * T.int64(8) * T.int64(64))
                    T.reads(pages[src_page_id, 0:2, vh, vp, vd])
                    T.writes(pages[tgt_page_id, 0:2, vh, vp, vd])
                    pages[tgt_page_id, 0, vh, vp, vd] = pages[src_page_id, 0, vh, vp, vd]
                    pages[tgt_page_id, 1, vh, vp, vd] = pages[src_page_id, 1, vh, vp, vd]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul11_add2(reshape3: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), permute_dims1: T.Buffer((T.int64(2048), T.int64(2048)), "float16"), input_embed: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        reshape3_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_intermediate_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf = T.sblock_alloc_buffer((T.int64(32), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        for ax0, ax1 in T.grid((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("reshape3_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(reshape3[T.int64(0), v0, v1])
                T.writes(reshape3_pad[T.int64(0), v0, v1])
                reshape3_pad[T.int64(0), v0, v1] = T.if_then_else(v0 < seq_len, reshape3[T.int64(0), v0, v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((seq_len + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(64), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(reshape3_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims1[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1])
                                    with T.init():
                                        matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = T.float16(0.0)
                                    matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] + reshape3_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims1[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1])
                T.writes(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                with T.init():
                    matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = T.float16(0.0)
                matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] + matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                T.writes(matmul_intermediate_pad[T.int64(0), v0, v1])
                with T.init():
                    matmul_intermediate_pad[T.int64(0), v0, v1] = T.float16(0.0)
                matmul_intermediate_pad[T.int64(0), v0, v1] = matmul_intermediate_pad[T.int64(0), v0, v1] + matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1]
        for ax0, ax1 in T.grid(seq_len, T.int64(2048)):
            with T.sblock("matmul_intermediate_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate_pad[T.int64(0), v0, v1], input_embed[T.int64(0), v0, v1])
                T.writes(T_add_intermediate[T.int64(0), v0, v1])
                T_add_intermediate[T.int64(0), v0, v1] = matmul_intermediate_pad[T.int64(0), v0, v1] + input_embed[T.int64(0), v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul13_add2(mul: T.Buffer((T.int64(1), seq_len, T.int64(8192)), "float16"), permute_dims3: T.Buffer((T.int64(8192), T.int64(2048)), "float16"), add: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        mul_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(8192)), "float16")
        matmul_intermediate_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf = T.sblock_alloc_buffer((T.int64(32), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        for ax0, ax1 in T.grid((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(8192)):
            with T.sblock("mul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(mul[T.int64(0), v0, v1])
                T.writes(mul_pad[T.int64(0), v0, v1])
                mul_pad[T.int64(0), v0, v1] = T.if_then_else(v0 < seq_len, mul[T.int64(0), v0, v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((seq_len + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(64), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(64), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(mul_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims3[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1])
                                    with T.init():
                                        matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = T.float16(0.0)
                                    matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] + mul_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims3[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1])
                T.writes(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                with T.init():
                    matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = T.float16(0.0)
                matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] + matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                T.writes(matmul_intermediate_pad[T.int64(0), v0, v1])
                with T.init():
                    matmul_intermediate_pad[T.int64(0), v0, v1] = T.float16(0.0)
                matmul_intermediate_pad[T.int64(0), v0, v1] = matmul_intermediate_pad[T.int64(0), v0, v1] + matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1]
        for ax0, ax1 in T.grid(seq_len, T.int64(2048)):
            with T.sblock("matmul_intermediate_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate_pad[T.int64(0), v0, v1], add[T.int64(0), v0, v1])
                T.writes(T_add_intermediate[T.int64(0), v0, v1])
                T_add_intermediate[T.int64(0), v0, v1] = matmul_intermediate_pad[T.int64(0), v0, v1] + add[T.int64(0), v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul1_add(reshape131: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), permute_dims131: T.Buffer((T.int64(2048), T.int64(2048)), "float16"), input_embeds: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        reshape131_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_intermediate_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf = T.sblock_alloc_buffer((T.int64(32), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        for ax0, ax1 in T.grid((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("reshape131_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(reshape131[v0, T.int64(0), v1])
                T.writes(reshape131_pad[v0, T.int64(0), v1])
                reshape131_pad[v0, T.int64(0), v1] = T.if_then_else(v0 < batch_size, reshape131[v0, T.int64(0), v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((batch_size + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(64), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(reshape131_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims131[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1])
                                    with T.init():
                                        matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = T.float16(0.0)
                                    matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] + reshape131_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims131[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1])
                T.writes(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                with T.init():
                    matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = T.float16(0.0)
                matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] + matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                T.writes(matmul_intermediate_pad[v0, T.int64(0), v1])
                with T.init():
                    matmul_intermediate_pad[v0, T.int64(0), v1] = T.float16(0.0)
                matmul_intermediate_pad[v0, T.int64(0), v1] = matmul_intermediate_pad[v0, T.int64(0), v1] + matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1]
        for ax0, ax1 in T.grid(batch_size, T.int64(2048)):
            with T.sblock("matmul_intermediate_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate_pad[v0, T.int64(0), v1], input_embeds[v0, T.int64(0), v1])
                T.writes(T_add_intermediate[v0, T.int64(0), v1])
                T_add_intermediate[v0, T.int64(0), v1] = matmul_intermediate_pad[v0, T.int64(0), v1] + input_embeds[v0, T.int64(0), v1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul3_add(mul32: T.Buffer((batch_size, T.int64(1), T.int64(8192)), "float16"), permute_dims133: T.Buffer((T.int64(8192), T.int64(2048)), "float16"), add64: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        mul32_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(8192)), "float16")
        matmul_intermediate_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf = T.sblock_alloc_buffer((T.int64(32), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_intermediate_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        for ax0, ax1 in T.grid((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(8192)):
            with T.sblock("mul32_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(mul32[v0, T.int64(0), v1])
                T.writes(mul32_pad[v0, T.int64(0), v1])
                mul32_pad[v0, T.int64(0), v1] = T.if_then_else(v0 < batch_size, mul32[v0, T.int64(0), v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((batch_size + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(64), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(64), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(mul32_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims133[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1])
                                    with T.init():
                                        matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = T.float16(0.0)
                                    matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] + mul32_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims133[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1])
                T.writes(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                with T.init():
                    matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = T.float16(0.0)
                matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] + matmul_intermediate_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(64), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(2048), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                T.writes(matmul_intermediate_pad[v0, T.int64(0), v1])
                with T.init():
                    matmul_intermediate_pad[v0, T.int64(0), v1] = T.float16(0.0)
                matmul_intermediate_pad[v0, T.int64(0), v1] = matmul_intermediate_pad[v0, T.int64(0), v1] + matmul_intermediate_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1]
        for ax0, ax1 in T.grid(batch_size, T.int64(2048)):
            with T.sblock("matmul_intermediate_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate_pad[v0, T.int64(0), v1], add64[v0, T.int64(0), v1])
                T.writes(T_add_intermediate[v0, T.int64(0), v1])
                T_add_intermediate[v0, T.int64(0), v1] = matmul_intermediate_pad[v0, T.int64(0), v1] + add64[v0, T.int64(0), v1]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul6_add1(reshape67: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), permute_dims66: T.Buffer((T.int64(2048), T.int64(2048)), "float16"), input_embed: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate_local = T.sblock_alloc_buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16", scope="local")
        matmul_intermediate_rf_local = T.sblock_alloc_buffer((T.int64(16), T.int64(1), T.int64(1), T.int64(2048)), "float16", scope="local")
        for ax0_fused_0 in T.thread_binding(T.int64(128), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul_rf_init"):
                        vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                        T.reads()
                        T.writes(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = T.float16(0.0)
                    for ax1_fused_0, u in T.grid(T.int64(128), 1):
                        with T.sblock("matmul_rf_update"):
                            vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                            v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                            vax1_fused_0 = T.axis.reduce(T.int64(128), ax1_fused_0)
                            T.reads(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0], reshape67[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1], permute_dims66[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
                            T.writes(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                            matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] + reshape67[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1] * permute_dims66[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0]
            for ax1_fused in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul"):
                        vax1_fused_1 = T.axis.reduce(T.int64(16), ax0)
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax1_fused)
                        T.reads(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        T.writes(matmul_intermediate_local[T.int64(0), T.int64(0), v0])
                        with T.init():
                            matmul_intermediate_local[T.int64(0), T.int64(0), v0] = T.float16(0.0)
                        matmul_intermediate_local[T.int64(0), T.int64(0), v0] = matmul_intermediate_local[T.int64(0), T.int64(0), v0] + matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0]
            for ax0_fused_0_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0_fused_1 in range(T.int64(1)):
                    with T.sblock("T_add"):
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_0_1 + ax0_fused_1)
                        T.reads(matmul_intermediate_local[T.int64(0), T.int64(0), v0], input_embed[T.int64(0), T.int64(0), v0])
                        T.writes(T_add_intermediate[T.int64(0), T.int64(0), v0])
                        T_add_intermediate[T.int64(0), T.int64(0), v0] = matmul_intermediate_local[T.int64(0), T.int64(0), v0] + input_embed[T.int64(0), T.int64(0), v0]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul8_add1(mul16: T.Buffer((T.int64(1), T.int64(1), T.int64(8192)), "float16"), permute_dims68: T.Buffer((T.int64(8192), T.int64(2048)), "float16"), add32: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), T_add_intermediate: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate_local = T.sblock_alloc_buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16", scope="local")
        matmul_intermediate_rf_local = T.sblock_alloc_buffer((T.int64(16), T.int64(1), T.int64(1), T.int64(2048)), "float16", scope="local")
        for ax0_fused_0 in T.thread_binding(T.int64(128), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul_rf_init"):
                        vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                        T.reads()
                        T.writes(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = T.float16(0.0)
                    for ax1_fused_0, u in T.grid(T.int64(512), 1):
                        with T.sblock("matmul_rf_update"):
                            vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                            v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                            vax1_fused_0 = T.axis.reduce(T.int64(512), ax1_fused_0)
                            T.reads(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0], mul16[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1], permute_dims68[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
                            T.writes(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                            matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] + mul16[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1] * permute_dims68[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0]
            for ax1_fused in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul"):
                        vax1_fused_1 = T.axis.reduce(T.int64(16), ax0)
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax1_fused)
                        T.reads(matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        T.writes(matmul_intermediate_local[T.int64(0), T.int64(0), v0])
                        with T.init():
                            matmul_intermediate_local[T.int64(0), T.int64(0), v0] = T.float16(0.0)
                        matmul_intermediate_local[T.int64(0), T.int64(0), v0] = matmul_intermediate_local[T.int64(0), T.int64(0), v0] + matmul_intermediate_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0]
            for ax0_fused_0_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0_fused_1 in range(T.int64(1)):
                    with T.sblock("T_add"):
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(16) + ax0_fused_0_1 + ax0_fused_1)
                        T.reads(matmul_intermediate_local[T.int64(0), T.int64(0), v0], add32[T.int64(0), T.int64(0), v0])
                        T.writes(T_add_intermediate[T.int64(0), T.int64(0), v0])
                        T_add_intermediate[T.int64(0), T.int64(0), v0] = matmul_intermediate_local[T.int64(0), T.int64(0), v0] + add32[T.int64(0), T.int64(0), v0]

    @T.prim_func(private=True, s_tir=True)
    def fused_reshape4_reshape5(matmul65: T.Buffer((T.int64(1), T.int64(1), T.int64(3072)), "float16"), T_reshape_intermediate_1: T.Buffer((T.int64(1), T.int64(48), T.int64(64)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(3), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape1"):
                    v0 = T.axis.spatial(T.int64(48), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(64))
                    v1 = T.axis.spatial(T.int64(64), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(64))
                    T.reads(matmul65[T.int64(0), T.int64(0), v0 * T.int64(64) + v1])
                    T.writes(T_reshape_intermediate_1[T.int64(0), v0, v1])
                    T_reshape_intermediate_1[T.int64(0), v0, v1] = matmul65[T.int64(0), T.int64(0), v0 * T.int64(64) + v1]

    @T.prim_func(private=True, s_tir=True)
    def fused_reshape6_reshape7(lv17: T.Buffer((T.int64(1), T.int64(32), T.int64(64)), "float16"), T_reshape_intermediate_1: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_fused_0 in T.thread_binding(T.int64(2), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape1"):
                    v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(1024) + ax0_fused_1)
                    T.reads(lv17[T.int64(0), v0 // T.int64(64), v0 % T.int64(64)])
                    T.writes(T_reshape_intermediate_1[T.int64(0), T.int64(0), v0])
                    T_reshape_intermediate_1[T.int64(0), T.int64(0), v0] = lv17[T.int64(0), v0 // T.int64(64), v0 % T.int64(64)]

    @T.prim_func(s_tir=True)
    def fused_rope(qkv: T.Buffer(("seq_len", 48, 64), "float16"), position_map: T.Buffer((seq_len,), "int32", offset_factor=1), q: T.Buffer((seq_len, 32, 64), "float16"), k: T.Buffer((seq_len, 8, 64), "float16"), v: T.Buffer((seq_len, 8, 64), "float16"), apply_rope: T.int64):
        seq_len = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(seq_len * 3, thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(1024, thread="threadIdx.x"):
                with T.sblock("llama_fused_rope"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_ax2_fused_0 * 1024 + ax0_ax1_ax2_fused_1) // 3072)
                    v1 = T.axis.spatial(48, (ax0_ax1_ax2_fused_0 * 1024 + ax0_ax1_ax2_fused_1) % 3072 // 64)
                    v2 = T.axis.spatial(64, (ax0_ax1_ax2_fused_0 * 1024 + ax0_ax1_ax2_fused_1) % 64)
                    T.reads(position_map[v0], qkv[v0, v1, v2 + -32:v2 + -32 + 65])
                    T.writes(q[v0, v1, v2], k[v0, v1 + -32, v2], v[v0, v1 + -40, v2])
                    if v1 < 32:
                        freq = T.float32()
                        q[v0, v1, v2] = T.if_then_else(apply_rope > T.int64(0) and v2 < 64, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", qkv[v0, v1, v2]) + T.sin(freq) * T.Cast("float32", T.if_then_else(v2 < 32, qkv[v0, v1, v2 + 32] * T.float16(-1.0), qkv[v0, v1, v2 + -32]))), where={freq: T.Cast("float32", position_map[v0]) / T.pow(T.float32(500000.0), T.Cast("float32", v2 * 2 % 64) / T.float32(64.0))}), qkv[v0, v1, v2])
                    else:
                        if v1 < 40:
                            freq = T.float32()
                            k[v0, v1 + -32, v2] = T.if_then_else(apply_rope > T.int64(0) and v2 < 64, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", qkv[v0, v1, v2]) + T.sin(freq) * T.Cast("float32", T.if_then_else(v2 < 32, qkv[v0, v1, v2 + 32] * T.float16(-1.0), qkv[v0, v1, v2 + -32]))), where={freq: T.Cast("float32", position_map[v0]) / T.pow(T.float32(500000.0), T.Cast("float32", v2 * 2 % 64) / T.float32(64.0))}), qkv[v0, v1, v2])
                        else:
                            v[v0, v1 + -40, v2] = qkv[v0, v1, v2]

    @T.prim_func(private=True, s_tir=True)
    def fused_split1_silu1_multiply1(matmul67: T.Buffer((T.int64(1), T.int64(1), T.int64(16384)), "float16"), T_multiply_intermediate_1: T.Buffer((T.int64(1), T.int64(1), T.int64(8192)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_fused_0 in T.thread_binding(T.int64(8), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_multiply1"):
                    v0 = T.axis.spatial(T.int64(8192), ax0_fused_0 * T.int64(1024) + ax0_fused_1)
                    T.reads(matmul67[T.int64(0), T.int64(0), v0:v0 + T.int64(8193)])
                    T.writes(T_multiply_intermediate_1[T.int64(0), T.int64(0), v0])
                    T_multiply_intermediate_1[T.int64(0), T.int64(0), v0] = matmul67[T.int64(0), T.int64(0), v0] * T.sigmoid(matmul67[T.int64(0), T.int64(0), v0]) * matmul67[T.int64(0), T.int64(0), v0 + T.int64(8192)]

    @T.prim_func(private=True, s_tir=True)
    def fused_split2_silu2_multiply2(matmul2: T.Buffer((T.int64(1), seq_len, T.int64(16384)), "float16"), T_multiply_intermediate_1: T.Buffer((T.int64(1), seq_len, T.int64(8192)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(seq_len * T.int64(8), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_multiply1"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(8192))
                    v1 = T.axis.spatial(T.int64(8192), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(8192))
                    T.reads(matmul2[T.int64(0), v0, v1:v1 + T.int64(8193)])
                    T.writes(T_multiply_intermediate_1[T.int64(0), v0, v1])
                    T_multiply_intermediate_1[T.int64(0), v0, v1] = matmul2[T.int64(0), v0, v1] * T.sigmoid(matmul2[T.int64(0), v0, v1]) * matmul2[T.int64(0), v0, v1 + T.int64(8192)]

    @T.prim_func(private=True, s_tir=True)
    def fused_split_silu_multiply(matmul132: T.Buffer((batch_size, T.int64(1), T.int64(16384)), "float16"), T_multiply_intermediate_1: T.Buffer((batch_size, T.int64(1), T.int64(8192)), "float16")):
        T.func_attr({"tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(batch_size * T.int64(8), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_multiply1"):
                    v0 = T.axis.spatial(batch_size, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(8192))
                    v1 = T.axis.spatial(T.int64(8192), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(8192))
                    T.reads(matmul132[v0, T.int64(0), v1:v1 + T.int64(8193)])
                    T.writes(T_multiply_intermediate_1[v0, T.int64(0), v1])
                    T_multiply_intermediate_1[v0, T.int64(0), v1] = matmul132[v0, T.int64(0), v1] * T.sigmoid(matmul132[v0, T.int64(0), v1]) * matmul132[v0, T.int64(0), v1 + T.int64(8192)]

    @T.prim_func(private=True, s_tir=True)
    def index(rms_norm32: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), index: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_fused_0 in T.thread_binding(T.int64(2), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("index"):
                    v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(1024) + ax0_fused_1)
                    T.reads(rms_norm32[T.int64(0), seq_len - T.int64(1), v0])
                    T.writes(index[T.int64(0), T.int64(0), v0])
                    index[T.int64(0), T.int64(0), v0] = rms_norm32[T.int64(0), seq_len - T.int64(1), v0]

    @T.prim_func(private=True, s_tir=True)
    def matmul(rms_norm66: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), permute_dims130: T.Buffer((T.int64(2048), T.int64(3072)), "float16"), matmul: T.Buffer((batch_size, T.int64(1), T.int64(3072)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        rms_norm66_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(3072)), "float16")
        matmul_pad_rf = T.sblock_alloc_buffer((T.int64(32), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(3072)), "float16")
        matmul_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(3072)), "float16")
        for ax0, ax1 in T.grid((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("rms_norm66_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rms_norm66[v0, T.int64(0), v1])
                T.writes(rms_norm66_pad[v0, T.int64(0), v1])
                rms_norm66_pad[v0, T.int64(0), v1] = T.if_then_else(v0 < batch_size, rms_norm66[v0, T.int64(0), v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((batch_size + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(96), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(rms_norm66_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims130[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1])
                                    with T.init():
                                        matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = T.float16(0.0)
                                    matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] + rms_norm66_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims130[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(96), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1])
                T.writes(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                with T.init():
                    matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = T.float16(0.0)
                matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] + matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(96), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                T.writes(matmul_pad[v0, T.int64(0), v1])
                with T.init():
                    matmul_pad[v0, T.int64(0), v1] = T.float16(0.0)
                matmul_pad[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1] + matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1]
        for ax0, ax1 in T.grid(batch_size, T.int64(3072)):
            with T.sblock("matmul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_pad[v0, T.int64(0), v1])
                T.writes(matmul[v0, T.int64(0), v1])
                matmul[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1]

    @T.prim_func(private=True, s_tir=True)
    def matmul10(rms_norm: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), permute_dims: T.Buffer((T.int64(2048), T.int64(3072)), "float16"), matmul: T.Buffer((T.int64(1), seq_len, T.int64(3072)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        rms_norm_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(3072)), "float16")
        matmul_pad_rf = T.sblock_alloc_buffer((T.int64(32), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(3072)), "float16")
        matmul_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(3072)), "float16")
        for ax0, ax1 in T.grid((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("rms_norm_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rms_norm[T.int64(0), v0, v1])
                T.writes(rms_norm_pad[T.int64(0), v0, v1])
                rms_norm_pad[T.int64(0), v0, v1] = T.if_then_else(v0 < seq_len, rms_norm[T.int64(0), v0, v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((seq_len + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(96), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(rms_norm_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1])
                                    with T.init():
                                        matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = T.float16(0.0)
                                    matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] + rms_norm_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(96), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1])
                T.writes(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                with T.init():
                    matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = T.float16(0.0)
                matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] + matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(96), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(3072), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                T.writes(matmul_pad[T.int64(0), v0, v1])
                with T.init():
                    matmul_pad[T.int64(0), v0, v1] = T.float16(0.0)
                matmul_pad[T.int64(0), v0, v1] = matmul_pad[T.int64(0), v0, v1] + matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1]
        for ax0, ax1 in T.grid(seq_len, T.int64(3072)):
            with T.sblock("matmul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_pad[T.int64(0), v0, v1])
                T.writes(matmul[T.int64(0), v0, v1])
                matmul[T.int64(0), v0, v1] = matmul_pad[T.int64(0), v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def matmul12(rms_norm1: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), permute_dims2: T.Buffer((T.int64(2048), T.int64(16384)), "float16"), matmul: T.Buffer((T.int64(1), seq_len, T.int64(16384)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        rms_norm1_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)), "float16")
        matmul_pad = T.sblock_alloc_buffer((T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(16384)), "float16")
        matmul_pad_rf = T.sblock_alloc_buffer((T.int64(32), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(16384)), "float16")
        matmul_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(1), (seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(16384)), "float16")
        for ax0, ax1 in T.grid((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("rms_norm1_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rms_norm1[T.int64(0), v0, v1])
                T.writes(rms_norm1_pad[T.int64(0), v0, v1])
                rms_norm1_pad[T.int64(0), v0, v1] = T.if_then_else(v0 < seq_len, rms_norm1[T.int64(0), v0, v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((seq_len + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(512), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(rms_norm1_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims2[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1])
                                    with T.init():
                                        matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = T.float16(0.0)
                                    matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] = matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, T.int64(0), v0, v1] + rms_norm1_pad[T.int64(0), v0, vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims2[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(512), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1])
                T.writes(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                with T.init():
                    matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = T.float16(0.0)
                matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] = matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1] + matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, T.int64(0), v0, v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((seq_len + T.int64(3)) // T.int64(4), T.int64(512), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((seq_len + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1])
                T.writes(matmul_pad[T.int64(0), v0, v1])
                with T.init():
                    matmul_pad[T.int64(0), v0, v1] = T.float16(0.0)
                matmul_pad[T.int64(0), v0, v1] = matmul_pad[T.int64(0), v0, v1] + matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, T.int64(0), v0, v1]
        for ax0, ax1 in T.grid(seq_len, T.int64(16384)):
            with T.sblock("matmul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_pad[T.int64(0), v0, v1])
                T.writes(matmul[T.int64(0), v0, v1])
                matmul[T.int64(0), v0, v1] = matmul_pad[T.int64(0), v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def matmul2(rms_norm67: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), permute_dims132: T.Buffer((T.int64(2048), T.int64(16384)), "float16"), matmul: T.Buffer((batch_size, T.int64(1), T.int64(16384)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        rms_norm67_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(16384)), "float16")
        matmul_pad_rf = T.sblock_alloc_buffer((T.int64(32), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(16384)), "float16")
        matmul_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(16384)), "float16")
        for ax0, ax1 in T.grid((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("rms_norm67_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rms_norm67[v0, T.int64(0), v1])
                T.writes(rms_norm67_pad[v0, T.int64(0), v1])
                rms_norm67_pad[v0, T.int64(0), v1] = T.if_then_else(v0 < batch_size, rms_norm67[v0, T.int64(0), v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((batch_size + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(512), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(rms_norm67_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims132[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1])
                                    with T.init():
                                        matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = T.float16(0.0)
                                    matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] + rms_norm67_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)] * permute_dims132[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(512), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1])
                T.writes(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                with T.init():
                    matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = T.float16(0.0)
                matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] + matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(512), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(16384), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                T.writes(matmul_pad[v0, T.int64(0), v1])
                with T.init():
                    matmul_pad[v0, T.int64(0), v1] = T.float16(0.0)
                matmul_pad[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1] + matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1]
        for ax0, ax1 in T.grid(batch_size, T.int64(16384)):
            with T.sblock("matmul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_pad[v0, T.int64(0), v1])
                T.writes(matmul[v0, T.int64(0), v1])
                matmul[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1]

    @T.prim_func(private=True, s_tir=True)
    def matmul4(rms_norm98: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), permute_dims194: T.Buffer((T.int64(2048), T.int64(128256)), "float16"), matmul: T.Buffer((batch_size, T.int64(1), T.int64(128256)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        rms_norm98_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(2048)), "float16")
        matmul_pad = T.sblock_alloc_buffer(((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(128256)))
        matmul_pad_rf = T.sblock_alloc_buffer((T.int64(32), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(128256)))
        matmul_pad_rf_1 = T.sblock_alloc_buffer((T.int64(4), (batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(1), T.int64(128256)))
        for ax0, ax1 in T.grid((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(2048)):
            with T.sblock("rms_norm98_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(rms_norm98[v0, T.int64(0), v1])
                T.writes(rms_norm98_pad[v0, T.int64(0), v1])
                rms_norm98_pad[v0, T.int64(0), v1] = T.if_then_else(v0 < batch_size, rms_norm98[v0, T.int64(0), v1], T.float16(0.0))
        for ax0_0 in T.thread_binding((batch_size + T.int64(3)) // T.int64(4), thread="blockIdx.y"):
            for ax1_fused_0 in T.thread_binding(T.int64(4008), thread="blockIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                    for ax2_fused_1_ax2_fused_3_fused_0 in T.thread_binding(T.int64(4), thread="threadIdx.y"):
                        for ax2_fused_0, ax2_fused_2, ax0_1, ax2_fused_1_ax2_fused_3_fused_1_0 in T.grid(T.int64(16), T.int64(4), T.int64(4), T.int64(8)):
                            for ax2_fused_1_ax2_fused_3_fused_1_1 in T.vectorized(T.int64(1)):
                                with T.sblock("matmul_rf"):
                                    vax2_fused_1_ax2_fused_3_fused = T.axis.spatial(T.int64(32), ax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + ax2_fused_1_ax2_fused_3_fused_1_0 + ax2_fused_1_ax2_fused_3_fused_1_1)
                                    v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                                    v1 = T.axis.spatial(T.int64(128256), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                                    vax2_fused_0, vax2_fused_2 = T.axis.remap("RR", [ax2_fused_0, ax2_fused_2])
                                    T.reads(rms_norm98_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)], permute_dims194[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
                                    T.writes(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1])
                                    with T.init():
                                        matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = T.float32(0.0)
                                    matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] = matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused, v0, T.int64(0), v1] + T.Cast("float32", rms_norm98_pad[v0, T.int64(0), vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8)]) * T.Cast("float32", permute_dims194[vax2_fused_0 * T.int64(128) + vax2_fused_1_ax2_fused_3_fused // T.int64(8) * T.int64(32) + vax2_fused_2 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused % T.int64(8), v1])
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(4008), T.int64(32), T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("matmul_rf"):
                vax2_fused_1_ax2_fused_3_fused_0, vax2_fused_1_ax2_fused_3_fused_1 = T.axis.remap("SR", [ax2_fused_1_ax2_fused_3_fused_0, ax2_fused_1_ax2_fused_3_fused_1])
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(128256), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1])
                T.writes(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                with T.init():
                    matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = T.float32(0.0)
                matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] = matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1] + matmul_pad_rf[vax2_fused_1_ax2_fused_3_fused_0 * T.int64(8) + vax2_fused_1_ax2_fused_3_fused_1, v0, T.int64(0), v1]
        for ax0_0, ax1_fused_0, ax1_fused_1, ax0_1, ax2_fused_1_ax2_fused_3_fused_0 in T.grid((batch_size + T.int64(3)) // T.int64(4), T.int64(4008), T.int64(32), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                vax2_fused_1_ax2_fused_3_fused_0 = T.axis.reduce(T.int64(4), ax2_fused_1_ax2_fused_3_fused_0)
                v0 = T.axis.spatial((batch_size + T.int64(3)) // T.int64(4) * T.int64(4), ax0_0 * T.int64(4) + ax0_1)
                v1 = T.axis.spatial(T.int64(128256), ax1_fused_0 * T.int64(32) + ax1_fused_1)
                T.reads(matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1])
                T.writes(matmul_pad[v0, T.int64(0), v1])
                with T.init():
                    matmul_pad[v0, T.int64(0), v1] = T.float32(0.0)
                matmul_pad[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1] + matmul_pad_rf_1[vax2_fused_1_ax2_fused_3_fused_0, v0, T.int64(0), v1]
        for ax0, ax1 in T.grid(batch_size, T.int64(128256)):
            with T.sblock("matmul_pad"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_pad[v0, T.int64(0), v1])
                T.writes(matmul[v0, T.int64(0), v1])
                matmul[v0, T.int64(0), v1] = matmul_pad[v0, T.int64(0), v1]

    @T.prim_func(private=True, s_tir=True)
    def matmul5(rms_norm33: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), permute_dims65: T.Buffer((T.int64(2048), T.int64(3072)), "float16"), matmul: T.Buffer((T.int64(1), T.int64(1), T.int64(3072)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        matmul_rf_local = T.sblock_alloc_buffer((T.int64(16), T.int64(1), T.int64(1), T.int64(3072)), "float16", scope="local")
        for ax0_fused_0 in T.thread_binding(T.int64(192), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul_rf_init"):
                        vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(3072), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                        T.reads()
                        T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = T.float16(0.0)
                    for ax1_fused_0, u in T.grid(T.int64(128), 1):
                        with T.sblock("matmul_rf_update"):
                            vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                            v0 = T.axis.spatial(T.int64(3072), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                            vax1_fused_0 = T.axis.reduce(T.int64(128), ax1_fused_0)
                            T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0], rms_norm33[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1], permute_dims65[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
                            T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                            matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] + rms_norm33[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1] * permute_dims65[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0]
            for ax1_fused in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul"):
                        vax1_fused_1 = T.axis.reduce(T.int64(16), ax0)
                        v0 = T.axis.spatial(T.int64(3072), ax0_fused_0 * T.int64(16) + ax1_fused)
                        T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        T.writes(matmul[T.int64(0), T.int64(0), v0])
                        with T.init():
                            matmul[T.int64(0), T.int64(0), v0] = T.float16(0.0)
                        matmul[T.int64(0), T.int64(0), v0] = matmul[T.int64(0), T.int64(0), v0] + matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0]

    @T.prim_func(private=True, s_tir=True)
    def matmul7(rms_norm34: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), permute_dims67: T.Buffer((T.int64(2048), T.int64(16384)), "float16"), matmul: T.Buffer((T.int64(1), T.int64(1), T.int64(16384)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        matmul_rf_local = T.sblock_alloc_buffer((T.int64(16), T.int64(1), T.int64(1), T.int64(16384)), "float16", scope="local")
        for ax0_fused_0 in T.thread_binding(T.int64(1024), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul_rf_init"):
                        vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(16384), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                        T.reads()
                        T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = T.float16(0.0)
                    for ax1_fused_0, u in T.grid(T.int64(128), 1):
                        with T.sblock("matmul_rf_update"):
                            vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                            v0 = T.axis.spatial(T.int64(16384), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                            vax1_fused_0 = T.axis.reduce(T.int64(128), ax1_fused_0)
                            T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0], rms_norm34[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1], permute_dims67[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
                            T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                            matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] + rms_norm34[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1] * permute_dims67[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0]
            for ax1_fused in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul"):
                        vax1_fused_1 = T.axis.reduce(T.int64(16), ax0)
                        v0 = T.axis.spatial(T.int64(16384), ax0_fused_0 * T.int64(16) + ax1_fused)
                        T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        T.writes(matmul[T.int64(0), T.int64(0), v0])
                        with T.init():
                            matmul[T.int64(0), T.int64(0), v0] = T.float16(0.0)
                        matmul[T.int64(0), T.int64(0), v0] = matmul[T.int64(0), T.int64(0), v0] + matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0]

    @T.prim_func(private=True, s_tir=True)
    def matmul9(rms_norm65: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), permute_dims129: T.Buffer((T.int64(2048), T.int64(128256)), "float16"), matmul: T.Buffer((T.int64(1), T.int64(1), T.int64(128256)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        matmul_rf_local = T.sblock_alloc_buffer((T.int64(16), T.int64(1), T.int64(1), T.int64(128256)), scope="local")
        for ax0_fused_0 in T.thread_binding(T.int64(8016), thread="blockIdx.x"):
            for ax0_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax1_fused_1 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul_rf_init"):
                        vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(128256), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                        T.reads()
                        T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = T.float32(0.0)
                    for ax1_fused_0, u in T.grid(T.int64(128), 1):
                        with T.sblock("matmul_rf_update"):
                            vax1_fused_1 = T.axis.spatial(T.int64(16), ax1_fused_1)
                            v0 = T.axis.spatial(T.int64(128256), ax0_fused_0 * T.int64(16) + ax0_fused_1)
                            vax1_fused_0 = T.axis.reduce(T.int64(128), ax1_fused_0)
                            T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0], rms_norm65[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1], permute_dims129[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
                            T.writes(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                            matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] = matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0] + T.Cast("float32", rms_norm65[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(16) + vax1_fused_1]) * T.Cast("float32", permute_dims129[vax1_fused_0 * T.int64(16) + vax1_fused_1, v0])
            for ax1_fused in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                for ax0 in T.thread_binding(T.int64(16), thread="threadIdx.y"):
                    with T.sblock("matmul"):
                        vax1_fused_1 = T.axis.reduce(T.int64(16), ax0)
                        v0 = T.axis.spatial(T.int64(128256), ax0_fused_0 * T.int64(16) + ax1_fused)
                        T.reads(matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0])
                        T.writes(matmul[T.int64(0), T.int64(0), v0])
                        with T.init():
                            matmul[T.int64(0), T.int64(0), v0] = T.float32(0.0)
                        matmul[T.int64(0), T.int64(0), v0] = matmul[T.int64(0), T.int64(0), v0] + matmul_rf_local[vax1_fused_1, T.int64(0), T.int64(0), v0]

    @T.prim_func(private=True, s_tir=True)
    def reshape(matmul130: T.Buffer((batch_size, T.int64(1), T.int64(3072)), "float16"), T_reshape: T.Buffer((batch_size, T.int64(1), T.int64(48), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(batch_size * T.int64(3), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(batch_size, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(3072))
                    v1 = T.axis.spatial(T.int64(48), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(3072) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(matmul130[v0, T.int64(0), v1 * T.int64(64) + v2])
                    T.writes(T_reshape[v0, T.int64(0), v1, v2])
                    T_reshape[v0, T.int64(0), v1, v2] = matmul130[v0, T.int64(0), v1 * T.int64(64) + v2]

    @T.prim_func(private=True, s_tir=True)
    def reshape1(reshape128: T.Buffer((batch_size, T.int64(1), T.int64(48), T.int64(64)), "float16"), T_reshape: T.Buffer((batch_size, T.int64(48), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(batch_size * T.int64(3), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(batch_size, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(3072))
                    v1 = T.axis.spatial(T.int64(48), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(3072) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(reshape128[v0, T.int64(0), v1, v2])
                    T.writes(T_reshape[v0, v1, v2])
                    T_reshape[v0, v1, v2] = reshape128[v0, T.int64(0), v1, v2]

    @T.prim_func(private=True, s_tir=True)
    def reshape10(lv: T.Buffer((seq_len, T.int64(32), T.int64(64)), "float16"), T_reshape: T.Buffer((T.int64(1), seq_len, T.int64(32), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(seq_len * T.int64(2), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(32), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(2048) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(lv[v0, v1, v2])
                    T.writes(T_reshape[T.int64(0), v0, v1, v2])
                    T_reshape[T.int64(0), v0, v1, v2] = lv[v0, v1, v2]

    @T.prim_func(private=True, s_tir=True)
    def reshape11(reshape2: T.Buffer((T.int64(1), seq_len, T.int64(32), T.int64(64)), "float16"), T_reshape: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(seq_len * T.int64(2), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(2048))
                    T.reads(reshape2[T.int64(0), v0, v1 // T.int64(64), v1 % T.int64(64)])
                    T.writes(T_reshape[T.int64(0), v0, v1])
                    T_reshape[T.int64(0), v0, v1] = reshape2[T.int64(0), v0, v1 // T.int64(64), v1 % T.int64(64)]

    @T.prim_func(private=True, s_tir=True)
    def reshape2(lv33: T.Buffer((batch_size, T.int64(32), T.int64(64)), "float16"), T_reshape: T.Buffer((batch_size, T.int64(1), T.int64(32), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(batch_size * T.int64(2), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(batch_size, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(32), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(2048) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(lv33[v0, v1, v2])
                    T.writes(T_reshape[v0, T.int64(0), v1, v2])
                    T_reshape[v0, T.int64(0), v1, v2] = lv33[v0, v1, v2]

    @T.prim_func(private=True, s_tir=True)
    def reshape3(reshape130: T.Buffer((batch_size, T.int64(1), T.int64(32), T.int64(64)), "float16"), T_reshape: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(batch_size * T.int64(2), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(batch_size, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(2048))
                    T.reads(reshape130[v0, T.int64(0), v1 // T.int64(64), v1 % T.int64(64)])
                    T.writes(T_reshape[v0, T.int64(0), v1])
                    T_reshape[v0, T.int64(0), v1] = reshape130[v0, T.int64(0), v1 // T.int64(64), v1 % T.int64(64)]

    @T.prim_func(private=True, s_tir=True)
    def reshape8(matmul: T.Buffer((T.int64(1), seq_len, T.int64(3072)), "float16"), T_reshape: T.Buffer((T.int64(1), seq_len, T.int64(48), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(seq_len * T.int64(3), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(3072))
                    v1 = T.axis.spatial(T.int64(48), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(3072) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(matmul[T.int64(0), v0, v1 * T.int64(64) + v2])
                    T.writes(T_reshape[T.int64(0), v0, v1, v2])
                    T_reshape[T.int64(0), v0, v1, v2] = matmul[T.int64(0), v0, v1 * T.int64(64) + v2]

    @T.prim_func(private=True, s_tir=True)
    def reshape9(reshape: T.Buffer((T.int64(1), seq_len, T.int64(48), T.int64(64)), "float16"), T_reshape: T.Buffer((seq_len, T.int64(48), T.int64(64)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding(seq_len * T.int64(3), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_reshape"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(3072))
                    v1 = T.axis.spatial(T.int64(48), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(3072) // T.int64(64))
                    v2 = T.axis.spatial(T.int64(64), (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64))
                    T.reads(reshape[T.int64(0), v0, v1, v2])
                    T.writes(T_reshape[v0, v1, v2])
                    T_reshape[v0, v1, v2] = reshape[T.int64(0), v0, v1, v2]

    @T.prim_func(private=True, s_tir=True)
    def rms_norm(input_embeds: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16"), model_layers_0_input_layernorm_weight3: T.Buffer((T.int64(2048),), "float16"), T_cast: T.Buffer((batch_size, T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_red_shared = T.sblock_alloc_buffer((batch_size, T.int64(1)), scope="shared")
        T_multiply_red_rf_local = T.sblock_alloc_buffer((T.int64(1024), batch_size, T.int64(1)), scope="local")
        for ax0_fused in T.thread_binding(batch_size, thread="blockIdx.x"):
            for ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x", annotations={"pragma_auto_unroll_max_step": 256, "pragma_unroll_explicit": 1}):
                with T.sblock("T_multiply_red_rf_init"):
                    vax1_fused_1, v0 = T.axis.remap("SS", [ax1_fused_1, ax0_fused])
                    T.reads()
                    T.writes(T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)])
                    T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)] = T.float32(0.0)
                for ax1_fused_0, u in T.grid(T.int64(2), 1):
                    with T.sblock("T_multiply_red_rf_update"):
                        vax1_fused_1, v0, vax1_fused_0 = T.axis.remap("SSR", [ax1_fused_1, ax0_fused, ax1_fused_0])
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)], input_embeds[v0, T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1])
                        T.writes(T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)])
                        T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)] = T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)] + T.Cast("float32", input_embeds[v0, T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1]) * T.Cast("float32", input_embeds[v0, T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1])
            for ax1_fused in range(T.int64(1)):
                for ax0 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_multiply_red"):
                        vax1_fused_1, v0 = T.axis.remap("RS", [ax0, ax0_fused])
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)])
                        T.writes(T_multiply_red_shared[v0, T.int64(0)])
                        with T.init():
                            T_multiply_red_shared[v0, T.int64(0)] = T.float32(0.0)
                        T_multiply_red_shared[v0, T.int64(0)] = T_multiply_red_shared[v0, T.int64(0)] + T_multiply_red_rf_local[vax1_fused_1, v0, T.int64(0)]
            for ax0_ax1_fused_0 in range(T.int64(2)):
                for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_cast_2"):
                        v0 = T.axis.spatial(batch_size, ax0_fused)
                        v1 = T.axis.spatial(T.int64(2048), ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1)
                        T.reads(T_multiply_red_shared[v0, T.int64(0)], input_embeds[v0, T.int64(0), v1], model_layers_0_input_layernorm_weight3[v1])
                        T.writes(T_cast[v0, T.int64(0), v1])
                        T_cast[v0, T.int64(0), v1] = T.Cast("float16", T.rsqrt(T_multiply_red_shared[v0, T.int64(0)] / T.float32(2048.0) + T.float32(1.0000000000000001e-05)) * T.Cast("float32", input_embeds[v0, T.int64(0), v1]) * T.Cast("float32", model_layers_0_input_layernorm_weight3[v1]))

    @T.prim_func(private=True, s_tir=True)
    def rms_norm1(input_embed: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16"), model_layers_0_input_layernorm_weight2: T.Buffer((T.int64(2048),), "float16"), T_cast: T.Buffer((T.int64(1), T.int64(1), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_red_shared = T.sblock_alloc_buffer((T.int64(1), T.int64(1)), scope="shared")
        T_multiply_red_rf_local = T.sblock_alloc_buffer((T.int64(1024), T.int64(1), T.int64(1)), scope="local")
        for ax0_fused in T.thread_binding(T.int64(1), thread="blockIdx.x"):
            for ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x", annotations={"pragma_auto_unroll_max_step": 256, "pragma_unroll_explicit": 1}):
                with T.sblock("T_multiply_red_rf_init"):
                    vax1_fused_1 = T.axis.spatial(T.int64(1024), ax1_fused_1)
                    v0 = T.axis.spatial(T.int64(1), T.int64(0))
                    T.reads()
                    T.writes(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)])
                    T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)] = T.float32(0.0)
                for ax1_fused_0, u in T.grid(T.int64(2), 1):
                    with T.sblock("T_multiply_red_rf_update"):
                        vax1_fused_1 = T.axis.spatial(T.int64(1024), ax1_fused_1)
                        v0 = T.axis.spatial(T.int64(1), T.int64(0))
                        vax1_fused_0 = T.axis.reduce(T.int64(2), ax1_fused_0)
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)], input_embed[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1])
                        T.writes(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)])
                        T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)] = T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)] + T.Cast("float32", input_embed[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1]) * T.Cast("float32", input_embed[T.int64(0), T.int64(0), vax1_fused_0 * T.int64(1024) + vax1_fused_1])
            for ax1_fused in range(T.int64(1)):
                for ax0 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_multiply_red"):
                        vax1_fused_1 = T.axis.reduce(T.int64(1024), ax0)
                        v0 = T.axis.spatial(T.int64(1), T.int64(0))
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)])
                        T.writes(T_multiply_red_shared[T.int64(0), T.int64(0)])
                        with T.init():
                            T_multiply_red_shared[T.int64(0), T.int64(0)] = T.float32(0.0)
                        T_multiply_red_shared[T.int64(0), T.int64(0)] = T_multiply_red_shared[T.int64(0), T.int64(0)] + T_multiply_red_rf_local[vax1_fused_1, T.int64(0), T.int64(0)]
            for ax0_fused_0 in range(T.int64(2)):
                for ax0_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_cast_2"):
                        v0 = T.axis.spatial(T.int64(2048), ax0_fused_0 * T.int64(1024) + ax0_fused_1)
                        T.reads(T_multiply_red_shared[T.int64(0), T.int64(0)], input_embed[T.int64(0), T.int64(0), v0], model_layers_0_input_layernorm_weight2[v0])
                        T.writes(T_cast[T.int64(0), T.int64(0), v0])
                        T_cast[T.int64(0), T.int64(0), v0] = T.Cast("float16", T.rsqrt(T_multiply_red_shared[T.int64(0), T.int64(0)] / T.float32(2048.0) + T.float32(1.0000000000000001e-05)) * T.Cast("float32", input_embed[T.int64(0), T.int64(0), v0]) * T.Cast("float32", model_layers_0_input_layernorm_weight2[v0]))

    @T.prim_func(private=True, s_tir=True)
    def rms_norm2(input_embed: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16"), model_layers_0_input_layernorm_weight1: T.Buffer((T.int64(2048),), "float16"), T_cast: T.Buffer((T.int64(1), seq_len, T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 4, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_red_shared = T.sblock_alloc_buffer((T.int64(1), seq_len), scope="shared")
        T_multiply_red_rf_local = T.sblock_alloc_buffer((T.int64(1024), T.int64(1), seq_len), scope="local")
        for ax0_fused in T.thread_binding(seq_len, thread="blockIdx.x"):
            for ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x", annotations={"pragma_auto_unroll_max_step": 256, "pragma_unroll_explicit": 1}):
                with T.sblock("T_multiply_red_rf_init"):
                    vax1_fused_1, v0 = T.axis.remap("SS", [ax1_fused_1, ax0_fused])
                    T.reads()
                    T.writes(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0])
                    T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0] = T.float32(0.0)
                for ax1_fused_0, u in T.grid(T.int64(2), 1):
                    with T.sblock("T_multiply_red_rf_update"):
                        vax1_fused_1, v0, vax1_fused_0 = T.axis.remap("SSR", [ax1_fused_1, ax0_fused, ax1_fused_0])
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0], input_embed[T.int64(0), v0, vax1_fused_0 * T.int64(1024) + vax1_fused_1])
                        T.writes(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0])
                        T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0] = T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0] + T.Cast("float32", input_embed[T.int64(0), v0, vax1_fused_0 * T.int64(1024) + vax1_fused_1]) * T.Cast("float32", input_embed[T.int64(0), v0, vax1_fused_0 * T.int64(1024) + vax1_fused_1])
            for ax1_fused in range(T.int64(1)):
                for ax0 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_multiply_red"):
                        vax1_fused_1, v0 = T.axis.remap("RS", [ax0, ax0_fused])
                        T.reads(T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0])
                        T.writes(T_multiply_red_shared[T.int64(0), v0])
                        with T.init():
                            T_multiply_red_shared[T.int64(0), v0] = T.float32(0.0)
                        T_multiply_red_shared[T.int64(0), v0] = T_multiply_red_shared[T.int64(0), v0] + T_multiply_red_rf_local[vax1_fused_1, T.int64(0), v0]
            for ax0_ax1_fused_0 in range(T.int64(2)):
                for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                    with T.sblock("T_cast_2"):
                        v0 = T.axis.spatial(seq_len, ax0_fused)
                        v1 = T.axis.spatial(T.int64(2048), ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1)
                        T.reads(T_multiply_red_shared[T.int64(0), v0], input_embed[T.int64(0), v0, v1], model_layers_0_input_layernorm_weight1[v1])
                        T.writes(T_cast[T.int64(0), v0, v1])
                        T_cast[T.int64(0), v0, v1] = T.Cast("float16", T.rsqrt(T_multiply_red_shared[T.int64(0), v0] / T.float32(2048.0) + T.float32(1.0000000000000001e-05)) * T.Cast("float32", input_embed[T.int64(0), v0, v1]) * T.Cast("float32", model_layers_0_input_layernorm_weight1[v1]))

    @T.prim_func(private=True, s_tir=True)
    def take(model_embed_tokens_weight: T.Buffer((T.int64(128256), T.int64(2048)), "float16"), input_ids: T.Buffer((seq_len,), "int32"), T_take: T.Buffer((seq_len, T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(seq_len * T.int64(2), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_take"):
                    v0 = T.axis.spatial(seq_len, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(2048))
                    T.reads(model_embed_tokens_weight[input_ids[v0], v1], input_ids[v0])
                    T.writes(T_take[v0, v1])
                    T_take[v0, v1] = model_embed_tokens_weight[input_ids[v0], v1]

    @T.prim_func(s_tir=True)
    def tir_attention_merge_state(V: T.Buffer(("N", "H", "D"), "float16"), S: T.Buffer((N, H), "float32"), V_other: T.Buffer((N, H, D), "float16"), S_other: T.Buffer((N, H), "float32")):
        N, H, D = T.int32(), T.int32(), T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        for bx in T.thread_binding(N, thread="blockIdx.x"):
            for by in T.thread_binding(1, thread="blockIdx.y"):
                for ty in T.thread_binding(32, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        with T.sblock("merge"):
                            T.reads(S[bx, ty + by * 32], S_other[bx, ty + by * 32], V[bx, ty + by * 32, tx * 4:tx * 4 + 4], V_other[bx, ty + by * 32, tx * 4:tx * 4 + 4])
                            T.writes(V[bx, ty + by * 32, tx * 4:tx * 4 + 4], S[bx, ty + by * 32])
                            s_val = T.sblock_alloc_buffer((1,), scope="local")
                            s_other_val = T.sblock_alloc_buffer((1,), scope="local")
                            s_max = T.sblock_alloc_buffer((1,), scope="local")
                            scale = T.sblock_alloc_buffer((1,), scope="local")
                            other_scale = T.sblock_alloc_buffer((1,), scope="local")
                            v_vec = T.sblock_alloc_buffer((4,), "float16", scope="local")
                            v_other_vec = T.sblock_alloc_buffer((4,), "float16", scope="local")
                            s_val[0] = S[bx, ty + by * 32]
                            s_other_val[0] = S_other[bx, ty + by * 32]
                            s_max[0] = T.max(s_val[0], s_other_val[0])
                            s_val[0] = T.exp2(s_val[0] - s_max[0])
                            s_other_val[0] = T.exp2(s_other_val[0] - s_max[0])
                            scale[0] = s_val[0] / (s_val[0] + s_other_val[0])
                            other_scale[0] = s_other_val[0] / (s_val[0] + s_other_val[0])
                            for vec in T.vectorized(4):
                                v_vec[vec] = V[bx, ty + by * 32, tx * 4 + vec]
                            for vec in T.vectorized(4):
                                v_other_vec[vec] = V_other[bx, ty + by * 32, tx * 4 + vec]
                            for vec in range(4):
                                v_vec[vec] = T.Cast("float16", T.Cast("float32", v_vec[vec]) * scale[0] + T.Cast("float32", v_other_vec[vec]) * other_scale[0])
                            for vec in T.vectorized(4):
                                V[bx, ty + by * 32, tx * 4 + vec] = v_vec[vec]
                            S[bx, ty + by * 32] = T.log2(s_val[0] + s_other_val[0]) + s_max[0]

    @T.prim_func(s_tir=True)
    def tir_kv_cache_debug_get_kv(pages: T.Buffer((num_pages, 2, 8, page_size, 64), "float16", elem_offset=pages_elem_offset), position_map: T.Buffer((seqlen,), "int32", elem_offset=position_map_elem_offset), k_data: T.Buffer((16, seqlen, 8, 64), "float16"), v_data: T.Buffer((16, seqlen, 8, 64), "float16"), layer_id: T.int64):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_ax2_fused_0 in T.thread_binding((seqlen * T.int64(512) + T.int64(1023)) // T.int64(1024), thread="blockIdx.x"):
            for ax0_ax1_ax2_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("copy0"):
                    v0 = T.axis.spatial(seqlen, (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) // T.int64(512))
                    v1 = T.axis.spatial(8, T.Cast("int32", (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(512) // T.int64(64)))
                    v2 = T.axis.spatial(64, T.Cast("int32", (ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1) % T.int64(64)))
                    T.where(ax0_ax1_ax2_fused_0 * T.int64(1024) + ax0_ax1_ax2_fused_1 < seqlen * T.int64(512))
                    T.reads(position_map[v0], pages[T.Cast("int64", position_map[v0]) // page_size, 0:2, v1, T.Cast("int64", position_map[v0]) % page_size, v2])
                    T.writes(k_data[layer_id, v0, v1, v2], v_data[layer_id, v0, v1, v2])
                    position: T.int32 = position_map[v0]
                    k_data[layer_id, v0, v1, v2] = pages[T.Cast("int64", position) // page_size, 0, v1, T.Cast("int64", position) % page_size, v2]
                    v_data[layer_id, v0, v1, v2] = pages[T.Cast("int64", position) // page_size, 1, v1, T.Cast("int64", position) % page_size, v2]

    @T.prim_func(s_tir=True)
    def tir_kv_cache_transpose_append(pages: T.Buffer((num_pages, 2, 8, 16, 64), "float16", elem_offset=pages_elem_offset), k_data: T.Buffer((ntoken, 8, 64), "float16"), v_data: T.Buffer((ntoken, 8, 64), "float16"), position_map: T.Buffer((ntoken,), "int32", offset_factor=1)):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for global_pos_h_f_fused_0 in T.thread_binding((ntoken * T.int64(512) + T.int64(1023)) // T.int64(1024), thread="blockIdx.x"):
            for global_pos_h_f_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                if position_map[(global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) // T.int64(512)] != -1:
                    with T.sblock("k_transpose_append"):
                        vgpos = T.axis.spatial(ntoken, (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) // T.int64(512))
                        vh = T.axis.spatial(8, T.Cast("int32", (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) % T.int64(512) // T.int64(64)))
                        vf = T.axis.spatial(64, T.Cast("int32", (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) % T.int64(64)))
                        T.where(global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1 < ntoken * T.int64(512))
                        T.reads(position_map[vgpos], k_data[vgpos, vh, vf])
                        T.writes(pages[position_map[vgpos] // 16, 0, vh, position_map[vgpos] % 16, vf])
                        position: T.int32 = position_map[vgpos]
                        pages[position // 16, 0, vh, position % 16, vf] = k_data[vgpos, vh, vf]
                    with T.sblock("v_transpose_append"):
                        vgpos = T.axis.spatial(ntoken, (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) // T.int64(512))
                        vh = T.axis.spatial(8, T.Cast("int32", (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) % T.int64(512) // T.int64(64)))
                        vf = T.axis.spatial(64, T.Cast("int32", (global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1) % T.int64(64)))
                        T.where(global_pos_h_f_fused_0 * T.int64(1024) + global_pos_h_f_fused_1 < ntoken * T.int64(512))
                        T.reads(position_map[vgpos], v_data[vgpos, vh, vf])
                        T.writes(pages[position_map[vgpos] // 16, 1, vh, position_map[vgpos] % 16, vf])
                        position: T.int32 = position_map[vgpos]
                        pages[position // 16, 1, vh, position % 16, vf] = v_data[vgpos, vh, vf]

    @T.prim_func(s_tir=True)
    def tir_kv_cache_transpose_append_mla(pages: T.Buffer((num_pages, 16, 64), "float16", elem_offset=pages_elem_offset), kv_data: T.Buffer((ntoken, 64), "float16"), position_map: T.Buffer((ntoken,), "int32", offset_factor=1)):
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding((ntoken * T.int64(64) + T.int64(1023)) // T.int64(1024), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("k_transpose_append"):
                    v0 = T.axis.spatial(ntoken, (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(64))
                    v1 = T.axis.spatial(64, T.Cast("int32", (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(64)))
                    T.where(ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1 < ntoken * T.int64(64))
                    T.reads(position_map[v0], kv_data[v0, v1])
                    T.writes(pages[position_map[v0] // 16, position_map[v0] % 16, v1])
                    position: T.int32 = position_map[v0]
                    pages[position // 16, position % 16, v1] = kv_data[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(model_layers_0_self_attn_qkv_proj_weight3: T.Buffer((T.int64(3072), T.int64(2048)), "float16"), T_transpose: T.Buffer((T.int64(2048), T.int64(3072)), "float16")):
        T.func_attr({"op_pattern": 2, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(6144), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_transpose"):
                    v0 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(3072))
                    v1 = T.axis.spatial(T.int64(3072), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(3072))
                    T.reads(model_layers_0_self_attn_qkv_proj_weight3[v1, v0])
                    T.writes(T_transpose[v0, v1])
                    T_transpose[v0, v1] = model_layers_0_self_attn_qkv_proj_weight3[v1, v0]

    @T.prim_func(private=True, s_tir=True)
    def transpose1(model_layers_0_self_attn_o_proj_weight3: T.Buffer((T.int64(2048), T.int64(2048)), "float16"), T_transpose: T.Buffer((T.int64(2048), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 2, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(4096), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_transpose"):
                    v0 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(2048))
                    T.reads(model_layers_0_self_attn_o_proj_weight3[v1, v0])
                    T.writes(T_transpose[v0, v1])
                    T_transpose[v0, v1] = model_layers_0_self_attn_o_proj_weight3[v1, v0]

    @T.prim_func(private=True, s_tir=True)
    def transpose2(model_layers_0_mlp_gate_up_proj_weight3: T.Buffer((T.int64(16384), T.int64(2048)), "float16"), T_transpose: T.Buffer((T.int64(2048), T.int64(16384)), "float16")):
        T.func_attr({"op_pattern": 2, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(32768), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_transpose"):
                    v0 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(16384))
                    v1 = T.axis.spatial(T.int64(16384), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(16384))
                    T.reads(model_layers_0_mlp_gate_up_proj_weight3[v1, v0])
                    T.writes(T_transpose[v0, v1])
                    T_transpose[v0, v1] = model_layers_0_mlp_gate_up_proj_weight3[v1, v0]

    @T.prim_func(private=True, s_tir=True)
    def transpose3(model_layers_0_mlp_down_proj_weight3: T.Buffer((T.int64(2048), T.int64(8192)), "float16"), T_transpose: T.Buffer((T.int64(8192), T.int64(2048)), "float16")):
        T.func_attr({"op_pattern": 2, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(16384), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_transpose"):
                    v0 = T.axis.spatial(T.int64(8192), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(2048))
                    v1 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(2048))
                    T.reads(model_layers_0_mlp_down_proj_weight3[v1, v0])
                    T.writes(T_transpose[v0, v1])
                    T_transpose[v0, v1] = model_layers_0_mlp_down_proj_weight3[v1, v0]

    @T.prim_func(private=True, s_tir=True)
    def transpose4(model_embed_tokens_weight3: T.Buffer((T.int64(128256), T.int64(2048)), "float16"), T_transpose: T.Buffer((T.int64(2048), T.int64(128256)), "float16")):
        T.func_attr({"op_pattern": 2, "tirx.is_scheduled": True, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0_ax1_fused_0 in T.thread_binding(T.int64(256512), thread="blockIdx.x"):
            for ax0_ax1_fused_1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("T_transpose"):
                    v0 = T.axis.spatial(T.int64(2048), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) // T.int64(128256))
                    v1 = T.axis.spatial(T.int64(128256), (ax0_ax1_fused_0 * T.int64(1024) + ax0_ax1_fused_1) % T.int64(128256))
                    T.reads(model_embed_tokens_weight3[v1, v0])
                    T.writes(T_transpose[v0, v1])
                    T_transpose[v0, v1] = model_embed_tokens_weight3[v1, v0]

    @T.prim_func(s_tir=True)
    def tree_attn_paged_kv(q: T.Buffer(("total_len", 32, 64), "float16"), q_indptr: T.Buffer(("batch_size + 1",), "int32", offset_factor=1), pages: T.Buffer(("max_num_pages", 2, 8, 16, 64), "float16"), page_indptr: T.Buffer((batch_size + 1,), "int32", offset_factor=1), page_values: T.Buffer(("nnz_pages",), "int32", offset_factor=1), length_info: T.Buffer((batch_size,), "int32", offset_factor=1), k_rope_pos_offset: T.Buffer((batch_size,), "int32", offset_factor=1), q_rope_position: T.Buffer((total_len,), "int32", offset_factor=1), output: T.Buffer((total_len, 32, 64), "float16"), lse: T.Buffer((total_len, 32), "float32"), rotary_mode: T.int32, rope_scale: T.float32, rope_theta: T.float32, sm_scale: T.float32, tree_order_indptr: T.Buffer((batch_size + 1,), "int32", offset_factor=1), tree_order: T.Buffer(("total_tree_order_len", 2), "int32", offset_factor=1)):
        total_len = T.int32()
        batch_size = T.int32()
        max_num_pages = T.int32()
        nnz_pages = T.int32()
        total_tree_order_len = T.int32()
        T.func_attr({"op_pattern": 8, "tirx.is_scheduled": True})
        # with T.sblock("root"):
        assert rotary_mode == 0, ("RuntimeError", ["Inline rotary mode is not supported in tree attention."])
        for lbx in T.thread_binding(16, thread="blockIdx.x"):
            for lby in T.thread_binding(8, thread="blockIdx.y"):
                for lty in T.thread_binding(4, thread="threadIdx.y"):
                    for ltx in T.thread_binding(32, thread="threadIdx.x"):
                        with T.sblock("attn"):
                            bx, by, ty, tx = T.axis.remap("SSSS", [lbx, lby, lty, ltx])
                            T.reads()
                            T.writes()
                            tile_id = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_idx = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_tiles = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            batch_rows = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            iterator = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            kv_chunk_len = T.sblock_alloc_buffer((1,), "int32", scope="local")
                            Q_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            K_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            V_smem = T.sblock_alloc_buffer((32, 64), "float16", scope="shared")
                            O_local = T.sblock_alloc_buffer((32, 64), scope="local")
                            S_smem = T.sblock_alloc_buffer((32, 32), scope="shared")
                            S_local = T.sblock_alloc_buffer((32, 32), scope="local")
                            m_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_prev_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            d_smem = T.sblock_alloc_buffer((32,), scope="shared")
                            m_new = T.sblock_alloc_buffer((1,), scope="local")
                            m_prev = T.sblock_alloc_buffer((1,), scope="local")
                            d_new = T.sblock_alloc_buffer((1,), scope="local")
                            tile_id[0] = bx
                            batch_idx[0] = 0
                            batch_rows[0] = (q_indptr[1] - q_indptr[0]) * 4
                            batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                            while T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                while tile_id[0] >= batch_tiles[0] and batch_idx[0] < batch_size:
                                    tile_id[0] = tile_id[0] - batch_tiles[0]
                                    batch_idx[0] = batch_idx[0] + 1
                                    if batch_idx[0] < batch_size:
                                        b_idx: T.let[T.int32] = batch_idx[0]
                                        batch_rows[0] = (q_indptr[b_idx + 1] - q_indptr[b_idx]) * 4
                                        batch_tiles[0] = (batch_rows[0] + 32 - 1) // 32
                                if T.tvm_thread_invariant(batch_idx[0] < batch_size):
                                    b_idx: T.let[T.int32] = batch_idx[0]
                                    LH_start: T.let[T.int32] = tile_id[0] * 32
                                    q_indptr_val: T.let[T.int32] = q_indptr[b_idx]
                                    cur_page_indptr_begin: T.let[T.int32] = page_indptr[b_idx]
                                    cur_page_indptr_end: T.let[T.int32] = page_indptr[b_idx + 1]
                                    kv_chunk_len[0] = T.if_then_else(cur_page_indptr_begin != cur_page_indptr_end, (cur_page_indptr_end - cur_page_indptr_begin - 1) * 16 + length_info[b_idx], 0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for i in range(1):
                                        row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                        if row < 32:
                                            m_smem[row] = T.float32(-50000.0)
                                            d_smem[row] = T.float32(1.0)
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1, lj_1 in T.grid(4, 4):
                                                with T.sblock("O_init"):
                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                    T.reads()
                                                    T.writes(O_local[i, j])
                                                    O_local[i, j] = T.float32(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for li_lj_fused_0 in range(4):
                                        for li_lj_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_lj_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_lj_fused_3 in T.vectorized(4):
                                                    with T.sblock("Q_load"):
                                                        i = T.axis.spatial(32, (li_lj_fused_0 * 512 + li_lj_fused_1 * 128 + li_lj_fused_2 * 4 + li_lj_fused_3) // 64)
                                                        j = T.axis.spatial(64, (li_lj_fused_0 * 512 + li_lj_fused_1 * 128 + li_lj_fused_2 * 4 + li_lj_fused_3) % 64)
                                                        T.reads()
                                                        T.writes()
                                                        cur_L: T.let[T.int32] = q_indptr_val + (LH_start + i) // 4
                                                        cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                        if cur_L < q_indptr[b_idx + 1]:
                                                            freq = T.float32()
                                                            Q_smem[i, j] = T.if_then_else(rotary_mode == 1, T.Let(T.Cast("float16", T.cos(freq) * T.Cast("float32", q[cur_L, cur_H_qo, j]) + T.sin(freq) * T.Cast("float32", T.if_then_else(j < 32, q[cur_L, cur_H_qo, j + 32] * T.float16(-1.0), q[cur_L, cur_H_qo, j - 32]))), where={freq: T.Cast("float32", q_rope_position[cur_L]) * rope_scale / T.pow(rope_theta, T.Cast("float32", j * 2 % 64) / T.float32(64.0))}), q[cur_L, cur_H_qo, j])
                                                        else:
                                                            Q_smem[i, j] = T.float16(0.0)
                                    T.tvm_storage_sync("shared", T.bool(False), -1)
                                    for iterator_1 in range((kv_chunk_len[0] + 31) // 32):
                                        L_kv_start: T.let[T.int32] = iterator_1 * 32
                                        for lz_ly_fused_0 in range(4):
                                            for lz_ly_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                                                for lz_ly_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lz_ly_fused_3 in T.vectorized(4):
                                                        with T.sblock("K_load"):
                                                            i = T.axis.spatial(32, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) // 64)
                                                            j = T.axis.spatial(64, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) % 64)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = cur_L
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                K_smem[i, j] = pages[page_no, 0, by, page_offset, j]
                                                            else:
                                                                K_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for lz_ly_fused_0 in range(4):
                                            for lz_ly_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                                                for lz_ly_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lz_ly_fused_3 in T.vectorized(4):
                                                        with T.sblock("V_load"):
                                                            i = T.axis.spatial(32, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) // 64)
                                                            j = T.axis.spatial(64, (lz_ly_fused_0 * 512 + lz_ly_fused_1 * 128 + lz_ly_fused_2 * 4 + lz_ly_fused_3) % 64)
                                                            T.reads()
                                                            T.writes()
                                                            cur_L: T.let[T.int32] = L_kv_start + i
                                                            if cur_L < kv_chunk_len[0]:
                                                                seq_offset: T.let[T.int32] = cur_L
                                                                page_no: T.let[T.int32] = page_values[cur_page_indptr_begin + seq_offset // 16]
                                                                page_offset: T.let[T.int32] = seq_offset % 16
                                                                V_smem[i, j] = pages[page_no, 1, by, page_offset, j]
                                                            else:
                                                                V_smem[i, j] = T.float16(0.0)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(Q_smem[0:32, 0:64], K_smem[0:32, 0:64])
                                            T.writes(S_local[0:32, 0:32])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init, lj_1_init in T.grid(2, 4):
                                                        with T.sblock("S_gemm_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 8 * 2 + li_1_init)
                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 8 * 4 + lj_1_init)
                                                            T.reads()
                                                            T.writes(S_local[i, j])
                                                            S_local[i, j] = T.float32(0.0)
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, li_1, lj_1, lk_1 in T.grid(8, 2, 4, 8):
                                                        with T.sblock("S_gemm_update"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                            j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1)
                                                            k = T.axis.reduce(64, lk_0 * 8 + lk_1)
                                                            T.reads(S_local[i, j], Q_smem[i, k], K_smem[j, k])
                                                            T.writes(S_local[i, j])
                                                            S_local[i, j] = S_local[i, j] + T.Cast("float32", Q_smem[i, k]) * T.Cast("float32", K_smem[j, k]) * sm_scale * T.float32(1.4426950408889634)
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                for li_1, lj_1 in T.grid(2, 4):
                                                    with T.sblock("S_store"):
                                                        i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 8 * 2 + li_1)
                                                        j = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 8 * 4 + lj_1)
                                                        T.reads(S_local[i, j])
                                                        T.writes(S_smem[i, j])
                                                        S_smem[i, j] = S_local[i, j]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update1"):
                                                    T.reads(m_smem[row], kv_chunk_len[0], tree_order_indptr[b_idx:b_idx + 2], tree_order[T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0]):T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0]) + (T.max((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] + 31 - kv_chunk_len[0]) + 1 - T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0])), 0:2], q_indptr[b_idx:b_idx + 2], m_new[i], S_smem[row, 0:32], d_smem[row], m_prev[i])
                                                    T.writes(m_prev[i], m_new[i], d_new[i])
                                                    m_prev[i] = m_smem[row]
                                                    m_new[i] = m_smem[row]
                                                    row_: T.let[T.int32] = (LH_start + row) // 4
                                                    for j in range(32):
                                                        if L_kv_start + j < kv_chunk_len[0] and (L_kv_start + j < kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) or tree_order[tree_order_indptr[b_idx] + (row_ + (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] >= tree_order[tree_order_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]))), 0] and tree_order[tree_order_indptr[b_idx] + (row_ + (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] < tree_order[tree_order_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]))), 1]):
                                                            m_new[i] = T.max(m_new[i], S_smem[row, j])
                                                    d_new[i] = d_smem[row] * T.exp2(m_prev[i] - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            with T.sblock("update"):
                                                T.reads(kv_chunk_len[0], tree_order_indptr[b_idx:b_idx + 2], tree_order[T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0]):T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0]) + (T.max((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] + 31 - kv_chunk_len[0]) + 1 - T.min((LH_start + row) // 4 + tree_order_indptr[b_idx + 1] + q_indptr[b_idx] - q_indptr[b_idx + 1], L_kv_start + tree_order_indptr[b_idx + 1] - kv_chunk_len[0])), 0:2], q_indptr[b_idx:b_idx + 2], S_smem[row, 0:32], m_new[i])
                                                T.writes(S_smem[row, 0:32])
                                                for j in range(32):
                                                    if row < 32:
                                                        row_: T.let[T.int32] = (LH_start + row) // 4
                                                        if L_kv_start + j < kv_chunk_len[0] and (L_kv_start + j < kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) or tree_order[tree_order_indptr[b_idx] + (row_ + (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] >= tree_order[tree_order_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]))), 0] and tree_order[tree_order_indptr[b_idx] + (row_ + (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]) - (q_indptr[b_idx + 1] - q_indptr[b_idx])), 0] < tree_order[tree_order_indptr[b_idx] + (L_kv_start + j - (kv_chunk_len[0] - (tree_order_indptr[b_idx + 1] - tree_order_indptr[b_idx]))), 1]):
                                                            S_smem[row, j] = T.exp2(S_smem[row, j] - m_new[i])
                                                        else:
                                                            S_smem[row, j] = T.exp2(T.float32(-50000.0) - m_new[i])
                                        for i in range(1):
                                            row: T.let[T.int32] = i * 32 * 4 + ty * 32 + tx
                                            if row < 32:
                                                with T.sblock("update"):
                                                    T.reads(d_new[i], S_smem[row, 0:32], m_new[i], m_prev[i])
                                                    T.writes(d_new[i], m_smem[row], d_smem[row], m_prev_smem[row])
                                                    for j in range(32):
                                                        d_new[i] = d_new[i] + S_smem[row, j]
                                                    m_smem[row] = m_new[i]
                                                    d_smem[row] = d_new[i]
                                                    m_prev_smem[row] = m_prev[i]
                                        T.tvm_storage_sync("shared", T.bool(False), -1)
                                        with T.sblock(""):
                                            T.reads(m_prev_smem[0:32], m_smem[0:32], S_smem[0:32, 0:32], V_smem[0:32, 0:64])
                                            T.writes(O_local[0:32, 0:64])
                                            for li_0_lj_0_fused_0_init in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1_init in T.thread_binding(32, thread="threadIdx.x"):
                                                    for li_1_init, lj_1_init in T.grid(4, 4):
                                                        with T.sblock("O_gemm_init"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) // 16 * 4 + li_1_init)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0_init * 32 + li_0_lj_0_fused_1_init) % 16 * 4 + lj_1_init)
                                                            T.reads()
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = O_local[i, j] * T.exp2(m_prev_smem[i] - m_smem[i])
                                            for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                                for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                                    for lk_0, lk_1, li_1, lj_1 in T.grid(4, 8, 4, 4):
                                                        with T.sblock("O_gemm_update"):
                                                            i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                            j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                            k = T.axis.reduce(32, lk_0 * 8 + lk_1)
                                                            T.reads(O_local[i, j], m_prev_smem[i], m_smem[i], S_smem[i, k], V_smem[k, j])
                                                            T.writes(O_local[i, j])
                                                            O_local[i, j] = O_local[i, j] + S_smem[i, k] * T.Cast("float32", V_smem[k, j])
                                    for li_0_lj_0_fused_0 in T.thread_binding(4, thread="threadIdx.y"):
                                        for li_0_lj_0_fused_1 in T.thread_binding(32, thread="threadIdx.x"):
                                            for li_1, lj_1 in T.grid(4, 4):
                                                with T.sblock("O_store"):
                                                    i = T.axis.spatial(32, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) // 16 * 4 + li_1)
                                                    j = T.axis.spatial(64, (li_0_lj_0_fused_0 * 32 + li_0_lj_0_fused_1) % 16 * 4 + lj_1)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], O_local[i, j], d_smem[i])
                                                    T.writes(output[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4, j])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        output[cur_L, cur_H_qo, j] = T.Cast("float16", O_local[i, j] / d_smem[i])
                                    for li_0 in range(1):
                                        for li_1 in T.thread_binding(4, thread="threadIdx.y"):
                                            for li_2 in T.thread_binding(32, thread="threadIdx.x"):
                                                with T.sblock("lse_store"):
                                                    i = T.axis.spatial(32, li_0 * 128 + li_1 * 32 + li_2)
                                                    T.where((li_0 * 4 + li_1) * 32 + li_2 < 32)
                                                    T.reads(q_indptr[b_idx:b_idx + 2], m_smem[i], d_smem[i])
                                                    T.writes(lse[q_indptr[b_idx] + (LH_start + i) // 4, by * 4 + (LH_start + i) % 4])
                                                    cur_L: T.let[T.int32] = q_indptr[b_idx] + (LH_start + i) // 4
                                                    cur_H_qo: T.let[T.int32] = by * 4 + (LH_start + i) % 4
                                                    if cur_L < q_indptr[b_idx + 1]:
                                                        lse[cur_L, cur_H_qo] = m_smem[i] + T.log2(d_smem[i])
                                    tile_id[0] = tile_id[0] + 16

    @R.function
    def batch_decode(input_embeds: R.Tensor((batch_size, 1, 2048), dtype="float16"), paged_kv_cache: R.Any, packed_params: R.Tuple(R.Tensor((128256, 2048), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"))) -> R.Tuple(R.Tensor((batch_size, 1, 128256), dtype="float32"), R.Any):
        R.func_attr({"num_input": 2, "relax.force_pure": True, "relax.rewrite_cuda_graph.capture_symbolic_vars": ["batch_size"], "tir_non_negative_var": ["vocab_size"], "tir_var_upper_bound": {"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}})
        cls = Module
        model_embed_tokens_weight3: R.Tensor((128256, 2048), dtype="float16") = packed_params[0]
        model_layers_0_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[1]
        model_layers_0_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[2]
        model_layers_0_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[3]
        model_layers_0_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[4]
        model_layers_0_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[5]
        model_layers_0_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[6]
        model_layers_1_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[7]
        model_layers_1_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[8]
        model_layers_1_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[9]
        model_layers_1_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[10]
        model_layers_1_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[11]
        model_layers_1_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[12]
        model_layers_2_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[13]
        model_layers_2_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[14]
        model_layers_2_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[15]
        model_layers_2_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[16]
        model_layers_2_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[17]
        model_layers_2_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[18]
        model_layers_3_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[19]
        model_layers_3_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[20]
        model_layers_3_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[21]
        model_layers_3_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[22]
        model_layers_3_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[23]
        model_layers_3_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[24]
        model_layers_4_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[25]
        model_layers_4_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[26]
        model_layers_4_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[27]
        model_layers_4_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[28]
        model_layers_4_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[29]
        model_layers_4_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[30]
        model_layers_5_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[31]
        model_layers_5_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[32]
        model_layers_5_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[33]
        model_layers_5_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[34]
        model_layers_5_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[35]
        model_layers_5_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[36]
        model_layers_6_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[37]
        model_layers_6_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[38]
        model_layers_6_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[39]
        model_layers_6_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[40]
        model_layers_6_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[41]
        model_layers_6_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[42]
        model_layers_7_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[43]
        model_layers_7_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[44]
        model_layers_7_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[45]
        model_layers_7_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[46]
        model_layers_7_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[47]
        model_layers_7_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[48]
        model_layers_8_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[49]
        model_layers_8_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[50]
        model_layers_8_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[51]
        model_layers_8_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[52]
        model_layers_8_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[53]
        model_layers_8_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[54]
        model_layers_9_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[55]
        model_layers_9_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[56]
        model_layers_9_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[57]
        model_layers_9_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[58]
        model_layers_9_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[59]
        model_layers_9_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[60]
        model_layers_10_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[61]
        model_layers_10_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[62]
        model_layers_10_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[63]
        model_layers_10_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[64]
        model_layers_10_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[65]
        model_layers_10_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[66]
        model_layers_11_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[67]
        model_layers_11_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[68]
        model_layers_11_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[69]
        model_layers_11_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[70]
        model_layers_11_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[71]
        model_layers_11_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[72]
        model_layers_12_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[73]
        model_layers_12_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[74]
        model_layers_12_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[75]
        model_layers_12_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[76]
        model_layers_12_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[77]
        model_layers_12_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[78]
        model_layers_13_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[79]
        model_layers_13_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[80]
        model_layers_13_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[81]
        model_layers_13_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[82]
        model_layers_13_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[83]
        model_layers_13_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[84]
        model_layers_14_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[85]
        model_layers_14_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[86]
        model_layers_14_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[87]
        model_layers_14_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[88]
        model_layers_14_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[89]
        model_layers_14_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[90]
        model_layers_15_self_attn_qkv_proj_weight3: R.Tensor((3072, 2048), dtype="float16") = packed_params[91]
        model_layers_15_self_attn_o_proj_weight3: R.Tensor((2048, 2048), dtype="float16") = packed_params[92]
        model_layers_15_mlp_gate_up_proj_weight3: R.Tensor((16384, 2048), dtype="float16") = packed_params[93]
        model_layers_15_mlp_down_proj_weight3: R.Tensor((2048, 8192), dtype="float16") = packed_params[94]
        model_layers_15_input_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[95]
        model_layers_15_post_attention_layernorm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[96]
        model_norm_weight3: R.Tensor((2048,), dtype="float16") = packed_params[97]
        storage: R.Any = R.memory.alloc_storage(R.shape([524288]), 0, R.str("global"), R.dtype("float16"))
        alloc: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(input_embeds, model_layers_0_input_layernorm_weight3, alloc)
        rms_norm66: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc
        storage1: R.Any = R.memory.alloc_storage(R.shape([525336576]), 0, R.str("global"), R.dtype("float16"))
        alloc1: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_0_self_attn_qkv_proj_weight3, alloc1)
        permute_dims130: R.Tensor((2048, 3072), dtype="float16") = alloc1
        storage2: R.Any = R.memory.alloc_storage(R.shape([524288]), 0, R.str("global"), R.dtype("float16"))
        alloc2: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm66, permute_dims130, alloc2)
        matmul130: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc2
        reshape128: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul130, R.shape([batch_size, 1, 48, 64]))
        reshape129: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape128, R.shape([batch_size, 48, 64]))
        alloc3: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _3: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 0, T.float64(0.125), reshape129, alloc3)
        lv33: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc3
        reshape130: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv33, R.shape([batch_size, 1, 32, 64]))
        reshape131: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape130, R.shape([batch_size, 1, 2048]))
        alloc4: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_0_self_attn_o_proj_weight3, alloc4)
        permute_dims131: R.Tensor((2048, 2048), dtype="float16") = alloc4
        alloc5: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape131, permute_dims131, input_embeds, alloc5)
        lv: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc5
        alloc6: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv, model_layers_0_post_attention_layernorm_weight3, alloc6)
        rms_norm67: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc6
        alloc7: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_0_mlp_gate_up_proj_weight3, alloc7)
        permute_dims132: R.Tensor((2048, 16384), dtype="float16") = alloc7
        storage3: R.Any = R.memory.alloc_storage(R.shape([1048576]), 0, R.str("global"), R.dtype("float16"))
        alloc8: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm67, permute_dims132, alloc8)
        matmul132: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc8
        alloc9: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul132, alloc9)
        lv1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc9
        alloc10: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_0_mlp_down_proj_weight3, alloc10)
        permute_dims133: R.Tensor((8192, 2048), dtype="float16") = alloc10
        alloc11: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv1, permute_dims133, lv, alloc11)
        lv2: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc11
        alloc12: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv2, model_layers_1_input_layernorm_weight3, alloc12)
        rms_norm68: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc12
        alloc13: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_1_self_attn_qkv_proj_weight3, alloc13)
        permute_dims134: R.Tensor((2048, 3072), dtype="float16") = alloc13
        alloc14: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm68, permute_dims134, alloc14)
        matmul134: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc14
        reshape132: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul134, R.shape([batch_size, 1, 48, 64]))
        reshape133: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape132, R.shape([batch_size, 48, 64]))
        alloc15: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _15: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 1, T.float64(0.125), reshape133, alloc15)
        lv34: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc15
        reshape134: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv34, R.shape([batch_size, 1, 32, 64]))
        reshape135: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape134, R.shape([batch_size, 1, 2048]))
        alloc16: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_1_self_attn_o_proj_weight3, alloc16)
        permute_dims135: R.Tensor((2048, 2048), dtype="float16") = alloc16
        alloc17: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape135, permute_dims135, lv2, alloc17)
        lv3: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc17
        alloc18: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv3, model_layers_1_post_attention_layernorm_weight3, alloc18)
        rms_norm69: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc18
        alloc19: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_1_mlp_gate_up_proj_weight3, alloc19)
        permute_dims136: R.Tensor((2048, 16384), dtype="float16") = alloc19
        alloc20: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm69, permute_dims136, alloc20)
        matmul136: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc20
        alloc21: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul136, alloc21)
        lv4: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc21
        alloc22: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_1_mlp_down_proj_weight3, alloc22)
        permute_dims137: R.Tensor((8192, 2048), dtype="float16") = alloc22
        alloc23: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv4, permute_dims137, lv3, alloc23)
        lv5: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc23
        alloc24: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv5, model_layers_2_input_layernorm_weight3, alloc24)
        rms_norm70: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc24
        alloc25: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_2_self_attn_qkv_proj_weight3, alloc25)
        permute_dims138: R.Tensor((2048, 3072), dtype="float16") = alloc25
        alloc26: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm70, permute_dims138, alloc26)
        matmul138: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc26
        reshape136: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul138, R.shape([batch_size, 1, 48, 64]))
        reshape137: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape136, R.shape([batch_size, 48, 64]))
        alloc27: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _27: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 2, T.float64(0.125), reshape137, alloc27)
        lv35: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc27
        reshape138: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv35, R.shape([batch_size, 1, 32, 64]))
        reshape139: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape138, R.shape([batch_size, 1, 2048]))
        alloc28: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_2_self_attn_o_proj_weight3, alloc28)
        permute_dims139: R.Tensor((2048, 2048), dtype="float16") = alloc28
        alloc29: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape139, permute_dims139, lv5, alloc29)
        lv6: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc29
        alloc30: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv6, model_layers_2_post_attention_layernorm_weight3, alloc30)
        rms_norm71: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc30
        alloc31: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_2_mlp_gate_up_proj_weight3, alloc31)
        permute_dims140: R.Tensor((2048, 16384), dtype="float16") = alloc31
        alloc32: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm71, permute_dims140, alloc32)
        matmul140: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc32
        alloc33: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul140, alloc33)
        lv7: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc33
        alloc34: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_2_mlp_down_proj_weight3, alloc34)
        permute_dims141: R.Tensor((8192, 2048), dtype="float16") = alloc34
        alloc35: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv7, permute_dims141, lv6, alloc35)
        lv8: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc35
        alloc36: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv8, model_layers_3_input_layernorm_weight3, alloc36)
        rms_norm72: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc36
        alloc37: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_3_self_attn_qkv_proj_weight3, alloc37)
        permute_dims142: R.Tensor((2048, 3072), dtype="float16") = alloc37
        alloc38: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm72, permute_dims142, alloc38)
        matmul142: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc38
        reshape140: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul142, R.shape([batch_size, 1, 48, 64]))
        reshape141: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape140, R.shape([batch_size, 48, 64]))
        alloc39: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _39: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 3, T.float64(0.125), reshape141, alloc39)
        lv36: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc39
        reshape142: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv36, R.shape([batch_size, 1, 32, 64]))
        reshape143: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape142, R.shape([batch_size, 1, 2048]))
        alloc40: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_3_self_attn_o_proj_weight3, alloc40)
        permute_dims143: R.Tensor((2048, 2048), dtype="float16") = alloc40
        alloc41: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape143, permute_dims143, lv8, alloc41)
        lv9: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc41
        alloc42: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv9, model_layers_3_post_attention_layernorm_weight3, alloc42)
        rms_norm73: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc42
        alloc43: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_3_mlp_gate_up_proj_weight3, alloc43)
        permute_dims144: R.Tensor((2048, 16384), dtype="float16") = alloc43
        alloc44: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm73, permute_dims144, alloc44)
        matmul144: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc44
        alloc45: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul144, alloc45)
        lv10: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc45
        alloc46: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_3_mlp_down_proj_weight3, alloc46)
        permute_dims145: R.Tensor((8192, 2048), dtype="float16") = alloc46
        alloc47: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv10, permute_dims145, lv9, alloc47)
        lv11: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc47
        alloc48: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv11, model_layers_4_input_layernorm_weight3, alloc48)
        rms_norm74: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc48
        alloc49: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_4_self_attn_qkv_proj_weight3, alloc49)
        permute_dims146: R.Tensor((2048, 3072), dtype="float16") = alloc49
        alloc50: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm74, permute_dims146, alloc50)
        matmul146: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc50
        reshape144: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul146, R.shape([batch_size, 1, 48, 64]))
        reshape145: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape144, R.shape([batch_size, 48, 64]))
        alloc51: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _51: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 4, T.float64(0.125), reshape145, alloc51)
        lv37: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc51
        reshape146: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv37, R.shape([batch_size, 1, 32, 64]))
        reshape147: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape146, R.shape([batch_size, 1, 2048]))
        alloc52: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_4_self_attn_o_proj_weight3, alloc52)
        permute_dims147: R.Tensor((2048, 2048), dtype="float16") = alloc52
        alloc53: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape147, permute_dims147, lv11, alloc53)
        lv12: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc53
        alloc54: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv12, model_layers_4_post_attention_layernorm_weight3, alloc54)
        rms_norm75: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc54
        alloc55: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_4_mlp_gate_up_proj_weight3, alloc55)
        permute_dims148: R.Tensor((2048, 16384), dtype="float16") = alloc55
        alloc56: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm75, permute_dims148, alloc56)
        matmul148: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc56
        alloc57: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul148, alloc57)
        lv13: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc57
        alloc58: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_4_mlp_down_proj_weight3, alloc58)
        permute_dims149: R.Tensor((8192, 2048), dtype="float16") = alloc58
        alloc59: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv13, permute_dims149, lv12, alloc59)
        lv14: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc59
        alloc60: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv14, model_layers_5_input_layernorm_weight3, alloc60)
        rms_norm76: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc60
        alloc61: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_5_self_attn_qkv_proj_weight3, alloc61)
        permute_dims150: R.Tensor((2048, 3072), dtype="float16") = alloc61
        alloc62: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm76, permute_dims150, alloc62)
        matmul150: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc62
        reshape148: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul150, R.shape([batch_size, 1, 48, 64]))
        reshape149: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape148, R.shape([batch_size, 48, 64]))
        alloc63: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _63: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 5, T.float64(0.125), reshape149, alloc63)
        lv38: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc63
        reshape150: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv38, R.shape([batch_size, 1, 32, 64]))
        reshape151: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape150, R.shape([batch_size, 1, 2048]))
        alloc64: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_5_self_attn_o_proj_weight3, alloc64)
        permute_dims151: R.Tensor((2048, 2048), dtype="float16") = alloc64
        alloc65: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape151, permute_dims151, lv14, alloc65)
        lv15: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc65
        alloc66: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv15, model_layers_5_post_attention_layernorm_weight3, alloc66)
        rms_norm77: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc66
        alloc67: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_5_mlp_gate_up_proj_weight3, alloc67)
        permute_dims152: R.Tensor((2048, 16384), dtype="float16") = alloc67
        alloc68: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm77, permute_dims152, alloc68)
        matmul152: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc68
        alloc69: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul152, alloc69)
        lv16: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc69
        alloc70: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_5_mlp_down_proj_weight3, alloc70)
        permute_dims153: R.Tensor((8192, 2048), dtype="float16") = alloc70
        alloc71: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv16, permute_dims153, lv15, alloc71)
        lv17: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc71
        alloc72: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv17, model_layers_6_input_layernorm_weight3, alloc72)
        rms_norm78: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc72
        alloc73: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_6_self_attn_qkv_proj_weight3, alloc73)
        permute_dims154: R.Tensor((2048, 3072), dtype="float16") = alloc73
        alloc74: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm78, permute_dims154, alloc74)
        matmul154: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc74
        reshape152: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul154, R.shape([batch_size, 1, 48, 64]))
        reshape153: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape152, R.shape([batch_size, 48, 64]))
        alloc75: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _75: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 6, T.float64(0.125), reshape153, alloc75)
        lv39: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc75
        reshape154: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv39, R.shape([batch_size, 1, 32, 64]))
        reshape155: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape154, R.shape([batch_size, 1, 2048]))
        alloc76: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_6_self_attn_o_proj_weight3, alloc76)
        permute_dims155: R.Tensor((2048, 2048), dtype="float16") = alloc76
        alloc77: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape155, permute_dims155, lv17, alloc77)
        lv18: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc77
        alloc78: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv18, model_layers_6_post_attention_layernorm_weight3, alloc78)
        rms_norm79: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc78
        alloc79: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_6_mlp_gate_up_proj_weight3, alloc79)
        permute_dims156: R.Tensor((2048, 16384), dtype="float16") = alloc79
        alloc80: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm79, permute_dims156, alloc80)
        matmul156: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc80
        alloc81: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul156, alloc81)
        lv19: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc81
        alloc82: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_6_mlp_down_proj_weight3, alloc82)
        permute_dims157: R.Tensor((8192, 2048), dtype="float16") = alloc82
        alloc83: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv19, permute_dims157, lv18, alloc83)
        lv20: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc83
        alloc84: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv20, model_layers_7_input_layernorm_weight3, alloc84)
        rms_norm80: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc84
        alloc85: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_7_self_attn_qkv_proj_weight3, alloc85)
        permute_dims158: R.Tensor((2048, 3072), dtype="float16") = alloc85
        alloc86: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm80, permute_dims158, alloc86)
        matmul158: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc86
        reshape156: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul158, R.shape([batch_size, 1, 48, 64]))
        reshape157: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape156, R.shape([batch_size, 48, 64]))
        alloc87: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _87: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 7, T.float64(0.125), reshape157, alloc87)
        lv40: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc87
        reshape158: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv40, R.shape([batch_size, 1, 32, 64]))
        reshape159: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape158, R.shape([batch_size, 1, 2048]))
        alloc88: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_7_self_attn_o_proj_weight3, alloc88)
        permute_dims159: R.Tensor((2048, 2048), dtype="float16") = alloc88
        alloc89: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape159, permute_dims159, lv20, alloc89)
        lv21: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc89
        alloc90: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv21, model_layers_7_post_attention_layernorm_weight3, alloc90)
        rms_norm81: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc90
        alloc91: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_7_mlp_gate_up_proj_weight3, alloc91)
        permute_dims160: R.Tensor((2048, 16384), dtype="float16") = alloc91
        alloc92: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm81, permute_dims160, alloc92)
        matmul160: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc92
        alloc93: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul160, alloc93)
        lv22: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc93
        alloc94: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_7_mlp_down_proj_weight3, alloc94)
        permute_dims161: R.Tensor((8192, 2048), dtype="float16") = alloc94
        alloc95: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv22, permute_dims161, lv21, alloc95)
        lv23: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc95
        alloc96: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv23, model_layers_8_input_layernorm_weight3, alloc96)
        rms_norm82: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc96
        alloc97: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_8_self_attn_qkv_proj_weight3, alloc97)
        permute_dims162: R.Tensor((2048, 3072), dtype="float16") = alloc97
        alloc98: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm82, permute_dims162, alloc98)
        matmul162: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc98
        reshape160: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul162, R.shape([batch_size, 1, 48, 64]))
        reshape161: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape160, R.shape([batch_size, 48, 64]))
        alloc99: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _99: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 8, T.float64(0.125), reshape161, alloc99)
        lv41: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc99
        reshape162: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv41, R.shape([batch_size, 1, 32, 64]))
        reshape163: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape162, R.shape([batch_size, 1, 2048]))
        alloc100: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_8_self_attn_o_proj_weight3, alloc100)
        permute_dims163: R.Tensor((2048, 2048), dtype="float16") = alloc100
        alloc101: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape163, permute_dims163, lv23, alloc101)
        lv24: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc101
        alloc102: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv24, model_layers_8_post_attention_layernorm_weight3, alloc102)
        rms_norm83: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc102
        alloc103: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_8_mlp_gate_up_proj_weight3, alloc103)
        permute_dims164: R.Tensor((2048, 16384), dtype="float16") = alloc103
        alloc104: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm83, permute_dims164, alloc104)
        matmul164: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc104
        alloc105: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul164, alloc105)
        lv25: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc105
        alloc106: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_8_mlp_down_proj_weight3, alloc106)
        permute_dims165: R.Tensor((8192, 2048), dtype="float16") = alloc106
        alloc107: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv25, permute_dims165, lv24, alloc107)
        lv26: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc107
        alloc108: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv26, model_layers_9_input_layernorm_weight3, alloc108)
        rms_norm84: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc108
        alloc109: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_9_self_attn_qkv_proj_weight3, alloc109)
        permute_dims166: R.Tensor((2048, 3072), dtype="float16") = alloc109
        alloc110: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm84, permute_dims166, alloc110)
        matmul166: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc110
        reshape164: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul166, R.shape([batch_size, 1, 48, 64]))
        reshape165: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape164, R.shape([batch_size, 48, 64]))
        alloc111: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _111: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 9, T.float64(0.125), reshape165, alloc111)
        lv42: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc111
        reshape166: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv42, R.shape([batch_size, 1, 32, 64]))
        reshape167: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape166, R.shape([batch_size, 1, 2048]))
        alloc112: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_9_self_attn_o_proj_weight3, alloc112)
        permute_dims167: R.Tensor((2048, 2048), dtype="float16") = alloc112
        alloc113: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape167, permute_dims167, lv26, alloc113)
        lv27: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc113
        alloc114: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv27, model_layers_9_post_attention_layernorm_weight3, alloc114)
        rms_norm85: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc114
        alloc115: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_9_mlp_gate_up_proj_weight3, alloc115)
        permute_dims168: R.Tensor((2048, 16384), dtype="float16") = alloc115
        alloc116: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm85, permute_dims168, alloc116)
        matmul168: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc116
        alloc117: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul168, alloc117)
        lv28: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc117
        alloc118: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_9_mlp_down_proj_weight3, alloc118)
        permute_dims169: R.Tensor((8192, 2048), dtype="float16") = alloc118
        alloc119: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv28, permute_dims169, lv27, alloc119)
        lv29: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc119
        alloc120: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv29, model_layers_10_input_layernorm_weight3, alloc120)
        rms_norm86: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc120
        alloc121: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_10_self_attn_qkv_proj_weight3, alloc121)
        permute_dims170: R.Tensor((2048, 3072), dtype="float16") = alloc121
        alloc122: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm86, permute_dims170, alloc122)
        matmul170: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc122
        reshape168: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul170, R.shape([batch_size, 1, 48, 64]))
        reshape169: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape168, R.shape([batch_size, 48, 64]))
        alloc123: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _123: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 10, T.float64(0.125), reshape169, alloc123)
        lv43: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc123
        reshape170: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv43, R.shape([batch_size, 1, 32, 64]))
        reshape171: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape170, R.shape([batch_size, 1, 2048]))
        alloc124: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_10_self_attn_o_proj_weight3, alloc124)
        permute_dims171: R.Tensor((2048, 2048), dtype="float16") = alloc124
        alloc125: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape171, permute_dims171, lv29, alloc125)
        lv30: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc125
        alloc126: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv30, model_layers_10_post_attention_layernorm_weight3, alloc126)
        rms_norm87: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc126
        alloc127: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_10_mlp_gate_up_proj_weight3, alloc127)
        permute_dims172: R.Tensor((2048, 16384), dtype="float16") = alloc127
        alloc128: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm87, permute_dims172, alloc128)
        matmul172: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc128
        alloc129: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul172, alloc129)
        lv31: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc129
        alloc130: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_10_mlp_down_proj_weight3, alloc130)
        permute_dims173: R.Tensor((8192, 2048), dtype="float16") = alloc130
        alloc131: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv31, permute_dims173, lv30, alloc131)
        lv32: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc131
        alloc132: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv32, model_layers_11_input_layernorm_weight3, alloc132)
        rms_norm88: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc132
        alloc133: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_11_self_attn_qkv_proj_weight3, alloc133)
        permute_dims174: R.Tensor((2048, 3072), dtype="float16") = alloc133
        alloc134: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm88, permute_dims174, alloc134)
        matmul174: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc134
        reshape172: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul174, R.shape([batch_size, 1, 48, 64]))
        reshape173: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape172, R.shape([batch_size, 48, 64]))
        alloc135: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _135: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 11, T.float64(0.125), reshape173, alloc135)
        lv44: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc135
        reshape174: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv44, R.shape([batch_size, 1, 32, 64]))
        reshape175: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape174, R.shape([batch_size, 1, 2048]))
        alloc136: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_11_self_attn_o_proj_weight3, alloc136)
        permute_dims175: R.Tensor((2048, 2048), dtype="float16") = alloc136
        alloc137: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape175, permute_dims175, lv32, alloc137)
        lv33_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc137
        alloc138: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv33_1, model_layers_11_post_attention_layernorm_weight3, alloc138)
        rms_norm89: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc138
        alloc139: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_11_mlp_gate_up_proj_weight3, alloc139)
        permute_dims176: R.Tensor((2048, 16384), dtype="float16") = alloc139
        alloc140: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm89, permute_dims176, alloc140)
        matmul176: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc140
        alloc141: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul176, alloc141)
        lv34_1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc141
        alloc142: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_11_mlp_down_proj_weight3, alloc142)
        permute_dims177: R.Tensor((8192, 2048), dtype="float16") = alloc142
        alloc143: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv34_1, permute_dims177, lv33_1, alloc143)
        lv35_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc143
        alloc144: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv35_1, model_layers_12_input_layernorm_weight3, alloc144)
        rms_norm90: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc144
        alloc145: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_12_self_attn_qkv_proj_weight3, alloc145)
        permute_dims178: R.Tensor((2048, 3072), dtype="float16") = alloc145
        alloc146: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm90, permute_dims178, alloc146)
        matmul178: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc146
        reshape176: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul178, R.shape([batch_size, 1, 48, 64]))
        reshape177: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape176, R.shape([batch_size, 48, 64]))
        alloc147: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _147: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 12, T.float64(0.125), reshape177, alloc147)
        lv45: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc147
        reshape178: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv45, R.shape([batch_size, 1, 32, 64]))
        reshape179: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape178, R.shape([batch_size, 1, 2048]))
        alloc148: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_12_self_attn_o_proj_weight3, alloc148)
        permute_dims179: R.Tensor((2048, 2048), dtype="float16") = alloc148
        alloc149: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape179, permute_dims179, lv35_1, alloc149)
        lv36_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc149
        alloc150: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv36_1, model_layers_12_post_attention_layernorm_weight3, alloc150)
        rms_norm91: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc150
        alloc151: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_12_mlp_gate_up_proj_weight3, alloc151)
        permute_dims180: R.Tensor((2048, 16384), dtype="float16") = alloc151
        alloc152: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm91, permute_dims180, alloc152)
        matmul180: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc152
        alloc153: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul180, alloc153)
        lv37_1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc153
        alloc154: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_12_mlp_down_proj_weight3, alloc154)
        permute_dims181: R.Tensor((8192, 2048), dtype="float16") = alloc154
        alloc155: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv37_1, permute_dims181, lv36_1, alloc155)
        lv38_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc155
        alloc156: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv38_1, model_layers_13_input_layernorm_weight3, alloc156)
        rms_norm92: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc156
        alloc157: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_13_self_attn_qkv_proj_weight3, alloc157)
        permute_dims182: R.Tensor((2048, 3072), dtype="float16") = alloc157
        alloc158: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm92, permute_dims182, alloc158)
        matmul182: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc158
        reshape180: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul182, R.shape([batch_size, 1, 48, 64]))
        reshape181: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape180, R.shape([batch_size, 48, 64]))
        alloc159: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _159: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 13, T.float64(0.125), reshape181, alloc159)
        lv46: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc159
        reshape182: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv46, R.shape([batch_size, 1, 32, 64]))
        reshape183: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape182, R.shape([batch_size, 1, 2048]))
        alloc160: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_13_self_attn_o_proj_weight3, alloc160)
        permute_dims183: R.Tensor((2048, 2048), dtype="float16") = alloc160
        alloc161: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape183, permute_dims183, lv38_1, alloc161)
        lv39_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc161
        alloc162: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv39_1, model_layers_13_post_attention_layernorm_weight3, alloc162)
        rms_norm93: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc162
        alloc163: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_13_mlp_gate_up_proj_weight3, alloc163)
        permute_dims184: R.Tensor((2048, 16384), dtype="float16") = alloc163
        alloc164: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm93, permute_dims184, alloc164)
        matmul184: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc164
        alloc165: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul184, alloc165)
        lv40_1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc165
        alloc166: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_13_mlp_down_proj_weight3, alloc166)
        permute_dims185: R.Tensor((8192, 2048), dtype="float16") = alloc166
        alloc167: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv40_1, permute_dims185, lv39_1, alloc167)
        lv41_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc167
        alloc168: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv41_1, model_layers_14_input_layernorm_weight3, alloc168)
        rms_norm94: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc168
        alloc169: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_14_self_attn_qkv_proj_weight3, alloc169)
        permute_dims186: R.Tensor((2048, 3072), dtype="float16") = alloc169
        alloc170: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm94, permute_dims186, alloc170)
        matmul186: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc170
        reshape184: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul186, R.shape([batch_size, 1, 48, 64]))
        reshape185: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape184, R.shape([batch_size, 48, 64]))
        alloc171: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _171: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 14, T.float64(0.125), reshape185, alloc171)
        lv47: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc171
        reshape186: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv47, R.shape([batch_size, 1, 32, 64]))
        reshape187: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape186, R.shape([batch_size, 1, 2048]))
        alloc172: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_14_self_attn_o_proj_weight3, alloc172)
        permute_dims187: R.Tensor((2048, 2048), dtype="float16") = alloc172
        alloc173: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape187, permute_dims187, lv41_1, alloc173)
        lv42_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc173
        alloc174: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv42_1, model_layers_14_post_attention_layernorm_weight3, alloc174)
        rms_norm95: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc174
        alloc175: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_14_mlp_gate_up_proj_weight3, alloc175)
        permute_dims188: R.Tensor((2048, 16384), dtype="float16") = alloc175
        alloc176: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm95, permute_dims188, alloc176)
        matmul188: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc176
        alloc177: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul188, alloc177)
        lv43_1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc177
        alloc178: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_14_mlp_down_proj_weight3, alloc178)
        permute_dims189: R.Tensor((8192, 2048), dtype="float16") = alloc178
        alloc179: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv43_1, permute_dims189, lv42_1, alloc179)
        lv44_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc179
        alloc180: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv44_1, model_layers_15_input_layernorm_weight3, alloc180)
        rms_norm96: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc180
        alloc181: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_15_self_attn_qkv_proj_weight3, alloc181)
        permute_dims190: R.Tensor((2048, 3072), dtype="float16") = alloc181
        alloc182: R.Tensor((batch_size, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul(rms_norm96, permute_dims190, alloc182)
        matmul190: R.Tensor((batch_size, 1, 3072), dtype="float16") = alloc182
        reshape188: R.Tensor((batch_size, 1, 48, 64), dtype="float16") = R.reshape(matmul190, R.shape([batch_size, 1, 48, 64]))
        reshape189: R.Tensor((batch_size, 48, 64), dtype="float16") = R.reshape(reshape188, R.shape([batch_size, 48, 64]))
        alloc183: R.Tensor((batch_size, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 32, 64]), R.dtype("float16"), 0)
        _183: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 15, T.float64(0.125), reshape189, alloc183)
        lv48: R.Tensor((batch_size, 32, 64), dtype="float16") = alloc183
        reshape190: R.Tensor((batch_size, 1, 32, 64), dtype="float16") = R.reshape(lv48, R.shape([batch_size, 1, 32, 64]))
        reshape191: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.reshape(reshape190, R.shape([batch_size, 1, 2048]))
        alloc184: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_15_self_attn_o_proj_weight3, alloc184)
        permute_dims191: R.Tensor((2048, 2048), dtype="float16") = alloc184
        alloc185: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul1_add(reshape191, permute_dims191, lv44_1, alloc185)
        lv45_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc185
        alloc186: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv45_1, model_layers_15_post_attention_layernorm_weight3, alloc186)
        rms_norm97: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc186
        alloc187: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_15_mlp_gate_up_proj_weight3, alloc187)
        permute_dims192: R.Tensor((2048, 16384), dtype="float16") = alloc187
        alloc188: R.Tensor((batch_size, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul2(rms_norm97, permute_dims192, alloc188)
        matmul192: R.Tensor((batch_size, 1, 16384), dtype="float16") = alloc188
        alloc189: R.Tensor((batch_size, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split_silu_multiply(matmul192, alloc189)
        lv46_1: R.Tensor((batch_size, 1, 8192), dtype="float16") = alloc189
        alloc190: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_15_mlp_down_proj_weight3, alloc190)
        permute_dims193: R.Tensor((8192, 2048), dtype="float16") = alloc190
        alloc191: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage3, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul3_add(lv46_1, permute_dims193, lv45_1, alloc191)
        lv47_1: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc191
        alloc192: R.Tensor((batch_size, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage2, 0, R.shape([batch_size, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm(lv47_1, model_norm_weight3, alloc192)
        rms_norm98: R.Tensor((batch_size, 1, 2048), dtype="float16") = alloc192
        alloc193: R.Tensor((2048, 128256), dtype="float16") = R.memory.alloc_tensor(storage1, 0, R.shape([2048, 128256]), R.dtype("float16"), 0)
        cls.transpose4(model_embed_tokens_weight3, alloc193)
        permute_dims194: R.Tensor((2048, 128256), dtype="float16") = alloc193
        alloc194: R.Tensor((batch_size, 1, 128256), dtype="float32") = R.builtin.alloc_tensor(R.shape([batch_size, 1, 128256]), R.dtype("float32"), 0, R.str("global"), ty_args=(R.Tensor((batch_size, 1, 128256), dtype="float32"),))
        cls.matmul4(rms_norm98, permute_dims194, alloc194)
        matmul194: R.Tensor((batch_size, 1, 128256), dtype="float32") = alloc194
        gv3: R.Tuple(R.Tensor((batch_size, 1, 128256), dtype="float32"), R.Any) = matmul194, paged_kv_cache
        return gv3

    @R.function
    def create_tir_paged_kv_cache(max_batch_size_1: R.Shape([max_batch_size]), max_total_seq_len_1: R.Shape([max_total_seq_len]), prefill_chunk_size_1: R.Shape([prefill_chunk_size]), page_size_1: R.Shape([page_size]), support_sliding_window_1: R.Shape([support_sliding_window])) -> R.Any:
        R.func_attr({"num_input": 5, "relax.force_pure": True, "tir_non_negative_var": ["vocab_size"], "tir_var_upper_bound": {"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}})
        cls = Module
        gv4: R.Any = R.call_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([max_batch_size, max_total_seq_len, prefill_chunk_size, page_size, support_sliding_window, 1024]), R.shape([0, 16]), 32, 8, 64, 64, R.shape([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), False, 1, 1, T.float64(500000.0), 0, R.const(0.0, "float16"), cls.tir_kv_cache_transpose_append, cls.tir_kv_cache_transpose_append_mla, (R.str("tirx"), cls.batch_prefill_ragged_kv), (R.str("tirx"), cls.batch_prefill_paged_kv), (R.str("tirx"), cls.batch_decode_paged_kv), (R.str("tirx"), cls.batch_prefill_paged_kv_sliding_window), (R.str("tirx"), cls.batch_decode_paged_kv_sliding_window), (R.str("tirx"), cls.tree_attn_paged_kv), (R.str("tirx"), cls.batch_tree_attn), R.tuple(), (cls.tir_attention_merge_state,), cls.fused_rope, cls.copy_single_page, cls.tir_kv_cache_debug_get_kv, cls.compact_kv_copy, ty_args=(R.Any,))
        return gv4

    @R.function
    def decode(input_embed: R.Tensor((1, 1, 2048), dtype="float16"), paged_kv_cache: R.Any, packed_params: R.Tuple(R.Tensor((128256, 2048), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"))) -> R.Tuple(R.Tensor((1, 1, 128256), dtype="float32"), R.Any):
        R.func_attr({"num_input": 2, "relax.force_pure": True, "tir_non_negative_var": ["vocab_size"], "tir_var_upper_bound": {"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}})
        cls = Module
        model_embed_tokens_weight2: R.Tensor((128256, 2048), dtype="float16") = packed_params[0]
        model_layers_0_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[1]
        model_layers_0_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[2]
        model_layers_0_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[3]
        model_layers_0_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[4]
        model_layers_0_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[5]
        model_layers_0_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[6]
        model_layers_1_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[7]
        model_layers_1_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[8]
        model_layers_1_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[9]
        model_layers_1_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[10]
        model_layers_1_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[11]
        model_layers_1_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[12]
        model_layers_2_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[13]
        model_layers_2_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[14]
        model_layers_2_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[15]
        model_layers_2_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[16]
        model_layers_2_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[17]
        model_layers_2_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[18]
        model_layers_3_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[19]
        model_layers_3_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[20]
        model_layers_3_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[21]
        model_layers_3_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[22]
        model_layers_3_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[23]
        model_layers_3_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[24]
        model_layers_4_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[25]
        model_layers_4_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[26]
        model_layers_4_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[27]
        model_layers_4_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[28]
        model_layers_4_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[29]
        model_layers_4_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[30]
        model_layers_5_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[31]
        model_layers_5_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[32]
        model_layers_5_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[33]
        model_layers_5_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[34]
        model_layers_5_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[35]
        model_layers_5_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[36]
        model_layers_6_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[37]
        model_layers_6_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[38]
        model_layers_6_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[39]
        model_layers_6_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[40]
        model_layers_6_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[41]
        model_layers_6_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[42]
        model_layers_7_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[43]
        model_layers_7_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[44]
        model_layers_7_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[45]
        model_layers_7_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[46]
        model_layers_7_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[47]
        model_layers_7_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[48]
        model_layers_8_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[49]
        model_layers_8_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[50]
        model_layers_8_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[51]
        model_layers_8_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[52]
        model_layers_8_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[53]
        model_layers_8_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[54]
        model_layers_9_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[55]
        model_layers_9_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[56]
        model_layers_9_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[57]
        model_layers_9_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[58]
        model_layers_9_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[59]
        model_layers_9_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[60]
        model_layers_10_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[61]
        model_layers_10_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[62]
        model_layers_10_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[63]
        model_layers_10_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[64]
        model_layers_10_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[65]
        model_layers_10_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[66]
        model_layers_11_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[67]
        model_layers_11_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[68]
        model_layers_11_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[69]
        model_layers_11_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[70]
        model_layers_11_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[71]
        model_layers_11_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[72]
        model_layers_12_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[73]
        model_layers_12_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[74]
        model_layers_12_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[75]
        model_layers_12_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[76]
        model_layers_12_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[77]
        model_layers_12_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[78]
        model_layers_13_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[79]
        model_layers_13_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[80]
        model_layers_13_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[81]
        model_layers_13_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[82]
        model_layers_13_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[83]
        model_layers_13_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[84]
        model_layers_14_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[85]
        model_layers_14_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[86]
        model_layers_14_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[87]
        model_layers_14_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[88]
        model_layers_14_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[89]
        model_layers_14_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[90]
        model_layers_15_self_attn_qkv_proj_weight2: R.Tensor((3072, 2048), dtype="float16") = packed_params[91]
        model_layers_15_self_attn_o_proj_weight2: R.Tensor((2048, 2048), dtype="float16") = packed_params[92]
        model_layers_15_mlp_gate_up_proj_weight2: R.Tensor((16384, 2048), dtype="float16") = packed_params[93]
        model_layers_15_mlp_down_proj_weight2: R.Tensor((2048, 8192), dtype="float16") = packed_params[94]
        model_layers_15_input_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[95]
        model_layers_15_post_attention_layernorm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[96]
        model_norm_weight2: R.Tensor((2048,), dtype="float16") = packed_params[97]
        storage4: R.Any = R.memory.alloc_storage(R.shape([16384]), 0, R.str("global"), R.dtype("float16"))
        alloc195: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(input_embed, model_layers_0_input_layernorm_weight2, alloc195)
        rms_norm33: R.Tensor((1, 1, 2048), dtype="float16") = alloc195
        storage5: R.Any = R.memory.alloc_storage(R.shape([525336576]), 0, R.str("global"), R.dtype("float16"))
        alloc196: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_0_self_attn_qkv_proj_weight2, alloc196)
        permute_dims65: R.Tensor((2048, 3072), dtype="float16") = alloc196
        storage6: R.Any = R.memory.alloc_storage(R.shape([16384]), 0, R.str("global"), R.dtype("float16"))
        alloc197: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm33, permute_dims65, alloc197)
        matmul65: R.Tensor((1, 1, 3072), dtype="float16") = alloc197
        lv48: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul65, R.shape([1, 48, 64]))
        alloc198: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _198: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 0, T.float64(0.125), lv48, alloc198)
        lv17: R.Tensor((1, 32, 64), dtype="float16") = alloc198
        lv49: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv17, R.shape([1, 1, 2048]))
        alloc199: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_0_self_attn_o_proj_weight2, alloc199)
        permute_dims66: R.Tensor((2048, 2048), dtype="float16") = alloc199
        alloc200: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv49, permute_dims66, input_embed, alloc200)
        lv50: R.Tensor((1, 1, 2048), dtype="float16") = alloc200
        alloc201: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv50, model_layers_0_post_attention_layernorm_weight2, alloc201)
        rms_norm34: R.Tensor((1, 1, 2048), dtype="float16") = alloc201
        alloc202: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_0_mlp_gate_up_proj_weight2, alloc202)
        permute_dims67: R.Tensor((2048, 16384), dtype="float16") = alloc202
        storage7: R.Any = R.memory.alloc_storage(R.shape([32768]), 0, R.str("global"), R.dtype("float16"))
        alloc203: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm34, permute_dims67, alloc203)
        matmul67: R.Tensor((1, 1, 16384), dtype="float16") = alloc203
        alloc204: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul67, alloc204)
        lv51: R.Tensor((1, 1, 8192), dtype="float16") = alloc204
        alloc205: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_0_mlp_down_proj_weight2, alloc205)
        permute_dims68: R.Tensor((8192, 2048), dtype="float16") = alloc205
        alloc206: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv51, permute_dims68, lv50, alloc206)
        lv52: R.Tensor((1, 1, 2048), dtype="float16") = alloc206
        alloc207: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv52, model_layers_1_input_layernorm_weight2, alloc207)
        rms_norm35: R.Tensor((1, 1, 2048), dtype="float16") = alloc207
        alloc208: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_1_self_attn_qkv_proj_weight2, alloc208)
        permute_dims69: R.Tensor((2048, 3072), dtype="float16") = alloc208
        alloc209: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm35, permute_dims69, alloc209)
        matmul69: R.Tensor((1, 1, 3072), dtype="float16") = alloc209
        lv53: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul69, R.shape([1, 48, 64]))
        alloc210: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _210: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 1, T.float64(0.125), lv53, alloc210)
        lv18: R.Tensor((1, 32, 64), dtype="float16") = alloc210
        lv54: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv18, R.shape([1, 1, 2048]))
        alloc211: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_1_self_attn_o_proj_weight2, alloc211)
        permute_dims70: R.Tensor((2048, 2048), dtype="float16") = alloc211
        alloc212: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv54, permute_dims70, lv52, alloc212)
        lv55: R.Tensor((1, 1, 2048), dtype="float16") = alloc212
        alloc213: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv55, model_layers_1_post_attention_layernorm_weight2, alloc213)
        rms_norm36: R.Tensor((1, 1, 2048), dtype="float16") = alloc213
        alloc214: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_1_mlp_gate_up_proj_weight2, alloc214)
        permute_dims71: R.Tensor((2048, 16384), dtype="float16") = alloc214
        alloc215: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm36, permute_dims71, alloc215)
        matmul71: R.Tensor((1, 1, 16384), dtype="float16") = alloc215
        alloc216: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul71, alloc216)
        lv56: R.Tensor((1, 1, 8192), dtype="float16") = alloc216
        alloc217: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_1_mlp_down_proj_weight2, alloc217)
        permute_dims72: R.Tensor((8192, 2048), dtype="float16") = alloc217
        alloc218: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv56, permute_dims72, lv55, alloc218)
        lv57: R.Tensor((1, 1, 2048), dtype="float16") = alloc218
        alloc219: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv57, model_layers_2_input_layernorm_weight2, alloc219)
        rms_norm37: R.Tensor((1, 1, 2048), dtype="float16") = alloc219
        alloc220: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_2_self_attn_qkv_proj_weight2, alloc220)
        permute_dims73: R.Tensor((2048, 3072), dtype="float16") = alloc220
        alloc221: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm37, permute_dims73, alloc221)
        matmul73: R.Tensor((1, 1, 3072), dtype="float16") = alloc221
        lv58: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul73, R.shape([1, 48, 64]))
        alloc222: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _222: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 2, T.float64(0.125), lv58, alloc222)
        lv19: R.Tensor((1, 32, 64), dtype="float16") = alloc222
        lv59: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv19, R.shape([1, 1, 2048]))
        alloc223: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_2_self_attn_o_proj_weight2, alloc223)
        permute_dims74: R.Tensor((2048, 2048), dtype="float16") = alloc223
        alloc224: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv59, permute_dims74, lv57, alloc224)
        lv60: R.Tensor((1, 1, 2048), dtype="float16") = alloc224
        alloc225: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv60, model_layers_2_post_attention_layernorm_weight2, alloc225)
        rms_norm38: R.Tensor((1, 1, 2048), dtype="float16") = alloc225
        alloc226: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_2_mlp_gate_up_proj_weight2, alloc226)
        permute_dims75: R.Tensor((2048, 16384), dtype="float16") = alloc226
        alloc227: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm38, permute_dims75, alloc227)
        matmul75: R.Tensor((1, 1, 16384), dtype="float16") = alloc227
        alloc228: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul75, alloc228)
        lv61: R.Tensor((1, 1, 8192), dtype="float16") = alloc228
        alloc229: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_2_mlp_down_proj_weight2, alloc229)
        permute_dims76: R.Tensor((8192, 2048), dtype="float16") = alloc229
        alloc230: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv61, permute_dims76, lv60, alloc230)
        lv62: R.Tensor((1, 1, 2048), dtype="float16") = alloc230
        alloc231: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv62, model_layers_3_input_layernorm_weight2, alloc231)
        rms_norm39: R.Tensor((1, 1, 2048), dtype="float16") = alloc231
        alloc232: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_3_self_attn_qkv_proj_weight2, alloc232)
        permute_dims77: R.Tensor((2048, 3072), dtype="float16") = alloc232
        alloc233: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm39, permute_dims77, alloc233)
        matmul77: R.Tensor((1, 1, 3072), dtype="float16") = alloc233
        lv63: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul77, R.shape([1, 48, 64]))
        alloc234: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _234: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 3, T.float64(0.125), lv63, alloc234)
        lv20: R.Tensor((1, 32, 64), dtype="float16") = alloc234
        lv64: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv20, R.shape([1, 1, 2048]))
        alloc235: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_3_self_attn_o_proj_weight2, alloc235)
        permute_dims78: R.Tensor((2048, 2048), dtype="float16") = alloc235
        alloc236: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv64, permute_dims78, lv62, alloc236)
        lv65: R.Tensor((1, 1, 2048), dtype="float16") = alloc236
        alloc237: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv65, model_layers_3_post_attention_layernorm_weight2, alloc237)
        rms_norm40: R.Tensor((1, 1, 2048), dtype="float16") = alloc237
        alloc238: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_3_mlp_gate_up_proj_weight2, alloc238)
        permute_dims79: R.Tensor((2048, 16384), dtype="float16") = alloc238
        alloc239: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm40, permute_dims79, alloc239)
        matmul79: R.Tensor((1, 1, 16384), dtype="float16") = alloc239
        alloc240: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul79, alloc240)
        lv66: R.Tensor((1, 1, 8192), dtype="float16") = alloc240
        alloc241: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_3_mlp_down_proj_weight2, alloc241)
        permute_dims80: R.Tensor((8192, 2048), dtype="float16") = alloc241
        alloc242: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv66, permute_dims80, lv65, alloc242)
        lv67: R.Tensor((1, 1, 2048), dtype="float16") = alloc242
        alloc243: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv67, model_layers_4_input_layernorm_weight2, alloc243)
        rms_norm41: R.Tensor((1, 1, 2048), dtype="float16") = alloc243
        alloc244: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_4_self_attn_qkv_proj_weight2, alloc244)
        permute_dims81: R.Tensor((2048, 3072), dtype="float16") = alloc244
        alloc245: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm41, permute_dims81, alloc245)
        matmul81: R.Tensor((1, 1, 3072), dtype="float16") = alloc245
        lv68: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul81, R.shape([1, 48, 64]))
        alloc246: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _246: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 4, T.float64(0.125), lv68, alloc246)
        lv21: R.Tensor((1, 32, 64), dtype="float16") = alloc246
        lv69: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv21, R.shape([1, 1, 2048]))
        alloc247: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_4_self_attn_o_proj_weight2, alloc247)
        permute_dims82: R.Tensor((2048, 2048), dtype="float16") = alloc247
        alloc248: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv69, permute_dims82, lv67, alloc248)
        lv70: R.Tensor((1, 1, 2048), dtype="float16") = alloc248
        alloc249: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv70, model_layers_4_post_attention_layernorm_weight2, alloc249)
        rms_norm42: R.Tensor((1, 1, 2048), dtype="float16") = alloc249
        alloc250: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_4_mlp_gate_up_proj_weight2, alloc250)
        permute_dims83: R.Tensor((2048, 16384), dtype="float16") = alloc250
        alloc251: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm42, permute_dims83, alloc251)
        matmul83: R.Tensor((1, 1, 16384), dtype="float16") = alloc251
        alloc252: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul83, alloc252)
        lv71: R.Tensor((1, 1, 8192), dtype="float16") = alloc252
        alloc253: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_4_mlp_down_proj_weight2, alloc253)
        permute_dims84: R.Tensor((8192, 2048), dtype="float16") = alloc253
        alloc254: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv71, permute_dims84, lv70, alloc254)
        lv72: R.Tensor((1, 1, 2048), dtype="float16") = alloc254
        alloc255: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv72, model_layers_5_input_layernorm_weight2, alloc255)
        rms_norm43: R.Tensor((1, 1, 2048), dtype="float16") = alloc255
        alloc256: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_5_self_attn_qkv_proj_weight2, alloc256)
        permute_dims85: R.Tensor((2048, 3072), dtype="float16") = alloc256
        alloc257: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm43, permute_dims85, alloc257)
        matmul85: R.Tensor((1, 1, 3072), dtype="float16") = alloc257
        lv73: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul85, R.shape([1, 48, 64]))
        alloc258: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _258: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 5, T.float64(0.125), lv73, alloc258)
        lv22: R.Tensor((1, 32, 64), dtype="float16") = alloc258
        lv74: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv22, R.shape([1, 1, 2048]))
        alloc259: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_5_self_attn_o_proj_weight2, alloc259)
        permute_dims86: R.Tensor((2048, 2048), dtype="float16") = alloc259
        alloc260: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv74, permute_dims86, lv72, alloc260)
        lv75: R.Tensor((1, 1, 2048), dtype="float16") = alloc260
        alloc261: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv75, model_layers_5_post_attention_layernorm_weight2, alloc261)
        rms_norm44: R.Tensor((1, 1, 2048), dtype="float16") = alloc261
        alloc262: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_5_mlp_gate_up_proj_weight2, alloc262)
        permute_dims87: R.Tensor((2048, 16384), dtype="float16") = alloc262
        alloc263: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm44, permute_dims87, alloc263)
        matmul87: R.Tensor((1, 1, 16384), dtype="float16") = alloc263
        alloc264: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul87, alloc264)
        lv76: R.Tensor((1, 1, 8192), dtype="float16") = alloc264
        alloc265: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_5_mlp_down_proj_weight2, alloc265)
        permute_dims88: R.Tensor((8192, 2048), dtype="float16") = alloc265
        alloc266: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv76, permute_dims88, lv75, alloc266)
        lv77: R.Tensor((1, 1, 2048), dtype="float16") = alloc266
        alloc267: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv77, model_layers_6_input_layernorm_weight2, alloc267)
        rms_norm45: R.Tensor((1, 1, 2048), dtype="float16") = alloc267
        alloc268: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_6_self_attn_qkv_proj_weight2, alloc268)
        permute_dims89: R.Tensor((2048, 3072), dtype="float16") = alloc268
        alloc269: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm45, permute_dims89, alloc269)
        matmul89: R.Tensor((1, 1, 3072), dtype="float16") = alloc269
        lv78: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul89, R.shape([1, 48, 64]))
        alloc270: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _270: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 6, T.float64(0.125), lv78, alloc270)
        lv23: R.Tensor((1, 32, 64), dtype="float16") = alloc270
        lv79: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv23, R.shape([1, 1, 2048]))
        alloc271: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_6_self_attn_o_proj_weight2, alloc271)
        permute_dims90: R.Tensor((2048, 2048), dtype="float16") = alloc271
        alloc272: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv79, permute_dims90, lv77, alloc272)
        lv80: R.Tensor((1, 1, 2048), dtype="float16") = alloc272
        alloc273: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv80, model_layers_6_post_attention_layernorm_weight2, alloc273)
        rms_norm46: R.Tensor((1, 1, 2048), dtype="float16") = alloc273
        alloc274: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_6_mlp_gate_up_proj_weight2, alloc274)
        permute_dims91: R.Tensor((2048, 16384), dtype="float16") = alloc274
        alloc275: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm46, permute_dims91, alloc275)
        matmul91: R.Tensor((1, 1, 16384), dtype="float16") = alloc275
        alloc276: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul91, alloc276)
        lv81: R.Tensor((1, 1, 8192), dtype="float16") = alloc276
        alloc277: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_6_mlp_down_proj_weight2, alloc277)
        permute_dims92: R.Tensor((8192, 2048), dtype="float16") = alloc277
        alloc278: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv81, permute_dims92, lv80, alloc278)
        lv82: R.Tensor((1, 1, 2048), dtype="float16") = alloc278
        alloc279: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv82, model_layers_7_input_layernorm_weight2, alloc279)
        rms_norm47: R.Tensor((1, 1, 2048), dtype="float16") = alloc279
        alloc280: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_7_self_attn_qkv_proj_weight2, alloc280)
        permute_dims93: R.Tensor((2048, 3072), dtype="float16") = alloc280
        alloc281: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm47, permute_dims93, alloc281)
        matmul93: R.Tensor((1, 1, 3072), dtype="float16") = alloc281
        lv83: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul93, R.shape([1, 48, 64]))
        alloc282: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _282: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 7, T.float64(0.125), lv83, alloc282)
        lv24: R.Tensor((1, 32, 64), dtype="float16") = alloc282
        lv84: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv24, R.shape([1, 1, 2048]))
        alloc283: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_7_self_attn_o_proj_weight2, alloc283)
        permute_dims94: R.Tensor((2048, 2048), dtype="float16") = alloc283
        alloc284: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv84, permute_dims94, lv82, alloc284)
        lv85: R.Tensor((1, 1, 2048), dtype="float16") = alloc284
        alloc285: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv85, model_layers_7_post_attention_layernorm_weight2, alloc285)
        rms_norm48: R.Tensor((1, 1, 2048), dtype="float16") = alloc285
        alloc286: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_7_mlp_gate_up_proj_weight2, alloc286)
        permute_dims95: R.Tensor((2048, 16384), dtype="float16") = alloc286
        alloc287: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm48, permute_dims95, alloc287)
        matmul95: R.Tensor((1, 1, 16384), dtype="float16") = alloc287
        alloc288: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul95, alloc288)
        lv86: R.Tensor((1, 1, 8192), dtype="float16") = alloc288
        alloc289: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_7_mlp_down_proj_weight2, alloc289)
        permute_dims96: R.Tensor((8192, 2048), dtype="float16") = alloc289
        alloc290: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv86, permute_dims96, lv85, alloc290)
        lv87: R.Tensor((1, 1, 2048), dtype="float16") = alloc290
        alloc291: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv87, model_layers_8_input_layernorm_weight2, alloc291)
        rms_norm49: R.Tensor((1, 1, 2048), dtype="float16") = alloc291
        alloc292: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_8_self_attn_qkv_proj_weight2, alloc292)
        permute_dims97: R.Tensor((2048, 3072), dtype="float16") = alloc292
        alloc293: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm49, permute_dims97, alloc293)
        matmul97: R.Tensor((1, 1, 3072), dtype="float16") = alloc293
        lv88: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul97, R.shape([1, 48, 64]))
        alloc294: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _294: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 8, T.float64(0.125), lv88, alloc294)
        lv25: R.Tensor((1, 32, 64), dtype="float16") = alloc294
        lv89: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv25, R.shape([1, 1, 2048]))
        alloc295: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_8_self_attn_o_proj_weight2, alloc295)
        permute_dims98: R.Tensor((2048, 2048), dtype="float16") = alloc295
        alloc296: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv89, permute_dims98, lv87, alloc296)
        lv90: R.Tensor((1, 1, 2048), dtype="float16") = alloc296
        alloc297: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv90, model_layers_8_post_attention_layernorm_weight2, alloc297)
        rms_norm50: R.Tensor((1, 1, 2048), dtype="float16") = alloc297
        alloc298: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_8_mlp_gate_up_proj_weight2, alloc298)
        permute_dims99: R.Tensor((2048, 16384), dtype="float16") = alloc298
        alloc299: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm50, permute_dims99, alloc299)
        matmul99: R.Tensor((1, 1, 16384), dtype="float16") = alloc299
        alloc300: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul99, alloc300)
        lv91: R.Tensor((1, 1, 8192), dtype="float16") = alloc300
        alloc301: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_8_mlp_down_proj_weight2, alloc301)
        permute_dims100: R.Tensor((8192, 2048), dtype="float16") = alloc301
        alloc302: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv91, permute_dims100, lv90, alloc302)
        lv92: R.Tensor((1, 1, 2048), dtype="float16") = alloc302
        alloc303: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv92, model_layers_9_input_layernorm_weight2, alloc303)
        rms_norm51: R.Tensor((1, 1, 2048), dtype="float16") = alloc303
        alloc304: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_9_self_attn_qkv_proj_weight2, alloc304)
        permute_dims101: R.Tensor((2048, 3072), dtype="float16") = alloc304
        alloc305: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm51, permute_dims101, alloc305)
        matmul101: R.Tensor((1, 1, 3072), dtype="float16") = alloc305
        lv93: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul101, R.shape([1, 48, 64]))
        alloc306: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _306: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 9, T.float64(0.125), lv93, alloc306)
        lv26: R.Tensor((1, 32, 64), dtype="float16") = alloc306
        lv94: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv26, R.shape([1, 1, 2048]))
        alloc307: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_9_self_attn_o_proj_weight2, alloc307)
        permute_dims102: R.Tensor((2048, 2048), dtype="float16") = alloc307
        alloc308: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv94, permute_dims102, lv92, alloc308)
        lv95: R.Tensor((1, 1, 2048), dtype="float16") = alloc308
        alloc309: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv95, model_layers_9_post_attention_layernorm_weight2, alloc309)
        rms_norm52: R.Tensor((1, 1, 2048), dtype="float16") = alloc309
        alloc310: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_9_mlp_gate_up_proj_weight2, alloc310)
        permute_dims103: R.Tensor((2048, 16384), dtype="float16") = alloc310
        alloc311: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm52, permute_dims103, alloc311)
        matmul103: R.Tensor((1, 1, 16384), dtype="float16") = alloc311
        alloc312: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul103, alloc312)
        lv96: R.Tensor((1, 1, 8192), dtype="float16") = alloc312
        alloc313: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_9_mlp_down_proj_weight2, alloc313)
        permute_dims104: R.Tensor((8192, 2048), dtype="float16") = alloc313
        alloc314: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv96, permute_dims104, lv95, alloc314)
        lv97: R.Tensor((1, 1, 2048), dtype="float16") = alloc314
        alloc315: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv97, model_layers_10_input_layernorm_weight2, alloc315)
        rms_norm53: R.Tensor((1, 1, 2048), dtype="float16") = alloc315
        alloc316: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_10_self_attn_qkv_proj_weight2, alloc316)
        permute_dims105: R.Tensor((2048, 3072), dtype="float16") = alloc316
        alloc317: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm53, permute_dims105, alloc317)
        matmul105: R.Tensor((1, 1, 3072), dtype="float16") = alloc317
        lv98: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul105, R.shape([1, 48, 64]))
        alloc318: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _318: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 10, T.float64(0.125), lv98, alloc318)
        lv27: R.Tensor((1, 32, 64), dtype="float16") = alloc318
        lv99: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv27, R.shape([1, 1, 2048]))
        alloc319: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_10_self_attn_o_proj_weight2, alloc319)
        permute_dims106: R.Tensor((2048, 2048), dtype="float16") = alloc319
        alloc320: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv99, permute_dims106, lv97, alloc320)
        lv100: R.Tensor((1, 1, 2048), dtype="float16") = alloc320
        alloc321: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv100, model_layers_10_post_attention_layernorm_weight2, alloc321)
        rms_norm54: R.Tensor((1, 1, 2048), dtype="float16") = alloc321
        alloc322: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_10_mlp_gate_up_proj_weight2, alloc322)
        permute_dims107: R.Tensor((2048, 16384), dtype="float16") = alloc322
        alloc323: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm54, permute_dims107, alloc323)
        matmul107: R.Tensor((1, 1, 16384), dtype="float16") = alloc323
        alloc324: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul107, alloc324)
        lv101: R.Tensor((1, 1, 8192), dtype="float16") = alloc324
        alloc325: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_10_mlp_down_proj_weight2, alloc325)
        permute_dims108: R.Tensor((8192, 2048), dtype="float16") = alloc325
        alloc326: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv101, permute_dims108, lv100, alloc326)
        lv102: R.Tensor((1, 1, 2048), dtype="float16") = alloc326
        alloc327: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv102, model_layers_11_input_layernorm_weight2, alloc327)
        rms_norm55: R.Tensor((1, 1, 2048), dtype="float16") = alloc327
        alloc328: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_11_self_attn_qkv_proj_weight2, alloc328)
        permute_dims109: R.Tensor((2048, 3072), dtype="float16") = alloc328
        alloc329: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm55, permute_dims109, alloc329)
        matmul109: R.Tensor((1, 1, 3072), dtype="float16") = alloc329
        lv103: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul109, R.shape([1, 48, 64]))
        alloc330: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _330: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 11, T.float64(0.125), lv103, alloc330)
        lv28: R.Tensor((1, 32, 64), dtype="float16") = alloc330
        lv104: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv28, R.shape([1, 1, 2048]))
        alloc331: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_11_self_attn_o_proj_weight2, alloc331)
        permute_dims110: R.Tensor((2048, 2048), dtype="float16") = alloc331
        alloc332: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv104, permute_dims110, lv102, alloc332)
        lv105: R.Tensor((1, 1, 2048), dtype="float16") = alloc332
        alloc333: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv105, model_layers_11_post_attention_layernorm_weight2, alloc333)
        rms_norm56: R.Tensor((1, 1, 2048), dtype="float16") = alloc333
        alloc334: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_11_mlp_gate_up_proj_weight2, alloc334)
        permute_dims111: R.Tensor((2048, 16384), dtype="float16") = alloc334
        alloc335: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm56, permute_dims111, alloc335)
        matmul111: R.Tensor((1, 1, 16384), dtype="float16") = alloc335
        alloc336: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul111, alloc336)
        lv106: R.Tensor((1, 1, 8192), dtype="float16") = alloc336
        alloc337: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_11_mlp_down_proj_weight2, alloc337)
        permute_dims112: R.Tensor((8192, 2048), dtype="float16") = alloc337
        alloc338: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv106, permute_dims112, lv105, alloc338)
        lv107: R.Tensor((1, 1, 2048), dtype="float16") = alloc338
        alloc339: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv107, model_layers_12_input_layernorm_weight2, alloc339)
        rms_norm57: R.Tensor((1, 1, 2048), dtype="float16") = alloc339
        alloc340: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_12_self_attn_qkv_proj_weight2, alloc340)
        permute_dims113: R.Tensor((2048, 3072), dtype="float16") = alloc340
        alloc341: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm57, permute_dims113, alloc341)
        matmul113: R.Tensor((1, 1, 3072), dtype="float16") = alloc341
        lv108: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul113, R.shape([1, 48, 64]))
        alloc342: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _342: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 12, T.float64(0.125), lv108, alloc342)
        lv29: R.Tensor((1, 32, 64), dtype="float16") = alloc342
        lv109: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv29, R.shape([1, 1, 2048]))
        alloc343: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_12_self_attn_o_proj_weight2, alloc343)
        permute_dims114: R.Tensor((2048, 2048), dtype="float16") = alloc343
        alloc344: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv109, permute_dims114, lv107, alloc344)
        lv110: R.Tensor((1, 1, 2048), dtype="float16") = alloc344
        alloc345: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv110, model_layers_12_post_attention_layernorm_weight2, alloc345)
        rms_norm58: R.Tensor((1, 1, 2048), dtype="float16") = alloc345
        alloc346: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_12_mlp_gate_up_proj_weight2, alloc346)
        permute_dims115: R.Tensor((2048, 16384), dtype="float16") = alloc346
        alloc347: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm58, permute_dims115, alloc347)
        matmul115: R.Tensor((1, 1, 16384), dtype="float16") = alloc347
        alloc348: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul115, alloc348)
        lv111: R.Tensor((1, 1, 8192), dtype="float16") = alloc348
        alloc349: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_12_mlp_down_proj_weight2, alloc349)
        permute_dims116: R.Tensor((8192, 2048), dtype="float16") = alloc349
        alloc350: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv111, permute_dims116, lv110, alloc350)
        lv112: R.Tensor((1, 1, 2048), dtype="float16") = alloc350
        alloc351: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv112, model_layers_13_input_layernorm_weight2, alloc351)
        rms_norm59: R.Tensor((1, 1, 2048), dtype="float16") = alloc351
        alloc352: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_13_self_attn_qkv_proj_weight2, alloc352)
        permute_dims117: R.Tensor((2048, 3072), dtype="float16") = alloc352
        alloc353: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm59, permute_dims117, alloc353)
        matmul117: R.Tensor((1, 1, 3072), dtype="float16") = alloc353
        lv113: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul117, R.shape([1, 48, 64]))
        alloc354: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _354: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 13, T.float64(0.125), lv113, alloc354)
        lv30: R.Tensor((1, 32, 64), dtype="float16") = alloc354
        lv114: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv30, R.shape([1, 1, 2048]))
        alloc355: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_13_self_attn_o_proj_weight2, alloc355)
        permute_dims118: R.Tensor((2048, 2048), dtype="float16") = alloc355
        alloc356: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv114, permute_dims118, lv112, alloc356)
        lv115: R.Tensor((1, 1, 2048), dtype="float16") = alloc356
        alloc357: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv115, model_layers_13_post_attention_layernorm_weight2, alloc357)
        rms_norm60: R.Tensor((1, 1, 2048), dtype="float16") = alloc357
        alloc358: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_13_mlp_gate_up_proj_weight2, alloc358)
        permute_dims119: R.Tensor((2048, 16384), dtype="float16") = alloc358
        alloc359: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm60, permute_dims119, alloc359)
        matmul119: R.Tensor((1, 1, 16384), dtype="float16") = alloc359
        alloc360: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul119, alloc360)
        lv116: R.Tensor((1, 1, 8192), dtype="float16") = alloc360
        alloc361: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_13_mlp_down_proj_weight2, alloc361)
        permute_dims120: R.Tensor((8192, 2048), dtype="float16") = alloc361
        alloc362: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv116, permute_dims120, lv115, alloc362)
        lv117: R.Tensor((1, 1, 2048), dtype="float16") = alloc362
        alloc363: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv117, model_layers_14_input_layernorm_weight2, alloc363)
        rms_norm61: R.Tensor((1, 1, 2048), dtype="float16") = alloc363
        alloc364: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_14_self_attn_qkv_proj_weight2, alloc364)
        permute_dims121: R.Tensor((2048, 3072), dtype="float16") = alloc364
        alloc365: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm61, permute_dims121, alloc365)
        matmul121: R.Tensor((1, 1, 3072), dtype="float16") = alloc365
        lv118: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul121, R.shape([1, 48, 64]))
        alloc366: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _366: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 14, T.float64(0.125), lv118, alloc366)
        lv31: R.Tensor((1, 32, 64), dtype="float16") = alloc366
        lv119: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv31, R.shape([1, 1, 2048]))
        alloc367: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_14_self_attn_o_proj_weight2, alloc367)
        permute_dims122: R.Tensor((2048, 2048), dtype="float16") = alloc367
        alloc368: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv119, permute_dims122, lv117, alloc368)
        lv120: R.Tensor((1, 1, 2048), dtype="float16") = alloc368
        alloc369: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv120, model_layers_14_post_attention_layernorm_weight2, alloc369)
        rms_norm62: R.Tensor((1, 1, 2048), dtype="float16") = alloc369
        alloc370: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_14_mlp_gate_up_proj_weight2, alloc370)
        permute_dims123: R.Tensor((2048, 16384), dtype="float16") = alloc370
        alloc371: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm62, permute_dims123, alloc371)
        matmul123: R.Tensor((1, 1, 16384), dtype="float16") = alloc371
        alloc372: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul123, alloc372)
        lv121: R.Tensor((1, 1, 8192), dtype="float16") = alloc372
        alloc373: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_14_mlp_down_proj_weight2, alloc373)
        permute_dims124: R.Tensor((8192, 2048), dtype="float16") = alloc373
        alloc374: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv121, permute_dims124, lv120, alloc374)
        lv122: R.Tensor((1, 1, 2048), dtype="float16") = alloc374
        alloc375: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv122, model_layers_15_input_layernorm_weight2, alloc375)
        rms_norm63: R.Tensor((1, 1, 2048), dtype="float16") = alloc375
        alloc376: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_15_self_attn_qkv_proj_weight2, alloc376)
        permute_dims125: R.Tensor((2048, 3072), dtype="float16") = alloc376
        alloc377: R.Tensor((1, 1, 3072), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 3072]), R.dtype("float16"), 0)
        cls.matmul5(rms_norm63, permute_dims125, alloc377)
        matmul125: R.Tensor((1, 1, 3072), dtype="float16") = alloc377
        lv123: R.Tensor((1, 48, 64), dtype="float16") = R.reshape(matmul125, R.shape([1, 48, 64]))
        alloc378: R.Tensor((1, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 32, 64]), R.dtype("float16"), 0)
        _378: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 15, T.float64(0.125), lv123, alloc378)
        lv32: R.Tensor((1, 32, 64), dtype="float16") = alloc378
        lv124: R.Tensor((1, 1, 2048), dtype="float16") = R.reshape(lv32, R.shape([1, 1, 2048]))
        alloc379: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_15_self_attn_o_proj_weight2, alloc379)
        permute_dims126: R.Tensor((2048, 2048), dtype="float16") = alloc379
        alloc380: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul6_add1(lv124, permute_dims126, lv122, alloc380)
        lv125: R.Tensor((1, 1, 2048), dtype="float16") = alloc380
        alloc381: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv125, model_layers_15_post_attention_layernorm_weight2, alloc381)
        rms_norm64: R.Tensor((1, 1, 2048), dtype="float16") = alloc381
        alloc382: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_15_mlp_gate_up_proj_weight2, alloc382)
        permute_dims127: R.Tensor((2048, 16384), dtype="float16") = alloc382
        alloc383: R.Tensor((1, 1, 16384), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 16384]), R.dtype("float16"), 0)
        cls.matmul7(rms_norm64, permute_dims127, alloc383)
        matmul127: R.Tensor((1, 1, 16384), dtype="float16") = alloc383
        alloc384: R.Tensor((1, 1, 8192), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 8192]), R.dtype("float16"), 0)
        cls.fused_split1_silu1_multiply1(matmul127, alloc384)
        lv126: R.Tensor((1, 1, 8192), dtype="float16") = alloc384
        alloc385: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_15_mlp_down_proj_weight2, alloc385)
        permute_dims128: R.Tensor((8192, 2048), dtype="float16") = alloc385
        alloc386: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage7, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul8_add1(lv126, permute_dims128, lv125, alloc386)
        lv127: R.Tensor((1, 1, 2048), dtype="float16") = alloc386
        alloc387: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage6, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.rms_norm1(lv127, model_norm_weight2, alloc387)
        rms_norm65: R.Tensor((1, 1, 2048), dtype="float16") = alloc387
        alloc388: R.Tensor((2048, 128256), dtype="float16") = R.memory.alloc_tensor(storage5, 0, R.shape([2048, 128256]), R.dtype("float16"), 0)
        cls.transpose4(model_embed_tokens_weight2, alloc388)
        permute_dims129: R.Tensor((2048, 128256), dtype="float16") = alloc388
        alloc389: R.Tensor((1, 1, 128256), dtype="float32") = R.builtin.alloc_tensor(R.shape([1, 1, 128256]), R.dtype("float32"), 0, R.str("global"), ty_args=(R.Tensor((1, 1, 128256), dtype="float32"),))
        cls.matmul9(rms_norm65, permute_dims129, alloc389)
        matmul129: R.Tensor((1, 1, 128256), dtype="float32") = alloc389
        gv2: R.Tuple(R.Tensor((1, 1, 128256), dtype="float32"), R.Any) = matmul129, paged_kv_cache
        return gv2

    @R.function
    def embed(input_ids: R.Tensor((seq_len,), dtype="int32"), packed_params: R.Tuple(R.Tensor((128256, 2048), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"))) -> R.Tensor((seq_len, 2048), dtype="float16"):
        R.func_attr({"num_input": 1, "relax.force_pure": True, "tir_non_negative_var": ["vocab_size"], "tir_var_upper_bound": {"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}})
        cls = Module
        model_embed_tokens_weight: R.Tensor((128256, 2048), dtype="float16") = packed_params[0]
        alloc390: R.Tensor((seq_len, 2048), dtype="float16") = R.builtin.alloc_tensor(R.shape([seq_len, 2048]), R.dtype("float16"), 0, R.str("global"), ty_args=(R.Tensor((seq_len, 2048), dtype="float16"),))
        cls.take(model_embed_tokens_weight, input_ids, alloc390)
        gv: R.Tensor((seq_len, 2048), dtype="float16") = alloc390
        return gv

    @R.function
    def prefill(input_embed: R.Tensor((1, seq_len, 2048), dtype="float16"), paged_kv_cache: R.Any, packed_params: R.Tuple(R.Tensor((128256, 2048), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((3072, 2048), dtype="float16"), R.Tensor((2048, 2048), dtype="float16"), R.Tensor((16384, 2048), dtype="float16"), R.Tensor((2048, 8192), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"), R.Tensor((2048,), dtype="float16"))) -> R.Tuple(R.Tensor((1, 1, 128256), dtype="float32"), R.Any):
        R.func_attr({"num_input": 2, "relax.force_pure": True, "tir_non_negative_var": ["vocab_size"], "tir_var_upper_bound": {"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}})
        cls = Module
        model_embed_tokens_weight1: R.Tensor((128256, 2048), dtype="float16") = packed_params[0]
        model_layers_0_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[1]
        model_layers_0_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[2]
        model_layers_0_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[3]
        model_layers_0_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[4]
        model_layers_0_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[5]
        model_layers_0_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[6]
        model_layers_1_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[7]
        model_layers_1_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[8]
        model_layers_1_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[9]
        model_layers_1_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[10]
        model_layers_1_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[11]
        model_layers_1_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[12]
        model_layers_2_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[13]
        model_layers_2_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[14]
        model_layers_2_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[15]
        model_layers_2_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[16]
        model_layers_2_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[17]
        model_layers_2_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[18]
        model_layers_3_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[19]
        model_layers_3_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[20]
        model_layers_3_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[21]
        model_layers_3_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[22]
        model_layers_3_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[23]
        model_layers_3_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[24]
        model_layers_4_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[25]
        model_layers_4_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[26]
        model_layers_4_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[27]
        model_layers_4_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[28]
        model_layers_4_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[29]
        model_layers_4_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[30]
        model_layers_5_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[31]
        model_layers_5_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[32]
        model_layers_5_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[33]
        model_layers_5_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[34]
        model_layers_5_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[35]
        model_layers_5_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[36]
        model_layers_6_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[37]
        model_layers_6_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[38]
        model_layers_6_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[39]
        model_layers_6_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[40]
        model_layers_6_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[41]
        model_layers_6_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[42]
        model_layers_7_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[43]
        model_layers_7_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[44]
        model_layers_7_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[45]
        model_layers_7_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[46]
        model_layers_7_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[47]
        model_layers_7_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[48]
        model_layers_8_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[49]
        model_layers_8_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[50]
        model_layers_8_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[51]
        model_layers_8_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[52]
        model_layers_8_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[53]
        model_layers_8_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[54]
        model_layers_9_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[55]
        model_layers_9_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[56]
        model_layers_9_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[57]
        model_layers_9_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[58]
        model_layers_9_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[59]
        model_layers_9_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[60]
        model_layers_10_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[61]
        model_layers_10_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[62]
        model_layers_10_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[63]
        model_layers_10_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[64]
        model_layers_10_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[65]
        model_layers_10_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[66]
        model_layers_11_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[67]
        model_layers_11_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[68]
        model_layers_11_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[69]
        model_layers_11_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[70]
        model_layers_11_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[71]
        model_layers_11_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[72]
        model_layers_12_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[73]
        model_layers_12_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[74]
        model_layers_12_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[75]
        model_layers_12_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[76]
        model_layers_12_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[77]
        model_layers_12_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[78]
        model_layers_13_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[79]
        model_layers_13_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[80]
        model_layers_13_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[81]
        model_layers_13_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[82]
        model_layers_13_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[83]
        model_layers_13_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[84]
        model_layers_14_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[85]
        model_layers_14_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[86]
        model_layers_14_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[87]
        model_layers_14_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[88]
        model_layers_14_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[89]
        model_layers_14_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[90]
        model_layers_15_self_attn_qkv_proj_weight1: R.Tensor((3072, 2048), dtype="float16") = packed_params[91]
        model_layers_15_self_attn_o_proj_weight1: R.Tensor((2048, 2048), dtype="float16") = packed_params[92]
        model_layers_15_mlp_gate_up_proj_weight1: R.Tensor((16384, 2048), dtype="float16") = packed_params[93]
        model_layers_15_mlp_down_proj_weight1: R.Tensor((2048, 8192), dtype="float16") = packed_params[94]
        model_layers_15_input_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[95]
        model_layers_15_post_attention_layernorm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[96]
        model_norm_weight1: R.Tensor((2048,), dtype="float16") = packed_params[97]
        storage8: R.Any = R.memory.alloc_storage(R.shape([8388608]), 0, R.str("global"), R.dtype("float16"))
        alloc391: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(input_embed, model_layers_0_input_layernorm_weight1, alloc391)
        rms_norm: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc391
        storage9: R.Any = R.memory.alloc_storage(R.shape([525336576]), 0, R.str("global"), R.dtype("float16"))
        alloc392: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_0_self_attn_qkv_proj_weight1, alloc392)
        permute_dims: R.Tensor((2048, 3072), dtype="float16") = alloc392
        storage10: R.Any = R.memory.alloc_storage(R.shape([67108864]), 0, R.str("global"), R.dtype("float16"))
        alloc393: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm, permute_dims, alloc393)
        matmul: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc393
        reshape: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul, R.shape([1, seq_len, 48, 64]))
        reshape1: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape, R.shape([seq_len, 48, 64]))
        alloc394: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _394: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 0, T.float64(0.125), reshape1, alloc394)
        lv: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc394
        reshape2: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv, R.shape([1, seq_len, 32, 64]))
        reshape3: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape2, R.shape([1, seq_len, 2048]))
        alloc395: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_0_self_attn_o_proj_weight1, alloc395)
        permute_dims1: R.Tensor((2048, 2048), dtype="float16") = alloc395
        alloc396: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape3, permute_dims1, input_embed, alloc396)
        lv128: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc396
        alloc397: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv128, model_layers_0_post_attention_layernorm_weight1, alloc397)
        rms_norm1: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc397
        alloc398: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_0_mlp_gate_up_proj_weight1, alloc398)
        permute_dims2: R.Tensor((2048, 16384), dtype="float16") = alloc398
        storage11: R.Any = R.memory.alloc_storage(R.shape([67108864]), 0, R.str("global"), R.dtype("float16"))
        alloc399: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm1, permute_dims2, alloc399)
        matmul2: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc399
        alloc400: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul2, alloc400)
        lv129: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc400
        alloc401: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_0_mlp_down_proj_weight1, alloc401)
        permute_dims3: R.Tensor((8192, 2048), dtype="float16") = alloc401
        alloc402: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv129, permute_dims3, lv128, alloc402)
        lv130: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc402
        alloc403: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv130, model_layers_1_input_layernorm_weight1, alloc403)
        rms_norm2: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc403
        alloc404: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_1_self_attn_qkv_proj_weight1, alloc404)
        permute_dims4: R.Tensor((2048, 3072), dtype="float16") = alloc404
        alloc405: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm2, permute_dims4, alloc405)
        matmul4: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc405
        reshape4: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul4, R.shape([1, seq_len, 48, 64]))
        reshape5: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape4, R.shape([seq_len, 48, 64]))
        alloc406: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _406: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 1, T.float64(0.125), reshape5, alloc406)
        lv1: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc406
        reshape6: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv1, R.shape([1, seq_len, 32, 64]))
        reshape7: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape6, R.shape([1, seq_len, 2048]))
        alloc407: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_1_self_attn_o_proj_weight1, alloc407)
        permute_dims5: R.Tensor((2048, 2048), dtype="float16") = alloc407
        alloc408: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape7, permute_dims5, lv130, alloc408)
        lv131: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc408
        alloc409: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv131, model_layers_1_post_attention_layernorm_weight1, alloc409)
        rms_norm3: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc409
        alloc410: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_1_mlp_gate_up_proj_weight1, alloc410)
        permute_dims6: R.Tensor((2048, 16384), dtype="float16") = alloc410
        alloc411: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm3, permute_dims6, alloc411)
        matmul6: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc411
        alloc412: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul6, alloc412)
        lv132: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc412
        alloc413: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_1_mlp_down_proj_weight1, alloc413)
        permute_dims7: R.Tensor((8192, 2048), dtype="float16") = alloc413
        alloc414: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv132, permute_dims7, lv131, alloc414)
        lv133: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc414
        alloc415: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv133, model_layers_2_input_layernorm_weight1, alloc415)
        rms_norm4: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc415
        alloc416: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_2_self_attn_qkv_proj_weight1, alloc416)
        permute_dims8: R.Tensor((2048, 3072), dtype="float16") = alloc416
        alloc417: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm4, permute_dims8, alloc417)
        matmul8: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc417
        reshape8: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul8, R.shape([1, seq_len, 48, 64]))
        reshape9: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape8, R.shape([seq_len, 48, 64]))
        alloc418: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _418: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 2, T.float64(0.125), reshape9, alloc418)
        lv2: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc418
        reshape10: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv2, R.shape([1, seq_len, 32, 64]))
        reshape11: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape10, R.shape([1, seq_len, 2048]))
        alloc419: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_2_self_attn_o_proj_weight1, alloc419)
        permute_dims9: R.Tensor((2048, 2048), dtype="float16") = alloc419
        alloc420: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape11, permute_dims9, lv133, alloc420)
        lv134: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc420
        alloc421: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv134, model_layers_2_post_attention_layernorm_weight1, alloc421)
        rms_norm5: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc421
        alloc422: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_2_mlp_gate_up_proj_weight1, alloc422)
        permute_dims10: R.Tensor((2048, 16384), dtype="float16") = alloc422
        alloc423: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm5, permute_dims10, alloc423)
        matmul10: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc423
        alloc424: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul10, alloc424)
        lv135: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc424
        alloc425: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_2_mlp_down_proj_weight1, alloc425)
        permute_dims11: R.Tensor((8192, 2048), dtype="float16") = alloc425
        alloc426: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv135, permute_dims11, lv134, alloc426)
        lv136: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc426
        alloc427: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv136, model_layers_3_input_layernorm_weight1, alloc427)
        rms_norm6: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc427
        alloc428: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_3_self_attn_qkv_proj_weight1, alloc428)
        permute_dims12: R.Tensor((2048, 3072), dtype="float16") = alloc428
        alloc429: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm6, permute_dims12, alloc429)
        matmul12: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc429
        reshape12: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul12, R.shape([1, seq_len, 48, 64]))
        reshape13: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape12, R.shape([seq_len, 48, 64]))
        alloc430: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _430: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 3, T.float64(0.125), reshape13, alloc430)
        lv3: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc430
        reshape14: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv3, R.shape([1, seq_len, 32, 64]))
        reshape15: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape14, R.shape([1, seq_len, 2048]))
        alloc431: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_3_self_attn_o_proj_weight1, alloc431)
        permute_dims13: R.Tensor((2048, 2048), dtype="float16") = alloc431
        alloc432: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape15, permute_dims13, lv136, alloc432)
        lv137: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc432
        alloc433: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv137, model_layers_3_post_attention_layernorm_weight1, alloc433)
        rms_norm7: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc433
        alloc434: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_3_mlp_gate_up_proj_weight1, alloc434)
        permute_dims14: R.Tensor((2048, 16384), dtype="float16") = alloc434
        alloc435: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm7, permute_dims14, alloc435)
        matmul14: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc435
        alloc436: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul14, alloc436)
        lv138: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc436
        alloc437: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_3_mlp_down_proj_weight1, alloc437)
        permute_dims15: R.Tensor((8192, 2048), dtype="float16") = alloc437
        alloc438: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv138, permute_dims15, lv137, alloc438)
        lv139: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc438
        alloc439: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv139, model_layers_4_input_layernorm_weight1, alloc439)
        rms_norm8: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc439
        alloc440: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_4_self_attn_qkv_proj_weight1, alloc440)
        permute_dims16: R.Tensor((2048, 3072), dtype="float16") = alloc440
        alloc441: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm8, permute_dims16, alloc441)
        matmul16: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc441
        reshape16: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul16, R.shape([1, seq_len, 48, 64]))
        reshape17: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape16, R.shape([seq_len, 48, 64]))
        alloc442: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _442: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 4, T.float64(0.125), reshape17, alloc442)
        lv4: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc442
        reshape18: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv4, R.shape([1, seq_len, 32, 64]))
        reshape19: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape18, R.shape([1, seq_len, 2048]))
        alloc443: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_4_self_attn_o_proj_weight1, alloc443)
        permute_dims17: R.Tensor((2048, 2048), dtype="float16") = alloc443
        alloc444: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape19, permute_dims17, lv139, alloc444)
        lv140: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc444
        alloc445: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv140, model_layers_4_post_attention_layernorm_weight1, alloc445)
        rms_norm9: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc445
        alloc446: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_4_mlp_gate_up_proj_weight1, alloc446)
        permute_dims18: R.Tensor((2048, 16384), dtype="float16") = alloc446
        alloc447: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm9, permute_dims18, alloc447)
        matmul18: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc447
        alloc448: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul18, alloc448)
        lv141: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc448
        alloc449: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_4_mlp_down_proj_weight1, alloc449)
        permute_dims19: R.Tensor((8192, 2048), dtype="float16") = alloc449
        alloc450: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv141, permute_dims19, lv140, alloc450)
        lv142: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc450
        alloc451: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv142, model_layers_5_input_layernorm_weight1, alloc451)
        rms_norm10: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc451
        alloc452: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_5_self_attn_qkv_proj_weight1, alloc452)
        permute_dims20: R.Tensor((2048, 3072), dtype="float16") = alloc452
        alloc453: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm10, permute_dims20, alloc453)
        matmul20: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc453
        reshape20: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul20, R.shape([1, seq_len, 48, 64]))
        reshape21: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape20, R.shape([seq_len, 48, 64]))
        alloc454: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _454: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 5, T.float64(0.125), reshape21, alloc454)
        lv5: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc454
        reshape22: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv5, R.shape([1, seq_len, 32, 64]))
        reshape23: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape22, R.shape([1, seq_len, 2048]))
        alloc455: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_5_self_attn_o_proj_weight1, alloc455)
        permute_dims21: R.Tensor((2048, 2048), dtype="float16") = alloc455
        alloc456: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape23, permute_dims21, lv142, alloc456)
        lv143: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc456
        alloc457: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv143, model_layers_5_post_attention_layernorm_weight1, alloc457)
        rms_norm11: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc457
        alloc458: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_5_mlp_gate_up_proj_weight1, alloc458)
        permute_dims22: R.Tensor((2048, 16384), dtype="float16") = alloc458
        alloc459: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm11, permute_dims22, alloc459)
        matmul22: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc459
        alloc460: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul22, alloc460)
        lv144: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc460
        alloc461: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_5_mlp_down_proj_weight1, alloc461)
        permute_dims23: R.Tensor((8192, 2048), dtype="float16") = alloc461
        alloc462: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv144, permute_dims23, lv143, alloc462)
        lv145: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc462
        alloc463: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv145, model_layers_6_input_layernorm_weight1, alloc463)
        rms_norm12: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc463
        alloc464: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_6_self_attn_qkv_proj_weight1, alloc464)
        permute_dims24: R.Tensor((2048, 3072), dtype="float16") = alloc464
        alloc465: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm12, permute_dims24, alloc465)
        matmul24: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc465
        reshape24: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul24, R.shape([1, seq_len, 48, 64]))
        reshape25: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape24, R.shape([seq_len, 48, 64]))
        alloc466: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _466: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 6, T.float64(0.125), reshape25, alloc466)
        lv6: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc466
        reshape26: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv6, R.shape([1, seq_len, 32, 64]))
        reshape27: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape26, R.shape([1, seq_len, 2048]))
        alloc467: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_6_self_attn_o_proj_weight1, alloc467)
        permute_dims25: R.Tensor((2048, 2048), dtype="float16") = alloc467
        alloc468: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape27, permute_dims25, lv145, alloc468)
        lv146: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc468
        alloc469: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv146, model_layers_6_post_attention_layernorm_weight1, alloc469)
        rms_norm13: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc469
        alloc470: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_6_mlp_gate_up_proj_weight1, alloc470)
        permute_dims26: R.Tensor((2048, 16384), dtype="float16") = alloc470
        alloc471: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm13, permute_dims26, alloc471)
        matmul26: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc471
        alloc472: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul26, alloc472)
        lv147: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc472
        alloc473: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_6_mlp_down_proj_weight1, alloc473)
        permute_dims27: R.Tensor((8192, 2048), dtype="float16") = alloc473
        alloc474: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv147, permute_dims27, lv146, alloc474)
        lv148: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc474
        alloc475: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv148, model_layers_7_input_layernorm_weight1, alloc475)
        rms_norm14: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc475
        alloc476: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_7_self_attn_qkv_proj_weight1, alloc476)
        permute_dims28: R.Tensor((2048, 3072), dtype="float16") = alloc476
        alloc477: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm14, permute_dims28, alloc477)
        matmul28: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc477
        reshape28: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul28, R.shape([1, seq_len, 48, 64]))
        reshape29: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape28, R.shape([seq_len, 48, 64]))
        alloc478: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _478: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 7, T.float64(0.125), reshape29, alloc478)
        lv7: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc478
        reshape30: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv7, R.shape([1, seq_len, 32, 64]))
        reshape31: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape30, R.shape([1, seq_len, 2048]))
        alloc479: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_7_self_attn_o_proj_weight1, alloc479)
        permute_dims29: R.Tensor((2048, 2048), dtype="float16") = alloc479
        alloc480: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape31, permute_dims29, lv148, alloc480)
        lv149: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc480
        alloc481: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv149, model_layers_7_post_attention_layernorm_weight1, alloc481)
        rms_norm15: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc481
        alloc482: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_7_mlp_gate_up_proj_weight1, alloc482)
        permute_dims30: R.Tensor((2048, 16384), dtype="float16") = alloc482
        alloc483: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm15, permute_dims30, alloc483)
        matmul30: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc483
        alloc484: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul30, alloc484)
        lv150: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc484
        alloc485: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_7_mlp_down_proj_weight1, alloc485)
        permute_dims31: R.Tensor((8192, 2048), dtype="float16") = alloc485
        alloc486: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv150, permute_dims31, lv149, alloc486)
        lv151: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc486
        alloc487: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv151, model_layers_8_input_layernorm_weight1, alloc487)
        rms_norm16: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc487
        alloc488: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_8_self_attn_qkv_proj_weight1, alloc488)
        permute_dims32: R.Tensor((2048, 3072), dtype="float16") = alloc488
        alloc489: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm16, permute_dims32, alloc489)
        matmul32: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc489
        reshape32: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul32, R.shape([1, seq_len, 48, 64]))
        reshape33: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape32, R.shape([seq_len, 48, 64]))
        alloc490: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _490: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 8, T.float64(0.125), reshape33, alloc490)
        lv8: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc490
        reshape34: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv8, R.shape([1, seq_len, 32, 64]))
        reshape35: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape34, R.shape([1, seq_len, 2048]))
        alloc491: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_8_self_attn_o_proj_weight1, alloc491)
        permute_dims33: R.Tensor((2048, 2048), dtype="float16") = alloc491
        alloc492: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape35, permute_dims33, lv151, alloc492)
        lv152: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc492
        alloc493: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv152, model_layers_8_post_attention_layernorm_weight1, alloc493)
        rms_norm17: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc493
        alloc494: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_8_mlp_gate_up_proj_weight1, alloc494)
        permute_dims34: R.Tensor((2048, 16384), dtype="float16") = alloc494
        alloc495: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm17, permute_dims34, alloc495)
        matmul34: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc495
        alloc496: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul34, alloc496)
        lv153: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc496
        alloc497: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_8_mlp_down_proj_weight1, alloc497)
        permute_dims35: R.Tensor((8192, 2048), dtype="float16") = alloc497
        alloc498: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv153, permute_dims35, lv152, alloc498)
        lv154: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc498
        alloc499: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv154, model_layers_9_input_layernorm_weight1, alloc499)
        rms_norm18: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc499
        alloc500: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_9_self_attn_qkv_proj_weight1, alloc500)
        permute_dims36: R.Tensor((2048, 3072), dtype="float16") = alloc500
        alloc501: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm18, permute_dims36, alloc501)
        matmul36: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc501
        reshape36: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul36, R.shape([1, seq_len, 48, 64]))
        reshape37: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape36, R.shape([seq_len, 48, 64]))
        alloc502: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _502: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 9, T.float64(0.125), reshape37, alloc502)
        lv9: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc502
        reshape38: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv9, R.shape([1, seq_len, 32, 64]))
        reshape39: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape38, R.shape([1, seq_len, 2048]))
        alloc503: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_9_self_attn_o_proj_weight1, alloc503)
        permute_dims37: R.Tensor((2048, 2048), dtype="float16") = alloc503
        alloc504: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape39, permute_dims37, lv154, alloc504)
        lv155: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc504
        alloc505: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv155, model_layers_9_post_attention_layernorm_weight1, alloc505)
        rms_norm19: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc505
        alloc506: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_9_mlp_gate_up_proj_weight1, alloc506)
        permute_dims38: R.Tensor((2048, 16384), dtype="float16") = alloc506
        alloc507: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm19, permute_dims38, alloc507)
        matmul38: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc507
        alloc508: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul38, alloc508)
        lv156: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc508
        alloc509: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_9_mlp_down_proj_weight1, alloc509)
        permute_dims39: R.Tensor((8192, 2048), dtype="float16") = alloc509
        alloc510: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv156, permute_dims39, lv155, alloc510)
        lv157: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc510
        alloc511: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv157, model_layers_10_input_layernorm_weight1, alloc511)
        rms_norm20: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc511
        alloc512: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_10_self_attn_qkv_proj_weight1, alloc512)
        permute_dims40: R.Tensor((2048, 3072), dtype="float16") = alloc512
        alloc513: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm20, permute_dims40, alloc513)
        matmul40: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc513
        reshape40: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul40, R.shape([1, seq_len, 48, 64]))
        reshape41: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape40, R.shape([seq_len, 48, 64]))
        alloc514: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _514: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 10, T.float64(0.125), reshape41, alloc514)
        lv10: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc514
        reshape42: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv10, R.shape([1, seq_len, 32, 64]))
        reshape43: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape42, R.shape([1, seq_len, 2048]))
        alloc515: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_10_self_attn_o_proj_weight1, alloc515)
        permute_dims41: R.Tensor((2048, 2048), dtype="float16") = alloc515
        alloc516: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape43, permute_dims41, lv157, alloc516)
        lv158: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc516
        alloc517: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv158, model_layers_10_post_attention_layernorm_weight1, alloc517)
        rms_norm21: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc517
        alloc518: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_10_mlp_gate_up_proj_weight1, alloc518)
        permute_dims42: R.Tensor((2048, 16384), dtype="float16") = alloc518
        alloc519: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm21, permute_dims42, alloc519)
        matmul42: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc519
        alloc520: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul42, alloc520)
        lv159: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc520
        alloc521: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_10_mlp_down_proj_weight1, alloc521)
        permute_dims43: R.Tensor((8192, 2048), dtype="float16") = alloc521
        alloc522: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv159, permute_dims43, lv158, alloc522)
        lv160: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc522
        alloc523: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv160, model_layers_11_input_layernorm_weight1, alloc523)
        rms_norm22: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc523
        alloc524: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_11_self_attn_qkv_proj_weight1, alloc524)
        permute_dims44: R.Tensor((2048, 3072), dtype="float16") = alloc524
        alloc525: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm22, permute_dims44, alloc525)
        matmul44: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc525
        reshape44: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul44, R.shape([1, seq_len, 48, 64]))
        reshape45: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape44, R.shape([seq_len, 48, 64]))
        alloc526: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _526: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 11, T.float64(0.125), reshape45, alloc526)
        lv11: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc526
        reshape46: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv11, R.shape([1, seq_len, 32, 64]))
        reshape47: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape46, R.shape([1, seq_len, 2048]))
        alloc527: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_11_self_attn_o_proj_weight1, alloc527)
        permute_dims45: R.Tensor((2048, 2048), dtype="float16") = alloc527
        alloc528: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape47, permute_dims45, lv160, alloc528)
        lv161: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc528
        alloc529: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv161, model_layers_11_post_attention_layernorm_weight1, alloc529)
        rms_norm23: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc529
        alloc530: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_11_mlp_gate_up_proj_weight1, alloc530)
        permute_dims46: R.Tensor((2048, 16384), dtype="float16") = alloc530
        alloc531: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm23, permute_dims46, alloc531)
        matmul46: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc531
        alloc532: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul46, alloc532)
        lv162: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc532
        alloc533: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_11_mlp_down_proj_weight1, alloc533)
        permute_dims47: R.Tensor((8192, 2048), dtype="float16") = alloc533
        alloc534: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv162, permute_dims47, lv161, alloc534)
        lv163: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc534
        alloc535: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv163, model_layers_12_input_layernorm_weight1, alloc535)
        rms_norm24: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc535
        alloc536: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_12_self_attn_qkv_proj_weight1, alloc536)
        permute_dims48: R.Tensor((2048, 3072), dtype="float16") = alloc536
        alloc537: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm24, permute_dims48, alloc537)
        matmul48: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc537
        reshape48: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul48, R.shape([1, seq_len, 48, 64]))
        reshape49: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape48, R.shape([seq_len, 48, 64]))
        alloc538: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _538: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 12, T.float64(0.125), reshape49, alloc538)
        lv12: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc538
        reshape50: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv12, R.shape([1, seq_len, 32, 64]))
        reshape51: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape50, R.shape([1, seq_len, 2048]))
        alloc539: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_12_self_attn_o_proj_weight1, alloc539)
        permute_dims49: R.Tensor((2048, 2048), dtype="float16") = alloc539
        alloc540: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape51, permute_dims49, lv163, alloc540)
        lv164: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc540
        alloc541: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv164, model_layers_12_post_attention_layernorm_weight1, alloc541)
        rms_norm25: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc541
        alloc542: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_12_mlp_gate_up_proj_weight1, alloc542)
        permute_dims50: R.Tensor((2048, 16384), dtype="float16") = alloc542
        alloc543: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm25, permute_dims50, alloc543)
        matmul50: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc543
        alloc544: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul50, alloc544)
        lv165: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc544
        alloc545: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_12_mlp_down_proj_weight1, alloc545)
        permute_dims51: R.Tensor((8192, 2048), dtype="float16") = alloc545
        alloc546: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv165, permute_dims51, lv164, alloc546)
        lv166: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc546
        alloc547: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv166, model_layers_13_input_layernorm_weight1, alloc547)
        rms_norm26: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc547
        alloc548: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_13_self_attn_qkv_proj_weight1, alloc548)
        permute_dims52: R.Tensor((2048, 3072), dtype="float16") = alloc548
        alloc549: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm26, permute_dims52, alloc549)
        matmul52: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc549
        reshape52: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul52, R.shape([1, seq_len, 48, 64]))
        reshape53: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape52, R.shape([seq_len, 48, 64]))
        alloc550: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _550: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 13, T.float64(0.125), reshape53, alloc550)
        lv13: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc550
        reshape54: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv13, R.shape([1, seq_len, 32, 64]))
        reshape55: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape54, R.shape([1, seq_len, 2048]))
        alloc551: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_13_self_attn_o_proj_weight1, alloc551)
        permute_dims53: R.Tensor((2048, 2048), dtype="float16") = alloc551
        alloc552: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape55, permute_dims53, lv166, alloc552)
        lv167: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc552
        alloc553: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv167, model_layers_13_post_attention_layernorm_weight1, alloc553)
        rms_norm27: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc553
        alloc554: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_13_mlp_gate_up_proj_weight1, alloc554)
        permute_dims54: R.Tensor((2048, 16384), dtype="float16") = alloc554
        alloc555: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm27, permute_dims54, alloc555)
        matmul54: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc555
        alloc556: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul54, alloc556)
        lv168: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc556
        alloc557: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_13_mlp_down_proj_weight1, alloc557)
        permute_dims55: R.Tensor((8192, 2048), dtype="float16") = alloc557
        alloc558: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv168, permute_dims55, lv167, alloc558)
        lv169: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc558
        alloc559: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv169, model_layers_14_input_layernorm_weight1, alloc559)
        rms_norm28: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc559
        alloc560: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_14_self_attn_qkv_proj_weight1, alloc560)
        permute_dims56: R.Tensor((2048, 3072), dtype="float16") = alloc560
        alloc561: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm28, permute_dims56, alloc561)
        matmul56: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc561
        reshape56: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul56, R.shape([1, seq_len, 48, 64]))
        reshape57: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape56, R.shape([seq_len, 48, 64]))
        alloc562: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _562: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 14, T.float64(0.125), reshape57, alloc562)
        lv14: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc562
        reshape58: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv14, R.shape([1, seq_len, 32, 64]))
        reshape59: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape58, R.shape([1, seq_len, 2048]))
        alloc563: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_14_self_attn_o_proj_weight1, alloc563)
        permute_dims57: R.Tensor((2048, 2048), dtype="float16") = alloc563
        alloc564: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape59, permute_dims57, lv169, alloc564)
        lv170: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc564
        alloc565: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv170, model_layers_14_post_attention_layernorm_weight1, alloc565)
        rms_norm29: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc565
        alloc566: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_14_mlp_gate_up_proj_weight1, alloc566)
        permute_dims58: R.Tensor((2048, 16384), dtype="float16") = alloc566
        alloc567: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm29, permute_dims58, alloc567)
        matmul58: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc567
        alloc568: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul58, alloc568)
        lv171: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc568
        alloc569: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_14_mlp_down_proj_weight1, alloc569)
        permute_dims59: R.Tensor((8192, 2048), dtype="float16") = alloc569
        alloc570: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv171, permute_dims59, lv170, alloc570)
        lv172: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc570
        alloc571: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv172, model_layers_15_input_layernorm_weight1, alloc571)
        rms_norm30: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc571
        alloc572: R.Tensor((2048, 3072), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 3072]), R.dtype("float16"), 0)
        cls.transpose(model_layers_15_self_attn_qkv_proj_weight1, alloc572)
        permute_dims60: R.Tensor((2048, 3072), dtype="float16") = alloc572
        alloc573: R.Tensor((1, seq_len, 3072), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 3072]), R.dtype("float16"), 0)
        cls.matmul10(rms_norm30, permute_dims60, alloc573)
        matmul60: R.Tensor((1, seq_len, 3072), dtype="float16") = alloc573
        reshape60: R.Tensor((1, seq_len, 48, 64), dtype="float16") = R.reshape(matmul60, R.shape([1, seq_len, 48, 64]))
        reshape61: R.Tensor((seq_len, 48, 64), dtype="float16") = R.reshape(reshape60, R.shape([seq_len, 48, 64]))
        alloc574: R.Tensor((seq_len, 32, 64), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([seq_len, 32, 64]), R.dtype("float16"), 0)
        _574: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", paged_kv_cache, 15, T.float64(0.125), reshape61, alloc574)
        lv15: R.Tensor((seq_len, 32, 64), dtype="float16") = alloc574
        reshape62: R.Tensor((1, seq_len, 32, 64), dtype="float16") = R.reshape(lv15, R.shape([1, seq_len, 32, 64]))
        reshape63: R.Tensor((1, seq_len, 2048), dtype="float16") = R.reshape(reshape62, R.shape([1, seq_len, 2048]))
        alloc575: R.Tensor((2048, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([2048, 2048]), R.dtype("float16"), 0)
        cls.transpose1(model_layers_15_self_attn_o_proj_weight1, alloc575)
        permute_dims61: R.Tensor((2048, 2048), dtype="float16") = alloc575
        alloc576: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage11, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul11_add2(reshape63, permute_dims61, lv172, alloc576)
        lv173: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc576
        alloc577: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv173, model_layers_15_post_attention_layernorm_weight1, alloc577)
        rms_norm31: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc577
        alloc578: R.Tensor((2048, 16384), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 16384]), R.dtype("float16"), 0)
        cls.transpose2(model_layers_15_mlp_gate_up_proj_weight1, alloc578)
        permute_dims62: R.Tensor((2048, 16384), dtype="float16") = alloc578
        alloc579: R.Tensor((1, seq_len, 16384), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([1, seq_len, 16384]), R.dtype("float16"), 0)
        cls.matmul12(rms_norm31, permute_dims62, alloc579)
        matmul62: R.Tensor((1, seq_len, 16384), dtype="float16") = alloc579
        alloc580: R.Tensor((1, seq_len, 8192), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 8192]), R.dtype("float16"), 0)
        cls.fused_split2_silu2_multiply2(matmul62, alloc580)
        lv174: R.Tensor((1, seq_len, 8192), dtype="float16") = alloc580
        alloc581: R.Tensor((8192, 2048), dtype="float16") = R.memory.alloc_tensor(storage10, 0, R.shape([8192, 2048]), R.dtype("float16"), 0)
        cls.transpose3(model_layers_15_mlp_down_proj_weight1, alloc581)
        permute_dims63: R.Tensor((8192, 2048), dtype="float16") = alloc581
        alloc582: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage8, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.fused_matmul13_add2(lv174, permute_dims63, lv173, alloc582)
        lv175: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc582
        alloc583: R.Tensor((1, seq_len, 2048), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([1, seq_len, 2048]), R.dtype("float16"), 0)
        cls.rms_norm2(lv175, model_norm_weight1, alloc583)
        rms_norm32: R.Tensor((1, seq_len, 2048), dtype="float16") = alloc583
        storage12: R.Any = R.memory.alloc_storage(R.shape([4096]), 0, R.str("global"), R.dtype("float16"))
        alloc584: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor(storage12, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)
        cls.index(rms_norm32, alloc584)
        lv16: R.Tensor((1, 1, 2048), dtype="float16") = alloc584
        alloc585: R.Tensor((2048, 128256), dtype="float16") = R.memory.alloc_tensor(storage9, 0, R.shape([2048, 128256]), R.dtype("float16"), 0)
        cls.transpose4(model_embed_tokens_weight1, alloc585)
        permute_dims64: R.Tensor((2048, 128256), dtype="float16") = alloc585
        alloc586: R.Tensor((1, 1, 128256), dtype="float32") = R.builtin.alloc_tensor(R.shape([1, 1, 128256]), R.dtype("float32"), 0, R.str("global"), ty_args=(R.Tensor((1, 1, 128256), dtype="float32"),))
        cls.matmul9(lv16, permute_dims64, alloc586)
        matmul64: R.Tensor((1, 1, 128256), dtype="float32") = alloc586
        gv1: R.Tuple(R.Tensor((1, 1, 128256), dtype="float32"), R.Any) = matmul64, paged_kv_cache
        return gv1