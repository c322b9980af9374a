"""ConvNet: the modified LeNet-5 for Fashion-MNIST at 86x86 (shared/specs/models.md, first section).

| step          | op                                                   | output shape     |
| input x       | images in [0, 1]                                     | [B, 1, 86, 86]   |
| conv1         | Conv 1->4, 7x7, stride 1, no padding, bias           | [B, 4, 80, 80]   |
| relu1, pool1  | ReLU; MaxPool 2x2 stride 2                           | [B, 4, 40, 40]   |
| conv2         | Conv 4->16, 7x7, stride 1, no padding, bias          | [B, 16, 34, 34]  |
| relu2, pool2  | ReLU; MaxPool 4x4 stride 4 (floor)                   | [B, 16, 8, 8]    |
| fc3           | flatten (C, H, W) 1024 -> 32, bias; ReLU             | [B, 32]          |
| fc4           | 32 -> 10, bias; Softmax over the classes             | probs [B, 10]    |

The state_dict holds exactly conv1.*, conv2.*, fc3.*, fc4.* (weight and bias each).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

INPUT_SIZE = 86
RAW_SIZE = 28
NUM_CLASSES = 10
CLASS_NAMES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=7, stride=1, padding=0, bias=True)
        self.conv2 = nn.Conv2d(4, 16, kernel_size=7, stride=1, padding=0, bias=True)
        self.fc3 = nn.Linear(16 * 8 * 8, 32, bias=True)
        self.fc4 = nn.Linear(32, NUM_CLASSES, bias=True)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        """Everything up to (not including) the final softmax; used by training (log-softmax loss)."""
        x = F.max_pool2d(F.relu(self.conv1(x)), kernel_size=2, stride=2)   # [B, 4, 40, 40]
        x = F.max_pool2d(F.relu(self.conv2(x)), kernel_size=4, stride=4)   # [B, 16, 8, 8]
        x = torch.flatten(x, 1)                                            # [B, 1024], C,H,W order
        x = F.relu(self.fc3(x))                                            # [B, 32]
        return self.fc4(x)                                                 # [B, 10]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x [B, 1, 86, 86] in [0, 1] -> probs [B, 10] (softmax over the classes)."""
        return F.softmax(self.logits(x), dim=1)


def preprocess(images) -> torch.Tensor:
    """uint8 images [N, 28, 28] (numpy or torch) -> float [N, 1, 86, 86].

    The engine's pre-processing (configs/convnet.yaml): divide by 255 (the engine's "scale by 1/255"
    may differ from this division by one float32 ulp), then bilinear resize to 86x86 with half-pixel
    centres: F.interpolate(mode="bilinear", align_corners=False, antialias=False).
    The result is float32 unless a float64 tensor is passed in. Runs on the tensor's device.
    """
    if isinstance(images, np.ndarray):
        images = torch.from_numpy(np.ascontiguousarray(images))
    if images.dim() != 3 or tuple(images.shape[1:]) != (RAW_SIZE, RAW_SIZE):
        raise ValueError(f"preprocess expects [N, {RAW_SIZE}, {RAW_SIZE}] images, got {tuple(images.shape)}")
    x = images if images.is_floating_point() else images.to(torch.float32)
    x = (x / 255.0).unsqueeze(1)
    return F.interpolate(x, size=(INPUT_SIZE, INPUT_SIZE), mode="bilinear",
                         align_corners=False, antialias=False)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
