"""A Diffusion-Policy-style policy (as in LeRobot), with the denoising loop
unrolled for export and every random draw passed in as an input.

Kept from the original: center crop; a ResNet encoder with GroupNorm instead
of batch norm; spatial softmax (1x1 conv, softmax over H*W, matmul with a
position-grid buffer); a 1-D conv U-Net (kernel 5, GroupNorm(8), Mish, FiLM
scale and bias from a Linear on the conditioning, Conv1d stride-2 down,
ConvTranspose1d up, skip concats) with a sinusoidal embedding of an int64
timestep; a DDPM scheduler (squaredcos_cap_v2 betas, epsilon prediction,
clipped sample, fixed_small variance) whose tensors are plain attributes, so
the exporter turns them into constants; min/max normalization of state and
action, mean/std of images.
"""
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from nets.resnet import ResNet, group_norm_16, perturb_norm_affine


@dataclass
class DiffusionConfig:
    image_shape: tuple = (3, 72, 72)
    crop_shape: tuple = (64, 64)
    state_dim: int = 2
    action_dim: int = 2
    n_obs_steps: int = 2
    horizon: int = 16
    n_action_steps: int = 8
    backbone_width: int = 16  # 64 is ResNet-18; GroupNorm needs >= 16
    backbone_blocks: tuple = (1, 1, 1, 1)
    num_keypoints: int = 16
    down_dims: tuple = (16, 32, 64)
    kernel_size: int = 5
    n_groups: int = 8
    step_embed_dim: int = 32
    num_train_timesteps: int = 100
    num_unrolled_steps: int = 3


# LeRobot's PushT configuration (~263M parameters).
DIFFUSION_FULL = DiffusionConfig(image_shape=(3, 96, 96), crop_shape=(84, 84), backbone_width=64,
                                 backbone_blocks=(2, 2, 2, 2), num_keypoints=32,
                                 down_dims=(512, 1024, 2048), step_embed_dim=128)


class SpatialSoftmax(nn.Module):
    """Keypoints as the softmax-weighted mean (x, y) of each feature channel."""

    def __init__(self, in_channels, height, width, num_kp):
        super().__init__()
        self.nets = nn.Conv2d(in_channels, num_kp, 1)
        self.num_kp = num_kp
        pos_x, pos_y = np.meshgrid(np.linspace(-1.0, 1.0, width), np.linspace(-1.0, 1.0, height))
        grid = np.concatenate([pos_x.reshape(height * width, 1), pos_y.reshape(height * width, 1)], axis=1)
        self.register_buffer("pos_grid", torch.from_numpy(grid).float())

    def forward(self, features):
        features = self.nets(features)
        features = features.reshape(-1, features.shape[2] * features.shape[3])
        attention = torch.softmax(features, dim=-1)
        expected_xy = attention @ self.pos_grid
        return expected_xy.view(-1, self.num_kp, 2)


class RgbEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.crop_shape = cfg.crop_shape
        self.backbone = ResNet(width=cfg.backbone_width, blocks=cfg.backbone_blocks, norm=group_norm_16)
        with torch.no_grad():
            fmap = self.backbone(torch.zeros(1, cfg.image_shape[0], *cfg.crop_shape))
        self.pool = SpatialSoftmax(fmap.shape[1], fmap.shape[2], fmap.shape[3], cfg.num_keypoints)
        self.feature_dim = cfg.num_keypoints * 2
        self.out = nn.Linear(cfg.num_keypoints * 2, self.feature_dim)
        self.relu = nn.ReLU()

    def forward(self, x):
        h, w = self.crop_shape
        top = (x.shape[-2] - h) // 2
        left = (x.shape[-1] - w) // 2
        x = x[..., top:top + h, left:left + w]  # eval-mode center crop
        x = torch.flatten(self.pool(self.backbone(x)), start_dim=1)
        return self.relu(self.out(x))


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim) * -emb)
        emb = x.unsqueeze(-1) * emb.unsqueeze(0)
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class Conv1dBlock(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size, n_groups):
        super().__init__()
        self.block = nn.Sequential(nn.Conv1d(in_ch, out_ch, kernel_size, padding=kernel_size // 2),
                                   nn.GroupNorm(n_groups, out_ch), nn.Mish())

    def forward(self, x):
        return self.block(x)


class ConditionalResidualBlock1d(nn.Module):
    """Two conv blocks with FiLM (scale * x + bias) from the conditioning between them."""

    def __init__(self, in_ch, out_ch, cond_dim, kernel_size, n_groups):
        super().__init__()
        self.out_channels = out_ch
        self.conv1 = Conv1dBlock(in_ch, out_ch, kernel_size, n_groups)
        self.cond_encoder = nn.Sequential(nn.Mish(), nn.Linear(cond_dim, out_ch * 2))
        self.conv2 = Conv1dBlock(out_ch, out_ch, kernel_size, n_groups)
        self.residual_conv = nn.Conv1d(in_ch, out_ch, 1) if in_ch != out_ch else nn.Identity()

    def forward(self, x, cond):
        out = self.conv1(x)
        cond_embed = self.cond_encoder(cond).unsqueeze(-1)
        scale = cond_embed[:, : self.out_channels]
        bias = cond_embed[:, self.out_channels:]
        out = scale * out + bias
        out = self.conv2(out)
        return out + self.residual_conv(x)


class ConditionalUnet1d(nn.Module):
    """(B, T, A) sample, (B,) int64 timestep, (B, G) global conditioning ->
    (B, T, A) predicted noise."""

    def __init__(self, cfg, global_cond_dim):
        super().__init__()
        d = cfg.step_embed_dim
        self.diffusion_step_encoder = nn.Sequential(SinusoidalPosEmb(d), nn.Linear(d, d * 4), nn.Mish(),
                                                    nn.Linear(d * 4, d))
        cond_dim = d + global_cond_dim
        k, g = cfg.kernel_size, cfg.n_groups
        in_out = [(cfg.action_dim, cfg.down_dims[0])] + list(zip(cfg.down_dims[:-1], cfg.down_dims[1:]))
        self.down_modules = nn.ModuleList()
        for i, (dim_in, dim_out) in enumerate(in_out):
            is_last = i >= len(in_out) - 1
            self.down_modules.append(nn.ModuleList([
                ConditionalResidualBlock1d(dim_in, dim_out, cond_dim, k, g),
                ConditionalResidualBlock1d(dim_out, dim_out, cond_dim, k, g),
                nn.Conv1d(dim_out, dim_out, 3, 2, 1) if not is_last else nn.Identity(),
            ]))
        mid = cfg.down_dims[-1]
        self.mid_modules = nn.ModuleList([ConditionalResidualBlock1d(mid, mid, cond_dim, k, g),
                                          ConditionalResidualBlock1d(mid, mid, cond_dim, k, g)])
        self.up_modules = nn.ModuleList()
        for i, (dim_out, dim_in) in enumerate(reversed(in_out[1:])):
            is_last = i >= len(in_out) - 1
            self.up_modules.append(nn.ModuleList([
                ConditionalResidualBlock1d(dim_in * 2, dim_out, cond_dim, k, g),
                ConditionalResidualBlock1d(dim_out, dim_out, cond_dim, k, g),
                nn.ConvTranspose1d(dim_out, dim_out, 4, 2, 1) if not is_last else nn.Identity(),
            ]))
        self.final_conv = nn.Sequential(Conv1dBlock(cfg.down_dims[0], cfg.down_dims[0], k, g),
                                        nn.Conv1d(cfg.down_dims[0], cfg.action_dim, 1))

    def forward(self, x, timestep, global_cond):
        x = x.transpose(1, 2)  # (B, A, T)
        cond = torch.cat([self.diffusion_step_encoder(timestep), global_cond], dim=-1)
        skips = []
        for resnet, resnet2, downsample in self.down_modules:
            x = resnet2(resnet(x, cond), cond)
            skips.append(x)
            x = downsample(x)
        for block in self.mid_modules:
            x = block(x, cond)
        for resnet, resnet2, upsample in self.up_modules:
            x = torch.cat((x, skips.pop()), dim=1)
            x = upsample(resnet2(resnet(x, cond), cond))
        return self.final_conv(x).transpose(1, 2)


def squaredcos_cap_v2_betas(num_steps, max_beta=0.999):
    def alpha_bar(t):
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2
    betas = [min(1 - alpha_bar((i + 1) / num_steps) / alpha_bar(i / num_steps), max_beta)
             for i in range(num_steps)]
    return torch.tensor(betas, dtype=torch.float32)


class DdpmScheduler:
    """diffusers' DDPMScheduler.step for epsilon prediction, clip_sample=True,
    variance_type fixed_small, "leading" timestep spacing. Its tensors are
    plain attributes, not buffers, as in LeRobot."""

    def __init__(self, num_train_timesteps, num_inference_steps):
        self.num_train_timesteps = num_train_timesteps
        self.alphas_cumprod = torch.cumprod(1.0 - squaredcos_cap_v2_betas(num_train_timesteps), dim=0)
        self.one = torch.tensor(1.0)
        self.step_ratio = num_train_timesteps // num_inference_steps
        self.timesteps = (np.arange(0, num_inference_steps) * self.step_ratio).round()[::-1].astype(np.int64)

    def step(self, model_output, t, sample, variance_noise):
        prev_t = t - self.step_ratio
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
        beta_prod_t = 1 - alpha_prod_t
        beta_prod_t_prev = 1 - alpha_prod_t_prev
        current_alpha_t = alpha_prod_t / alpha_prod_t_prev
        current_beta_t = 1 - current_alpha_t
        pred_original = (sample - beta_prod_t ** 0.5 * model_output) / alpha_prod_t ** 0.5
        pred_original = pred_original.clamp(-1.0, 1.0)
        original_coeff = (alpha_prod_t_prev ** 0.5 * current_beta_t) / beta_prod_t
        current_coeff = current_alpha_t ** 0.5 * beta_prod_t_prev / beta_prod_t
        prev_sample = original_coeff * pred_original + current_coeff * sample
        if t > 0:
            variance = torch.clamp(beta_prod_t_prev / beta_prod_t * current_beta_t, min=1e-20)
            prev_sample = prev_sample + variance ** 0.5 * variance_noise
        return prev_sample


class DiffusionPolicy(nn.Module):
    """observation.image (B, n_obs, 3, H, W) in [0, 1], observation.state
    (B, n_obs, S), noise (B, horizon, A), step_noise (steps - 1, B, horizon, A)
    -> action (B, n_action_steps, A)."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        c = cfg.image_shape[0]
        self.register_buffer("image_mean", torch.rand(c, 1, 1) * 0.2 + 0.4)
        self.register_buffer("image_std", torch.rand(c, 1, 1) * 0.1 + 0.2)
        self.register_buffer("state_min", torch.rand(cfg.state_dim) * 10)
        self.register_buffer("state_max", self.state_min + 100 + torch.rand(cfg.state_dim) * 400)
        self.register_buffer("action_min", torch.rand(cfg.action_dim) * 10)
        self.register_buffer("action_max", self.action_min + 100 + torch.rand(cfg.action_dim) * 400)
        self.rgb_encoder = RgbEncoder(cfg)
        global_cond_dim = (self.rgb_encoder.feature_dim + cfg.state_dim) * cfg.n_obs_steps
        self.unet = ConditionalUnet1d(cfg, global_cond_dim)
        self.noise_scheduler = DdpmScheduler(cfg.num_train_timesteps, cfg.num_unrolled_steps)
        perturb_norm_affine(self)

    def forward(self, image, state, noise, step_noise):
        batch_size, n_obs = state.shape[:2]
        image = (image - self.image_mean) / self.image_std
        state = (state - self.state_min) / (self.state_max - self.state_min) * 2 - 1
        # "b s c h w -> (b s) c h w", encode, "(b s) d -> b s d"
        features = self.rgb_encoder(image.flatten(0, 1)).reshape(batch_size, n_obs, -1)
        global_cond = torch.cat([features, state], dim=-1).flatten(start_dim=1)

        sample = noise
        for i, t in enumerate(self.noise_scheduler.timesteps.tolist()):
            timestep = torch.full(sample.shape[:1], t, dtype=torch.long)
            model_output = self.unet(sample, timestep, global_cond)
            variance_noise = step_noise[i] if t > 0 else None
            sample = self.noise_scheduler.step(model_output, t, sample, variance_noise)

        start = self.cfg.n_obs_steps - 1
        actions = sample[:, start:start + self.cfg.n_action_steps]
        return (actions + 1) / 2 * (self.action_max - self.action_min) + self.action_min


def build(cfg):
    policy = DiffusionPolicy(cfg).eval()
    steps_with_noise = cfg.num_unrolled_steps - 1  # the last step (t = 0) adds none
    state = policy.state_min + torch.rand(1, cfg.n_obs_steps, cfg.state_dim) * (policy.state_max - policy.state_min)
    inputs = {
        "observation.image": torch.rand(1, cfg.n_obs_steps, *cfg.image_shape),
        "observation.state": state,
        "noise": torch.randn(1, cfg.horizon, cfg.action_dim),
        "step_noise": torch.randn(steps_with_noise, 1, cfg.horizon, cfg.action_dim),
    }
    return policy, inputs


def build_unet(cfg):
    """The U-Net alone, one denoising call with the timestep as an int64 input."""
    policy = DiffusionPolicy(cfg).eval()
    unet = policy.unet
    global_cond_dim = (policy.rgb_encoder.feature_dim + cfg.state_dim) * cfg.n_obs_steps
    inputs = {
        "sample": torch.randn(1, cfg.horizon, cfg.action_dim),
        "timestep": torch.tensor([37], dtype=torch.int64),
        "global_cond": torch.randn(1, global_cond_dim),
    }
    return unet, inputs
