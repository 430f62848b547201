"""ResNet-18 family (torchvision's layout, defined here because Debian ships no
torchvision), with the normalization layer chosen by the caller:

- BatchNorm2d: the classifier fixture. In eval mode the exporter folds it into
  the preceding Conv.
- FrozenBatchNorm2d: ACT's backbone. Its statistics are buffers and its
  forward is plain arithmetic, so the exporter leaves Mul/Add nodes behind.
- GroupNorm(C // 16): Diffusion Policy's backbone; exported as Reshape ->
  InstanceNormalization -> Reshape -> Mul -> Add.
"""
import torch
from torch import nn


class FrozenBatchNorm2d(nn.Module):
    """Batch norm with fixed statistics and affine terms, all buffers (the DETR /
    torchvision.ops form that ACT uses)."""

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features))
        self.register_buffer("bias", torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    @classmethod
    def from_batchnorm(cls, bn):
        frozen = cls(bn.num_features, bn.eps)
        frozen.weight.copy_(bn.weight.detach())
        frozen.bias.copy_(bn.bias.detach())
        frozen.running_mean.copy_(bn.running_mean)
        frozen.running_var.copy_(bn.running_var)
        return frozen

    def forward(self, x):
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        bias = b - rm * scale
        return x * scale + bias


def group_norm_16(channels):
    """LeRobot's BatchNorm replacement: one group per 16 channels."""
    return nn.GroupNorm(max(1, channels // 16), channels)


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride, norm):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False)
        self.bn1 = norm(out_ch)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, 1, 1, bias=False)
        self.bn2 = norm(out_ch)
        self.downsample = None
        if stride != 1 or in_ch != out_ch:
            self.downsample = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride, bias=False), norm(out_ch))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """ResNet with BasicBlocks. width=64, blocks=(2, 2, 2, 2) is ResNet-18.
    num_classes=None drops avgpool/fc and returns layer4's feature map."""

    def __init__(self, width=64, blocks=(2, 2, 2, 2), norm=nn.BatchNorm2d, num_classes=None):
        super().__init__()
        self.out_channels = width * 8
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = norm(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, in_ch = [], width
        for i, n in enumerate(blocks):
            out_ch = width * 2**i
            stage = [BasicBlock(in_ch, out_ch, 1 if i == 0 else 2, norm)]
            stage += [BasicBlock(out_ch, out_ch, 1, norm) for _ in range(n - 1)]
            layers.append(nn.Sequential(*stage))
            in_ch = out_ch
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = self.fc = None
        if num_classes is not None:
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(self.out_channels, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.fc is None:
            return x
        return self.fc(torch.flatten(self.avgpool(x), 1))


def perturb_norm_affine(model, spread=0.2):
    """Moves every norm layer's scale and shift away from 1 and 0, so that a
    kernel that drops or swaps them gives visibly different results."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.GroupNorm, nn.LayerNorm)) and m.weight is not None:
            with torch.no_grad():
                m.weight.uniform_(1 - spread, 1 + spread)
                m.bias.normal_(0, spread / 2)


@torch.no_grad()
def calibrate_batchnorm(model, images):
    """Gives BatchNorm layers running statistics measured on `images` (as
    training would), so that eval-mode activations stay O(1) through the depth
    of the network instead of growing or vanishing."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average over the calibration batches
    model.train()
    for batch in images:
        model(batch)
    model.eval()
    for bn in bns:
        bn.momentum = 0.1


def freeze_batchnorm(module):
    """Replaces every BatchNorm2d below `module` by a FrozenBatchNorm2d with the
    same statistics (what loading pretrained weights into ACT's backbone gives)."""
    for name, child in module.named_children():
        if isinstance(child, nn.BatchNorm2d):
            setattr(module, name, FrozenBatchNorm2d.from_batchnorm(child))
        else:
            freeze_batchnorm(child)
    return module
