"""Cases for matmul (numpy semantics: 1-D promotion, batch broadcasting) and
det (numpy's linalg.det in float64).

References are numpy matmul in float64 rounded to the case dtype. Sizes cross
the GEMM's blocking (micro-tile 6x16, blocks of 72 rows, 128 columns and 256
along K) so edge tiles, multiple K slices and the thin (matrix-vector) path
are all exercised; perms hand the kernel transposed operands.
"""
import numpy as np

from common import case

rng = np.random.default_rng(77)


def rand(shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def ref(a, b, dtype):
    return np.asarray(np.matmul(a.astype(np.float64), b.astype(np.float64))).astype(dtype)


def mm(name, a, b, perms=None, **kw):
    va = a if perms is None or perms[0] is None else a.transpose(perms[0])
    vb = b if perms is None or perms[1] is None else b.transpose(perms[1])
    k = va.shape[-1]
    if a.dtype == np.float16:
        opts = dict(atol=2e-3 * max(1.0, np.sqrt(k)), rtol=4e-3)
    else:
        opts = dict(atol=1e-5 * max(1.0, np.sqrt(k)), rtol=1e-4)
    opts.update(kw)
    return case(name, "matmul", inputs=[a, b], outputs=[ref(va, vb, a.dtype)], perms=perms, **opts)


def err(name, a, b, error, out_dtype="f32"):
    return case(name, "matmul", inputs=[a, b], outputs=[], error=error, out_specs=[(out_dtype, [1])])


def cases():
    out = []
    f16 = np.float16
    # 2-D, sizes around the blocking edges.
    for m, k, n in [(1, 1, 1), (2, 3, 4), (6, 16, 16), (7, 5, 17), (13, 9, 31), (72, 40, 128),
                    (73, 257, 129), (150, 300, 200), (4, 600, 5)]:
        out.append(mm(f"mm_{m}x{k}x{n}", rand((m, k)), rand((k, n))))
    # Transposed / permuted operands (packing reads through the strides).
    out.append(mm("mm_a_transposed", rand((40, 30)), rand((40, 50)), perms=[[1, 0], None]))
    out.append(mm("mm_b_transposed", rand((30, 40)), rand((50, 40)), perms=[None, [1, 0]]))
    out.append(mm("mm_both_transposed", rand((90, 77)), rand((140, 90)), perms=[[1, 0], [1, 0]]))
    out.append(mm("mm_thin_b_transposed", rand((3, 40)), rand((50, 40)), perms=[None, [1, 0]]))
    out.append(mm("mm_thin_a_transposed", rand((40, 2)), rand((40, 50)), perms=[[1, 0], None]))
    out.append(mm("mm_matvec_transposed", rand((20, 30)), rand((20, 1)), perms=[[1, 0], None]))
    # 1-D operands.
    out.append(mm("vec_vec", rand((17,)), rand((17,))))
    out.append(mm("vec_mat", rand((33,)), rand((33, 20))))
    out.append(mm("mat_vec", rand((20, 33)), rand((33,))))
    out.append(mm("vec_batched_mat", rand((5,)), rand((3, 5, 4))))
    out.append(mm("batched_mat_vec", rand((2, 3, 4, 5)), rand((5,))))
    # Batches: equal, broadcast either side, shared weight folded into rows.
    out.append(mm("batch_equal", rand((4, 10, 12)), rand((4, 12, 9))))
    out.append(mm("batch_broadcast_a", rand((1, 10, 12)), rand((3, 12, 9))))
    out.append(mm("batch_broadcast_both", rand((2, 1, 5, 6)), rand((1, 3, 6, 7))))
    out.append(mm("batch_rank_mismatch", rand((3, 4, 8, 6)), rand((6, 5))))
    out.append(mm("batch_shared_weight", rand((2, 3, 50, 64)), rand((64, 70))))
    out.append(mm("batch_b_only", rand((5, 6)), rand((4, 6, 3))))
    out.append(mm("batch_permuted_a", rand((10, 4, 12)), rand((12, 9)), perms=[[1, 0, 2], None]))
    out.append(mm("batch_permuted_b", rand((4, 10, 12)), rand((4, 9, 12)), perms=[None, [0, 2, 1]]))
    out.append(mm("batch_many_small", rand((64, 3, 5)), rand((64, 5, 2))))
    # float16 (computed in float32).
    out.append(mm("f16_2d", rand((20, 70), f16), rand((70, 30), f16)))
    out.append(mm("f16_thin", rand((2, 70), f16), rand((70, 30), f16)))
    out.append(mm("f16_batch_transposed", rand((3, 20, 40), f16), rand((3, 50, 40), f16), perms=[None, [0, 2, 1]]))
    out.append(mm("f16_vec_vec", rand((9,), f16), rand((9,), f16)))
    # float64 (a plain loop in double): matrices, transposed and broadcast batches, vectors.
    f64 = np.float64
    out.append(mm("f64_2d", rand((13, 9), f64), rand((9, 31), f64), atol=1e-12, rtol=1e-12))
    out.append(mm("f64_batch_transposed", rand((3, 5, 7), f64), rand((3, 6, 7), f64), perms=[None, [0, 2, 1]],
                  atol=1e-12, rtol=1e-12))
    out.append(mm("f64_broadcast_batch", rand((2, 1, 4, 3), f64), rand((5, 3, 2), f64), atol=1e-12, rtol=1e-12))
    out.append(mm("f64_vec_mat", rand((6,), f64), rand((2, 6, 4), f64), atol=1e-12, rtol=1e-12))
    out.append(mm("f64_vec_vec", rand((9,), f64), rand((9,), f64), atol=1e-12, rtol=1e-12))
    # Empty dims: no rows, no columns, nothing to contract (zeros), empty batch.
    out.append(mm("empty_m", rand((0, 5)), rand((5, 3))))
    out.append(mm("empty_n", rand((4, 5)), rand((5, 0))))
    out.append(mm("empty_k", rand((4, 0)), rand((0, 3))))
    out.append(mm("empty_k_large", rand((40, 0)), rand((0, 30))))
    out.append(mm("empty_batch", rand((0, 4, 5)), rand((5, 3))))
    out.append(mm("empty_k_vec", rand((0,)), rand((0,))))
    # Errors.
    out.append(err("err_k_mismatch", rand((2, 3)), rand((4, 5)), "matmul: contracted dims differ"))
    out.append(err("err_vec_mismatch", rand((3,)), rand((4,)), "matmul: contracted dims differ"))
    out.append(err("err_batch_mismatch", rand((2, 3, 4)), rand((3, 4, 5)), "matmul: batch dims do not broadcast"))
    out.append(err("err_scalar", np.array(2.0, dtype=np.float32), rand((3,)), "matmul: expected inputs of rank >= 1"))
    out.append(err("err_int", np.ones((2, 2), dtype=np.int64), np.ones((2, 2), dtype=np.int64),
                   "matmul: expected two f32, two f16 or two f64 inputs, got i64 and i64", "i64"))
    out.append(err("err_mixed", rand((2, 2)), rand((2, 2), f16), "got f32 and f16"))
    out.append(err("err_out_dtype", rand((2, 2)), rand((2, 2)), "matmul: expected output dtype f32, got f16", "f16"))
    return out + det_cases()


def det_case(name, x, perm=None, **kw):
    """det of each matrix of x (viewed through perm), numpy's in float64
    rounded to x's dtype; the workspace, f64 [n * n], is left zero."""
    v = x if perm is None else x.transpose(perm)
    n = v.shape[-1]
    want = np.linalg.det(v.astype(np.float64)).astype(x.dtype)
    opts = dict(atol=2e-3, rtol=4e-3) if x.dtype == np.float16 else dict(atol=1e-5, rtol=1e-5)
    if x.dtype == np.float64:
        opts = dict(atol=1e-12, rtol=1e-12)
    opts.update(kw)
    return case("det_" + name, "det", inputs=[x], outputs=[np.asarray(want), np.zeros(n * n, np.float64)],
                perms=None if perm is None else [perm], **opts)


def det_cases():
    f16, f64 = np.float16, np.float64
    singular = rand((3, 3))
    singular[2] = singular[0] + 2 * singular[1]
    swap = np.array([[0, 2, 1], [3, 0, 0], [1, 1, 0]], np.float32)  # needs a pivot on the first column
    out = [
        det_case("1x1", rand((1, 1))),
        det_case("2x2", rand((2, 2))),
        det_case("5x5", rand((5, 5))),
        det_case("batched", rand((2, 3, 4, 4))),
        det_case("pivoting", swap),
        det_case("zero_column", np.array([[0, 1], [0, 2]], np.float32)),
        det_case("singular", singular, atol=1e-5),
        det_case("transposed", rand((4, 6, 6)), perm=[0, 2, 1]),
        det_case("batch_permuted", rand((6, 6, 3)), perm=[2, 0, 1]),
        det_case("f16", rand((3, 4, 4), f16)),
        det_case("f64", rand((2, 7, 7), f64)),
        det_case("empty_batch", rand((0, 3, 3))),
        det_case("empty_matrix", rand((2, 0, 0))),  # the determinant of a 0x0 matrix is 1
    ]
    out.append(case("det_not_square", "det", [rand((2, 3))], error="det: expected square matrices [..., n, n], got [2, 3]",
                    out_specs=[("f32", []), ("f64", [9])]))
    out.append(case("det_vector", "det", [rand((3,))], error="det: expected square matrices [..., n, n], got [3]",
                    out_specs=[("f32", []), ("f64", [9])]))
    out.append(case("det_int", "det", [np.ones((2, 2), np.int32)], error="det: expected dtype f32, f16, f64, got i32",
                    out_specs=[("i32", []), ("f64", [4])]))
    out.append(case("det_workspace_dtype", "det", [rand((2, 2))], error="det: expected output dtype f64, got f32",
                    out_specs=[("f32", []), ("f32", [4])]))
    return out
