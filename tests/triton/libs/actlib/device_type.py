"""The device type, decided at import (as ``unsloth/device_type.py``)."""

import torch

DEVICE_TYPE = "cuda" if torch.cuda.is_available() else "cpu"
if hasattr(torch, "xpu") and torch.xpu.is_available():
    DEVICE_TYPE = "xpu"
