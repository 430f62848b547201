"""Model definitions for models/make_fixtures.py: re-creations of the networks
edgec's users deploy, written against plain torch (no torchvision, einops or
LeRobot), sized by a config so that one definition gives both the small
committed fixture and the full-size benchmark model."""
