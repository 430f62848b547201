"""A tiny single-stage detector whose exported graph ends in ONNX
NonMaxSuppression (torchvision.ops.nms, which torchvision exports as
NonMaxSuppression at opset 11 and later).

The builder returns (model, inputs) like nets/small.py's; make_fixtures.py
seeds the RNG before calling it. It checks that the reference is not
ambiguous: no two scores closer than SCORE_GAP (ties would let another
implementation order, and so keep, boxes differently) and no pair of boxes
with an IoU within IOU_MARGIN of the threshold (rounding could then decide
the suppression).
"""
import torch
import torchvision
from torch import nn

IOU_THRESHOLD = 0.3
SCORE_GAP = 1e-4
IOU_MARGIN = 1e-3
GRID, STRIDE = 8, 8  # an 8x8 map of cells over a 64x64 image


class TinyDetector(nn.Module):
    """Three stride-2 convolutions (64x64 -> 8x8), then per cell a box head
    (centre offsets and log sizes) and a score head (sigmoid); the boxes
    [x1, y1, x2, y2] are decoded around the cell centres, and
    torchvision.ops.nms keeps the boxes that no better-scored box overlaps
    by more than IoU 0.3. Outputs: the kept indices (int64, best first), their
    boxes and their scores."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU())
        self.box = nn.Conv2d(32, 4, 1)
        self.score = nn.Conv2d(32, 1, 1)
        ys, xs = torch.meshgrid(torch.arange(GRID), torch.arange(GRID), indexing="ij")
        centres = torch.stack([xs, ys], dim=-1).reshape(-1, 2).float() * STRIDE + STRIDE / 2
        self.register_buffer("centres", centres)

    def decode(self, image):
        f = self.backbone(image)
        d = self.box(f).flatten(2).transpose(1, 2)[0]  # [cells, 4]
        scores = torch.sigmoid(self.score(f)).flatten()  # [cells]
        centre = self.centres + d[:, :2] * STRIDE
        size = torch.exp(d[:, 2:]) * (2 * STRIDE)
        boxes = torch.cat([centre - size / 2, centre + size / 2], dim=1)
        return boxes, scores

    def forward(self, image):
        boxes, scores = self.decode(image)
        keep = torchvision.ops.nms(boxes, scores, IOU_THRESHOLD)
        return keep, boxes[keep], scores[keep]


def _ambiguity(model, image):
    """Why NMS on this image could go another way elsewhere, or None."""
    with torch.no_grad():
        boxes, scores = model.decode(image)
    s = torch.sort(scores, descending=True).values
    gap = float((s[:-1] - s[1:]).min())
    if gap < SCORE_GAP:
        return f"two scores are {gap:.2e} apart (< {SCORE_GAP})"
    iou = torchvision.ops.box_iou(boxes, boxes)
    iou.fill_diagonal_(0)
    near = float((iou - IOU_THRESHOLD).abs().min())
    if near < IOU_MARGIN:
        return f"an IoU is {near:.2e} from the threshold (< {IOU_MARGIN})"
    return None


def build_detector():
    model = TinyDetector()
    with torch.no_grad():
        # Larger score logits spread the scores; a bias keeps some boxes
        # overlapping so that suppression has work to do.
        model.score.weight.mul_(50.0)
        model.box.bias.copy_(torch.tensor([0.0, 0.0, 0.4, 0.4]))
    model.eval()
    # The first of the (seeded) images whose result is unambiguous.
    for _ in range(100):
        image = torch.rand(1, 3, GRID * STRIDE, GRID * STRIDE) * 2 - 1
        why = _ambiguity(model, image)
        if why is None:
            return model, {"image": image}
    raise RuntimeError(f"detector: no unambiguous image in 100 draws (the last: {why})")
