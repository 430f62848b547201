#!/usr/bin/python3
"""Calibration inputs for image models from scikit-image's sample photos
(issue 32, item 7): ImageNet-normalised square crops, one .npz per sample
keyed by the model's input name, as `edgec quantize --calibration DIR` reads
them.

    /usr/bin/python3 models/quantized/calibration.py DATA OUTDIR (--model M.onnx | --input NAME)
        [--count 32] [--size 224]

DATA is scikit-image's `skimage/data` folder as Debian's python3-skimage
package ships it (the test dependencies extract it from the .deb into the
build folder; nothing is downloaded at test time). The photos used are the
colour ones (astronaut, chelsea, coffee, color, hubble_deep_field, ihc,
motorcycle_left/right, retina, rocket) and four grey textures and scenes
(grass, gravel, brick, camera) repeated over the three channels; a photo
missing from DATA is an error.

Sample k (written as sampleKKK.npz) comes from photo k mod P: its first
crop is the centred square of the whole shorter side; later ones a square
of 35-100% of the shorter side at a position drawn from a generator seeded
by the photo's name and the crop's number, mirrored left-right every other
time. Each crop is resized (bicubic) to SIZE x SIZE, scaled to [0, 1] and
normalised with ImageNet's mean (0.485, 0.456, 0.406) and standard
deviation (0.229, 0.224, 0.225), in float32 NCHW [1, 3, SIZE, SIZE]. The
photos alternate, so any run of the last files (those `edgec quantize`
holds back) comes from several photos. The files are the same bytes on
every run.
"""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree

import argparse
import os
import zlib

import numpy as np
import onnx
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from make_fixtures import save_npz  # noqa: E402

# (file, colour); grey ones are repeated over R, G and B.
PHOTOS = [
    ("astronaut.png", True),
    ("chelsea.png", True),
    ("coffee.png", True),
    ("motorcycle_left.png", True),
    ("rocket.jpg", True),
    ("hubble_deep_field.jpg", True),
    ("retina.jpg", True),
    ("ihc.png", True),
    ("color.png", True),
    ("motorcycle_right.png", True),
    ("grass.png", False),
    ("gravel.png", False),
    ("brick.png", False),
    ("camera.png", False),
]
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def load_photos(data):
    photos = []
    for name, _ in PHOTOS:
        path = os.path.join(data, name)
        if not os.path.exists(path):
            raise SystemExit(f"calibration.py: {path} not found: DATA must be scikit-image's skimage/data folder "
                             f"(Debian's python3-skimage, extracted with dpkg-deb -x)")
        with Image.open(path) as im:
            photos.append((name, im.convert("RGB")))
    return photos


def crop(name, image, index, size):
    """Crop number `index` of one photo, as a float32 [3, size, size] array."""
    w, h = image.size
    side = min(w, h)
    if index == 0:
        s, x, y = side, (w - side) // 2, (h - side) // 2
    else:
        rng = np.random.default_rng([zlib.crc32(name.encode()), index])
        s = int(round(side * rng.uniform(0.35, 1.0)))
        x = int(rng.integers(0, w - s + 1))
        y = int(rng.integers(0, h - s + 1))
    patch = image.crop((x, y, x + s, y + s)).resize((size, size), Image.BICUBIC)
    if index % 2 == 1:
        patch = patch.transpose(Image.FLIP_LEFT_RIGHT)
    a = np.asarray(patch, dtype=np.float32) / 255.0
    return ((a - MEAN) / STD).transpose(2, 0, 1).astype(np.float32)


def model_input(path):
    """(name, size) of the model's one image input: [1, 3, S, S], S static or symbolic."""
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    inputs = [i for i in m.graph.input if i.name not in inits]
    if len(inputs) != 1:
        raise SystemExit(f"calibration.py: {path} has {len(inputs)} inputs ({[i.name for i in inputs]}); "
                         f"the calibration images are for a model with one image input [1, 3, H, W]")
    dims = [d.dim_value if d.HasField("dim_value") else None for d in inputs[0].type.tensor_type.shape.dim]
    if len(dims) != 4 or dims[1] not in (3, None) or dims[0] not in (1, None) or dims[2] != dims[3]:
        raise SystemExit(f"calibration.py: {path}: input {inputs[0].name} has shape {dims}; expected [1, 3, S, S]")
    return inputs[0].name, dims[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="scikit-image's skimage/data folder")
    parser.add_argument("outdir")
    parser.add_argument("--model", help="the .onnx model: its input's name (and size, when static)")
    parser.add_argument("--input", help="the input's name (instead of --model)")
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--size", type=int, help="crop size (default: the model's, else 224)")
    args = parser.parse_args()
    if (args.model is None) == (args.input is None):
        parser.error("give exactly one of --model and --input")
    if args.count < 1:
        parser.error(f"--count must be at least 1 (got {args.count})")
    name, size = model_input(args.model) if args.model else (args.input, None)
    if args.size and size and args.size != size:
        parser.error(f"--size {args.size}: the model's input {name} is {size} x {size}")
    size = args.size or size or 224
    photos = load_photos(args.data)
    os.makedirs(args.outdir, exist_ok=True)
    for k in range(args.count):
        photo, image = photos[k % len(photos)]
        x = crop(photo, image, k // len(photos), size)[None]
        save_npz(os.path.join(args.outdir, f"sample{k:03d}.npz"), [(name, x)])
    print(f"calibration.py: {args.count} samples of {name} [1, 3, {size}, {size}] from {len(photos)} photos "
          f"in {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
