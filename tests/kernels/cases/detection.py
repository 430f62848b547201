"""Cases for non_max_suppression (ONNX NonMaxSuppression) and roi_align
(ONNX RoiAlign).

References, written from ONNX's operator spec with ONNX Runtime's
arithmetic (which ONNX's node cases and the detector fixture are checked
against): per (batch, class), candidates above score_threshold (when given)
by score, highest first, equal scores by lower box index; a candidate is
kept unless its IoU with a box kept before in its class exceeds
iou_threshold; at most max_output_boxes_per_class per class. roi_align:
sampling_ratio^2 bilinear samples per bin (ceil(roi / output) per axis when
0), averaged, or (max mode) the largest of the weighted corner values;
output_half_pixel makes ROIs at least 1x1 and does not shift them.
The kernels' last output is a workspace they leave zero.
"""
import math

import numpy as np

from common import case

rng = np.random.default_rng(31)


def err(name, op, inputs, attrs, error, out_specs):
    return case(name, op, inputs=inputs, attrs=attrs, outputs=[], error=error, out_specs=out_specs)


# ---- non_max_suppression --------------------------------------------------------

def corners(b, center):
    b = [np.float32(v) for v in b]
    if center:
        hw, hh = b[2] / np.float32(2), b[3] / np.float32(2)
        return b[0] - hw, b[1] - hh, b[0] + hw, b[1] + hh
    return min(b[1], b[3]), min(b[0], b[2]), max(b[1], b[3]), max(b[0], b[2])


def iou_above(a, b, center, threshold):
    ax0, ay0, ax1, ay1 = corners(a, center)
    bx0, by0, bx1, by1 = corners(b, center)
    ix0, ix1 = max(ax0, bx0), min(ax1, bx1)
    if ix1 <= ix0:
        return False
    iy0, iy1 = max(ay0, by0), min(ay1, by1)
    if iy1 <= iy0:
        return False
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a = (ax1 - ax0) * (ay1 - ay0)
    area_b = (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    if inter <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return np.float32(inter / union) > threshold


def nms_ref(boxes, scores, max_per_class, iou, score_threshold, center):
    rows = []
    batch, classes, n = scores.shape
    for b in range(batch):
        for c in range(classes):
            cand = [i for i in range(n) if score_threshold is None or scores[b, c, i] > score_threshold]
            cand.sort(key=lambda i: (-scores[b, c, i], i))
            kept = []
            for i in cand:
                if len(kept) >= max_per_class:
                    break
                if any(iou_above(boxes[b, k], boxes[b, i], center, iou) for k in kept):
                    continue
                kept.append(i)
                rows.append([b, c, i])
    return np.array(rows, np.int64).reshape(-1, 3)


def nms_case(name, boxes, scores, max_per_class=None, iou=None, score=None, center=False, bound=None):
    inputs = [boxes, scores]
    if max_per_class is not None:
        inputs.append(np.array([max_per_class], np.int64))
    if iou is not None:
        inputs.append(np.array(iou, np.float32))
    if score is not None:
        inputs.append(np.array([score], np.float32))
    attrs = {}
    if center:
        attrs["center_point_box"] = True
    if bound is not None:
        attrs["max_boxes_bound"] = bound
    y = nms_ref(boxes, scores, max_per_class or 0, np.float32(iou or 0.0),
                None if score is None else np.float32(score), center)
    return case(name, "non_max_suppression", inputs=inputs, attrs=attrs,
                outputs=[y, np.zeros(boxes.shape[1], np.int64)])


def random_boxes(batch, n, center=False):
    xy = rng.uniform(0, 10, size=(batch, n, 2)).astype(np.float32)
    wh = rng.uniform(0.5, 4, size=(batch, n, 2)).astype(np.float32)
    if center:
        return np.concatenate([xy, wh], axis=2)
    # [y1, x1, y2, x2], some with the corners swapped.
    b = np.concatenate([xy[..., ::-1], xy[..., ::-1] + wh[..., ::-1]], axis=2)
    swap = rng.random((batch, n)) < 0.3
    b[swap] = b[swap][:, [2, 3, 0, 1]]
    return b


def nms_cases():
    out = []
    # ONNX's example boxes (suppress_by_IOU and its siblings).
    boxes = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9],
                       [0.0, 10.0, 1.0, 11.0], [0.0, 10.1, 1.0, 11.1], [0.0, 100.0, 1.0, 101.0]]], np.float32)
    scores = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)
    out.append(nms_case("nms_example", boxes, scores, 3, 0.5, 0.0))
    out.append(nms_case("nms_score_threshold", boxes, scores, 3, 0.5, 0.4))
    out.append(nms_case("nms_limit", boxes, scores, 2, 0.5, 0.0, bound=2))
    out.append(nms_case("nms_no_score_threshold", boxes, scores, 6, 0.5))
    out.append(nms_case("nms_no_max", boxes, scores))
    out.append(nms_case("nms_two_classes", boxes, np.concatenate([scores, scores[:, :, ::-1]], axis=1), 2, 0.5))
    # Ties go to the lower index; identical boxes suppress each other.
    same = np.tile(np.array([0.0, 0.0, 1.0, 1.0], np.float32), (1, 5, 1))
    out.append(nms_case("nms_ties", same, np.full((1, 1, 5), 0.9, np.float32), 3, 0.5))
    out.append(nms_case("nms_ties_iou_1", same, np.full((1, 1, 5), 0.9, np.float32), 4, 1.0))
    for center in (False, True):
        b = random_boxes(2, 40, center)
        s = rng.random((2, 3, 40)).astype(np.float32)
        tag = "center" if center else "corners"
        out.append(nms_case("nms_random_" + tag, b, s, 10, 0.3, 0.2, center=center))
        out.append(nms_case("nms_random_all_" + tag, b, s, 40, 0.6, center=center))
    # Strided (permuted) boxes and scores.
    b = random_boxes(1, 12)
    s = rng.random((1, 2, 12)).astype(np.float32)
    bt = np.ascontiguousarray(b.transpose(0, 2, 1))
    st = np.ascontiguousarray(s.transpose(0, 2, 1))
    out.append(case("nms_strided", "non_max_suppression",
                    inputs=[bt, st, np.array([5], np.int64), np.array([0.4], np.float32)],
                    perms=[[0, 2, 1], [0, 2, 1], None, None],
                    outputs=[nms_ref(b, s, 5, np.float32(0.4), None, False), np.zeros(12, np.int64)]))
    out.append(nms_case("nms_empty", np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), 3, 0.5))
    specs = [("i64", [6, 3]), ("i64", [6])]
    out.append(err("nms_bad_iou", "non_max_suppression",
                   [boxes, scores, np.array([3], np.int64), np.array([1.5], np.float32)], {},
                   "expected an iou_threshold in [0, 1], got 1.5", specs))
    out.append(err("nms_bad_boxes", "non_max_suppression", [boxes[:, :, :3], scores], {},
                   "expected boxes [batch, boxes, 4], got shape [1, 6, 3]", specs))
    out.append(err("nms_bad_scores", "non_max_suppression", [boxes, scores[:, :, :5]], {},
                   "expected scores [1, classes, 6]", specs))
    out.append(err("nms_int_threshold", "non_max_suppression",
                   [boxes, scores, np.array([3], np.int64), np.array([1], np.int64)], {},
                   "expected iou_threshold of dtype f32, got i64", specs))
    out.append(err("nms_above_bound", "non_max_suppression", [boxes, scores, np.array([3], np.int64)],
                   {"max_boxes_bound": 2}, "above the bound 2", specs))
    return out


# ---- roi_align --------------------------------------------------------------------

def roi_align_ref(x, rois, batch_indices, oh, ow, ratio, scale, mode, half_pixel):
    f = np.float32
    n_rois = rois.shape[0]
    _, channels, height, width = x.shape
    y = np.zeros((n_rois, channels, oh, ow), np.float32)
    for n in range(n_rois):
        b = int(batch_indices[n])
        off = f(0.5) if half_pixel else f(0)
        sw, sh, ew, eh = [f(rois[n, k]) * f(scale) - off for k in range(4)]
        rw, rh = ew - sw, eh - sh
        if not half_pixel:
            rw, rh = max(rw, f(1)), max(rh, f(1))
        bh, bw = rh / f(oh), rw / f(ow)
        gh = ratio if ratio > 0 else int(math.ceil(rh / f(oh)))
        gw = ratio if ratio > 0 else int(math.ceil(rw / f(ow)))
        count = f(max(gh * gw, 1))
        for ph in range(oh):
            for pw in range(ow):
                acc = np.zeros(channels, np.float32)
                first = True
                for iy in range(gh):
                    yy = sh + f(ph) * bh + f(iy + 0.5) * bh / f(gh)
                    for ix in range(gw):
                        xx = sw + f(pw) * bw + f(ix + 0.5) * bw / f(gw)
                        if yy < -1.0 or yy > height or xx < -1.0 or xx > width:
                            w = [f(0)] * 4
                            pos = [(0, 0)] * 4
                        else:
                            sy, sx = max(yy, f(0)), max(xx, f(0))
                            yl, xl = int(sy), int(sx)
                            if yl >= height - 1:
                                yl = yh = height - 1
                                sy = f(yl)
                            else:
                                yh = yl + 1
                            if xl >= width - 1:
                                xl = xh = width - 1
                                sx = f(xl)
                            else:
                                xh = xl + 1
                            ly, lx = sy - f(yl), sx - f(xl)
                            hy, hx = f(1) - ly, f(1) - lx
                            w = [hy * hx, hy * lx, ly * hx, ly * lx]
                            pos = [(yl, xl), (yl, xh), (yh, xl), (yh, xh)]
                        v = [w[k] * x[b, :, pos[k][0], pos[k][1]] for k in range(4)]
                        if mode == "max":
                            m = np.maximum(np.maximum(np.maximum(v[0], v[1]), v[2]), v[3])
                            acc = m if first else np.maximum(acc, m)
                        else:
                            acc = acc + (v[0] + v[1] + v[2] + v[3])
                        first = False
                if mode != "max":
                    acc = acc / count
                y[n, :, ph, pw] = acc
    return y


def roi_align_case(name, x, rois, bi, oh=3, ow=3, ratio=2, scale=1.0, mode="avg", coords="half_pixel",
                   dtype=np.float32, atol=1e-5):
    # The reference sees the inputs as rounded to the case's dtype.
    y = roi_align_ref(x.astype(dtype).astype(np.float32), rois.astype(dtype).astype(np.float32), bi, oh, ow,
                      ratio, scale, mode,
                      coords == "half_pixel")
    attrs = {"output_height": oh, "output_width": ow, "sampling_ratio": ratio, "spatial_scale": scale,
             "mode": mode, "coordinate_transformation_mode": coords}
    return case(name, "roi_align", inputs=[x.astype(dtype), rois.astype(dtype), bi], attrs=attrs,
                outputs=[y.astype(dtype)], atol=atol, rtol=atol)


def roi_align_cases():
    out = []
    x = rng.random((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[0, 0, 9, 9], [0, 5, 4, 9], [5, 5, 9, 9], [2.3, 1.7, 11.5, 8.2], [-2, -1, 3, 4],
                     [4, 4, 4.2, 4.1]], np.float32)
    bi = np.array([0, 1, 0, 1, 0, 1], np.int64)
    for mode in ("avg", "max"):
        for coords in ("half_pixel", "output_half_pixel"):
            out.append(roi_align_case(f"roi_align_{mode}_{coords}", x, rois, bi, 4, 5, 2, 1.0, mode, coords))
            out.append(roi_align_case(f"roi_align_{mode}_{coords}_adaptive", x, rois, bi, 3, 2, 0, 1.0, mode,
                                      coords))
    out.append(roi_align_case("roi_align_scale", x, rois * 4, bi.astype(np.int32), 2, 2, 3, 0.25))
    out.append(roi_align_case("roi_align_f64", x, rois, bi, 3, 3, 0, 1.0, dtype=np.float64))
    out.append(roi_align_case("roi_align_f16", x, rois, bi, 3, 3, 2, 1.0, "avg", "output_half_pixel",
                              dtype=np.float16, atol=2e-3))
    out.append(err("roi_align_bad_index", "roi_align", [x, rois[:1], np.array([2], np.int64)], {},
                   "batch index 2 of ROI 0 is out of range for a batch of 2", [("f32", [1, 3, 1, 1])]))
    out.append(err("roi_align_bad_rois", "roi_align", [x, rois[:, :3], bi], {},
                   "expected rois [num_rois, 4], got shape [6, 3]", [("f32", [6, 3, 1, 1])]))
    out.append(err("roi_align_bad_mode", "roi_align", [x, rois, bi], {"mode": "min"}, "mode",
                   [("f32", [6, 3, 1, 1])]))
    return out


def cases():
    return nms_cases() + roi_align_cases()
