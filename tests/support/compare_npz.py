#!/usr/bin/python3
"""The one way the test scripts compare computed outputs with a reference
(tests/support/compare.h applies the same rules in the C++ tests).

usage: /usr/bin/python3 compare_npz.py GOT.npz WANT.npz [--atol A] [--rtol R]
           [--form sum|either|scale] [--label TEXT]

Both files must hold the same array names; for each array
  - dtypes equal and shapes equal, or nothing else is compared;
  - integers and booleans exactly (no conversion to float; a bool's raw byte);
  - floats: NaN where, and only where, the reference has NaN; an infinity
    only where the reference has the same infinity; every other element
    within the tolerance, in the form the caller names:
        sum:    |got - want| <= atol + rtol * |want|       (numpy.isclose's form)
        either: |got - want| <= max(atol, rtol * |want|)  (within atol, or rtol relative)
        scale:  |got - want| <= atol + rtol * max |want|   (relative to the array's scale:
                the largest finite |want| of the array; for deep networks, whose
                rounding errors grow with the activations, not with each element)
    (atol alone, the default form with rtol 0, is an absolute bound; both 0: exact).
Prints one line per matching array; on a mismatch prints what differs (the
array, the first few elements with index, got and expected, how many differ
and the tolerance) and exits 1.

As a module: compare(name, got, want, atol, rtol, form) returns "" when the
arrays match, else the report; compare_files(...) returns (problems, lines).
"""
import argparse
import sys

import numpy as np

MAX_REPORTED = 5
FORMS = ("sum", "either", "scale")


def tolerance_text(atol, rtol, form):
    if atol == 0 and rtol == 0:
        return "|got - expected| <= 0"
    if rtol == 0:
        return f"|got - expected| <= {atol:g}"
    if form == "sum":
        return f"|got - expected| <= {atol:g} + {rtol:g} * |expected|"
    if form == "scale":
        return f"|got - expected| <= {atol:g} + {rtol:g} * max |expected|"
    return f"|got - expected| <= max({atol:g}, {rtol:g} * |expected|)"


def _index_text(flat, shape):
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]" if shape else "[]"


def _element_text(a, flat):
    v = a.reshape(-1)[flat]
    if a.dtype == np.bool_:
        b = int(a.reshape(-1).view(np.uint8)[flat])
        return "false" if b == 0 else "true" if b == 1 else f"invalid bool byte {b}"
    if a.dtype.kind in "iu":
        return str(int(v))
    return f"{float(v):.9g}"


def _mismatches(got, want, atol, rtol, form):
    """Boolean mask (flat) of the elements that differ."""
    if want.dtype == np.bool_:
        return got.reshape(-1).view(np.uint8) != want.reshape(-1).view(np.uint8)
    if want.dtype.kind in "iu":
        return got.reshape(-1) != want.reshape(-1)
    g = got.reshape(-1).astype(np.float64)
    w = want.reshape(-1).astype(np.float64)
    g_nan, w_nan = np.isnan(g), np.isnan(w)
    infinite = np.isinf(g) | np.isinf(w)
    finite = ~(g_nan | w_nan | infinite)
    bad = g_nan != w_nan
    bad |= ~(g_nan | w_nan) & infinite & (g != w)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(g - w)
        if form == "scale":
            rel = rtol * (np.abs(w[finite]).max() if finite.any() else 0.0)
        else:
            rel = rtol * np.abs(w)
        bound = np.maximum(atol, rel) if form == "either" else atol + rel
    bad |= finite & ~(err <= bound)
    return bad


def max_abs_error(got, want):
    """The largest |got - want| over the elements finite in both (0 when none)."""
    if want.dtype.kind not in "f" or want.size == 0:
        return 0.0
    g, w = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
    finite = np.isfinite(g) & np.isfinite(w)
    return float(np.abs(g[finite] - w[finite]).max()) if finite.any() else 0.0


def compare(name, got, want, atol=0.0, rtol=0.0, form="sum", max_reported=MAX_REPORTED):
    """'' when `got` matches the reference `want`, else what differs, starting with `name`."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        return f"{name}: dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"{name}: shape {list(got.shape)}, expected {list(want.shape)}"
    if want.dtype != np.bool_ and want.dtype.kind not in "iuf":
        return f"{name}: cannot compare arrays of dtype {want.dtype}"
    bad = np.flatnonzero(_mismatches(got, want, atol, rtol, form))
    if bad.size == 0:
        return ""
    exact = want.dtype.kind != "f"
    lines = [f"{name}: {bad.size} of {want.size} elements differ ("
             + (f"{want.dtype}: exact" if exact else tolerance_text(atol, rtol, form)) + ")"]
    for flat in bad[:max_reported]:
        lines.append(f"  at {_index_text(flat, want.shape)} (flat {flat}): got {_element_text(got, flat)}, "
                     f"expected {_element_text(want, flat)}")
    if bad.size > max_reported:
        lines.append("  ...")
    return "\n".join(lines)


def compare_files(got_path, want_path, atol=0.0, rtol=0.0, form="sum", label=None):
    """Compares every array of two .npz files; returns (problems, lines): the
    reports of the arrays that differ, and one line per array that matches."""
    prefix = f"[{label}] " if label else ""
    got, want = np.load(got_path), np.load(want_path)
    problems, lines = [], []
    missing = sorted(set(want.files) - set(got.files))
    unexpected = sorted(set(got.files) - set(want.files))
    if missing or unexpected:
        problems.append(f"{prefix}{got_path}: arrays {sorted(got.files)}, expected {sorted(want.files)}"
                        + (f" (missing {missing})" if missing else "")
                        + (f" (unexpected {unexpected})" if unexpected else ""))
    for k in want.files:
        if k not in got.files:
            continue
        g, w = got[k], want[k]
        problem = compare(k, g, w, atol, rtol, form)
        if problem:
            problems.append(prefix + problem)
        else:
            lines.append(f"{prefix}{k}: {w.dtype}{list(w.shape)} matches, max abs error {max_abs_error(g, w):.3g}")
    return problems, lines


def main(argv):
    parser = argparse.ArgumentParser(description="Compare computed arrays (.npz) with a reference.")
    parser.add_argument("got")
    parser.add_argument("want")
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--rtol", type=float, default=0.0)
    parser.add_argument("--form", choices=FORMS, default="sum")
    parser.add_argument("--label", help="printed before each line (which run this is)")
    args = parser.parse_args(argv)
    problems, lines = compare_files(args.got, args.want, args.atol, args.rtol, args.form, args.label)
    for line in lines:
        print(line)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
