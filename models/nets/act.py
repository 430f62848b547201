"""An ACT-style policy (Action Chunking Transformer, as in LeRobot), inference
path only: the VAE encoder that training uses is absent and the latent is zero.

Structure kept from the original because it decides what the exporter emits:
mean/std normalization buffers; a ResNet backbone with frozen batch norm; a
1x1 conv projection; a 2-D sine position embedding computed in forward
(cumsum, arange, pow, sin, cos, stack, flatten, cat); sequence-first tokens
(S, B, D); post-norm encoder/decoder layers built on nn.MultiheadAttention
(need_weights left at its default) with ReLU feed-forward; decoder queries
from an Embedding's weight over a zero decoder input; a Linear action head.
"""
import math
from dataclasses import dataclass

import torch
from torch import nn

from nets.resnet import ResNet, calibrate_batchnorm, freeze_batchnorm, perturb_norm_affine


@dataclass
class ActConfig:
    image_shape: tuple = (3, 96, 96)
    state_dim: int = 6
    action_dim: int = 6
    chunk_size: int = 20
    backbone_width: int = 8  # 64 is ResNet-18
    dim_model: int = 64
    n_heads: int = 4
    dim_feedforward: int = 256
    n_encoder_layers: int = 4
    n_decoder_layers: int = 1
    latent_dim: int = 32
    dropout: float = 0.1


# The real ACT: ResNet-18, d 512, 8 heads, ff 3200, 4 + 1 layers, chunk 100,
# one 480x640 camera and 14-dim state/action as on ALOHA.
ACT_FULL = ActConfig(image_shape=(3, 480, 640), state_dim=14, action_dim=14, chunk_size=100,
                     backbone_width=64, dim_model=512, n_heads=8, dim_feedforward=3200)


class SinePositionEmbedding2d(nn.Module):
    """DETR's 2-D sine embedding: half of the channels encode y, half x."""

    def __init__(self, dimension):
        super().__init__()
        self.dimension = dimension
        self._two_pi = 2 * math.pi
        self._eps = 1e-6
        self._temperature = 10000

    def forward(self, x):
        not_mask = torch.ones_like(x[0, :1])  # (1, H, W)
        y_range = not_mask.cumsum(1, dtype=torch.float32)
        x_range = not_mask.cumsum(2, dtype=torch.float32)
        y_range = y_range / (y_range[:, -1:, :] + self._eps) * self._two_pi
        x_range = x_range / (x_range[:, :, -1:] + self._eps) * self._two_pi
        inverse_frequency = self._temperature ** (
            2 * (torch.arange(self.dimension, dtype=torch.float32) // 2) / self.dimension)
        x_range = x_range.unsqueeze(-1) / inverse_frequency
        y_range = y_range.unsqueeze(-1) / inverse_frequency
        pos_x = torch.stack((x_range[..., 0::2].sin(), x_range[..., 1::2].cos()), dim=-1).flatten(3)
        pos_y = torch.stack((y_range[..., 0::2].sin(), y_range[..., 1::2].cos()), dim=-1).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)  # (1, D, H, W)


def with_pos(x, pos):
    return x if pos is None else x + pos


class EncoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(cfg.dim_model, cfg.n_heads, dropout=cfg.dropout)
        self.linear1 = nn.Linear(cfg.dim_model, cfg.dim_feedforward)
        self.dropout = nn.Dropout(cfg.dropout)
        self.linear2 = nn.Linear(cfg.dim_feedforward, cfg.dim_model)
        self.norm1 = nn.LayerNorm(cfg.dim_model)
        self.norm2 = nn.LayerNorm(cfg.dim_model)
        self.dropout1 = nn.Dropout(cfg.dropout)
        self.dropout2 = nn.Dropout(cfg.dropout)
        self.activation = nn.ReLU()

    def forward(self, x, pos_embed):
        skip = x
        q = k = with_pos(x, pos_embed)
        x = self.self_attn(q, k, value=x)[0]
        x = self.norm1(skip + self.dropout1(x))
        skip = x
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.norm2(skip + self.dropout2(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(cfg.dim_model, cfg.n_heads, dropout=cfg.dropout)
        self.multihead_attn = nn.MultiheadAttention(cfg.dim_model, cfg.n_heads, dropout=cfg.dropout)
        self.linear1 = nn.Linear(cfg.dim_model, cfg.dim_feedforward)
        self.dropout = nn.Dropout(cfg.dropout)
        self.linear2 = nn.Linear(cfg.dim_feedforward, cfg.dim_model)
        self.norm1 = nn.LayerNorm(cfg.dim_model)
        self.norm2 = nn.LayerNorm(cfg.dim_model)
        self.norm3 = nn.LayerNorm(cfg.dim_model)
        self.dropout1 = nn.Dropout(cfg.dropout)
        self.dropout2 = nn.Dropout(cfg.dropout)
        self.dropout3 = nn.Dropout(cfg.dropout)
        self.activation = nn.ReLU()

    def forward(self, x, encoder_out, decoder_pos_embed, encoder_pos_embed):
        skip = x
        q = k = with_pos(x, decoder_pos_embed)
        x = self.self_attn(q, k, value=x)[0]
        x = self.norm1(skip + self.dropout1(x))
        skip = x
        x = self.multihead_attn(query=with_pos(x, decoder_pos_embed),
                                key=with_pos(encoder_out, encoder_pos_embed), value=encoder_out)[0]
        x = self.norm2(skip + self.dropout2(x))
        skip = x
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.norm3(skip + self.dropout3(x))


class ActPolicy(nn.Module):
    """observation.image (B, 3, H, W) in [0, 1], observation.state (B, S) ->
    action (B, chunk, A)."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        c = cfg.image_shape[0]
        # Normalization statistics are buffers (persistent: part of the checkpoint).
        self.register_buffer("image_mean", torch.rand(c, 1, 1) * 0.2 + 0.4)
        self.register_buffer("image_std", torch.rand(c, 1, 1) * 0.1 + 0.2)
        self.register_buffer("state_mean", torch.randn(cfg.state_dim) * 0.5)
        self.register_buffer("state_std", torch.rand(cfg.state_dim) + 0.5)
        self.register_buffer("action_mean", torch.randn(cfg.action_dim) * 0.5)
        self.register_buffer("action_std", torch.rand(cfg.action_dim) + 0.5)

        self.backbone = ResNet(width=cfg.backbone_width, norm=nn.BatchNorm2d)
        d = cfg.dim_model
        self.encoder_img_feat_input_proj = nn.Conv2d(self.backbone.out_channels, d, 1)
        self.encoder_cam_feat_pos_embed = SinePositionEmbedding2d(d // 2)
        self.encoder_latent_input_proj = nn.Linear(cfg.latent_dim, d)
        self.encoder_robot_state_input_proj = nn.Linear(cfg.state_dim, d)
        self.encoder_1d_feature_pos_embed = nn.Embedding(2, d)  # latent, state
        self.encoder_layers = nn.ModuleList([EncoderLayer(cfg) for _ in range(cfg.n_encoder_layers)])
        self.decoder_layers = nn.ModuleList([DecoderLayer(cfg) for _ in range(cfg.n_decoder_layers)])
        self.decoder_norm = nn.LayerNorm(d)
        self.decoder_pos_embed = nn.Embedding(cfg.chunk_size, d)
        self.action_head = nn.Linear(d, cfg.action_dim)
        for p in list(self.encoder_layers.parameters()) + list(self.decoder_layers.parameters()):
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        perturb_norm_affine(self)

    def prepare_backbone(self, calibration_images):
        """Measures batch-norm statistics, then freezes them into buffers."""
        calibrate_batchnorm(self.backbone, calibration_images)
        freeze_batchnorm(self.backbone)

    def forward(self, image, state):
        image = (image - self.image_mean) / self.image_std
        state = (state - self.state_mean) / self.state_std
        batch_size = state.shape[0]

        latent = torch.zeros([batch_size, self.cfg.latent_dim], dtype=torch.float32)
        tokens = [self.encoder_latent_input_proj(latent), self.encoder_robot_state_input_proj(state)]
        pos = list(self.encoder_1d_feature_pos_embed.weight.unsqueeze(1))

        features = self.backbone(image)
        cam_pos = self.encoder_cam_feat_pos_embed(features)
        features = self.encoder_img_feat_input_proj(features)
        # "b c h w -> (h w) b c": sequence first.
        features = features.flatten(2).permute(2, 0, 1)
        cam_pos = cam_pos.flatten(2).permute(2, 0, 1)

        tokens = torch.cat([torch.stack(tokens, dim=0), features], dim=0)
        pos = torch.cat([torch.stack(pos, dim=0), cam_pos], dim=0)

        x = tokens
        for layer in self.encoder_layers:
            x = layer(x, pos)
        encoder_out = x

        decoder_pos = self.decoder_pos_embed.weight.unsqueeze(1)
        x = torch.zeros((self.cfg.chunk_size, batch_size, self.cfg.dim_model), dtype=pos.dtype)
        for layer in self.decoder_layers:
            x = layer(x, encoder_out, decoder_pos_embed=decoder_pos, encoder_pos_embed=pos)
        x = self.decoder_norm(x).transpose(0, 1)
        actions = self.action_head(x)
        return actions * self.action_std + self.action_mean


def build(cfg):
    """The policy with its backbone statistics measured and frozen, plus example
    inputs."""
    policy = ActPolicy(cfg)
    calib = [torch.rand(2, *cfg.image_shape) for _ in range(2)]
    policy.prepare_backbone([(im - policy.image_mean) / policy.image_std for im in calib])
    policy.eval()
    inputs = {
        "observation.image": torch.rand(1, *cfg.image_shape),
        "observation.state": policy.state_mean + policy.state_std * torch.randn(1, cfg.state_dim),
    }
    return policy, inputs
