"""Trains the SpectralShapeAutoencoder on synthetic spectra (shared/specs/models.md) and saves its state_dict.

Data: models/spectra.py, --train-size spectra of seed spectra.TRAIN_SEED (0) for training, 10,000 held-out
spectra of seed spectra.HELDOUT_SEED (1) for the stop criterion: reconstruction MSE (mean over all
10,000 x 320 values) below a tenth of the held-out spectra's own variance (np.var over all their values).
Loss: MSE of the reconstruction. Adam with a short warm-up and cosine decay over --epochs; if the target is
not met then, up to --extra-epochs more at --extra-lr, stopping as soon as it is. The final weights are
saved either way; the exit status is 0 only when the target was reached (3 otherwise).

    python3 models/train_ssa.py                       # full run (CUDA when available)
    python3 models/train_ssa.py --epochs 1 --extra-epochs 0 --max-batches 20 --train-size 20000 \
        --weights-dir /tmp/w                          # smoke test
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import common
import spectra
from ssa import SpectralShapeAutoencoder, count_parameters

HELDOUT_SIZE = 10_000


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--extra-epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--min-lr", type=float, default=2e-5)
    p.add_argument("--extra-lr", type=float, default=5e-5)
    p.add_argument("--warmup-steps", type=int, default=500)
    p.add_argument("--train-size", type=int, default=200_000)
    p.add_argument("--target-ratio", type=float, default=0.1, help="MSE / variance to get below (spec: 0.1)")
    p.add_argument("--seed", type=int, default=0, help="torch seed (init, shuffling)")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    p.add_argument("--weights-dir", default=common.DEFAULT_WEIGHTS_DIR)
    p.add_argument("--out", default=None, help="state_dict path (default <weights-dir>/ssa.pt)")
    p.add_argument("--max-batches", type=int, default=None, help="smoke tests: batches per epoch")
    return p.parse_args()


@torch.no_grad()
def reconstruction_mse(model, x, batch=2000):
    """Mean squared error over all values, accumulated in float64."""
    model.eval()
    total = 0.0
    for i in range(0, x.shape[0], batch):
        recon, _ = model(x[i:i + batch])
        total += ((recon.double() - x[i:i + batch].double()) ** 2).sum().item()
    return total / x.numel()


def main():
    args = parse_args()
    common.seed_everything(args.seed)
    device = common.pick_device(args.device)
    out = args.out or os.path.join(args.weights_dir, "ssa.pt")
    common.log(f"device {common.device_description(device)}, torch {torch.__version__}")

    t0 = time.time()
    train_np = spectra.generate(args.train_size, spectra.TRAIN_SEED)
    held_np = spectra.generate(HELDOUT_SIZE, spectra.HELDOUT_SEED)
    variance = float(held_np.astype(np.float64).var())
    train = torch.from_numpy(train_np).to(device)
    held = torch.from_numpy(held_np).to(device)
    common.log(f"generated {args.train_size} training (seed {spectra.TRAIN_SEED}) and {HELDOUT_SIZE} held-out "
               f"(seed {spectra.HELDOUT_SEED}) spectra in {time.time() - t0:.1f} s; held-out variance {variance:.6f}, "
               f"target MSE < {args.target_ratio * variance:.6f}")

    model = SpectralShapeAutoencoder().to(device)
    common.log(f"SSA: {count_parameters(model)} parameters")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, fused=device.type == "cuda")
    steps_per_epoch = math.ceil(args.train_size / args.batch_size)
    if args.max_batches:
        steps_per_epoch = min(steps_per_epoch, args.max_batches)
    total_steps = steps_per_epoch * args.epochs
    gen = torch.Generator().manual_seed(args.seed)

    def lr_at(step):
        if step < args.warmup_steps:
            return args.lr * (step + 1) / args.warmup_steps
        frac = min((step - args.warmup_steps) / max(total_steps - args.warmup_steps, 1), 1.0)
        return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * frac))

    history, step, mse, epochs_done = [], 0, float("inf"), 0
    start = time.time()
    for epoch in range(1, args.epochs + args.extra_epochs + 1):
        extra = epoch > args.epochs
        if extra and mse < args.target_ratio * variance:
            break
        model.train()
        perm = torch.randperm(args.train_size, generator=gen).to(device)
        loss_sum, seen, t0 = torch.zeros((), device=device), 0, time.time()
        for b in range(steps_per_epoch):
            x = train[perm[b * args.batch_size:(b + 1) * args.batch_size]]
            lr = args.extra_lr if extra else lr_at(step)
            for g in opt.param_groups:
                g["lr"] = lr
            recon, _ = model(x)
            loss = F.mse_loss(recon, x)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            loss_sum += loss.detach() * x.shape[0]
            seen += x.shape[0]
            if (b + 1) % 200 == 0:
                common.log(f"epoch {epoch} batch {b + 1}/{steps_per_epoch} loss {loss_sum.item() / seen:.6f} "
                           f"lr {lr:.2e}")
        mse = reconstruction_mse(model, held)
        epochs_done = epoch
        history.append({"epoch": epoch, "train_loss": loss_sum.item() / seen, "heldout_mse": mse,
                        "ratio": mse / variance, "lr": lr, "seconds": round(time.time() - t0, 1)})
        common.log(f"epoch {epoch}{' (extra)' if extra else ''}: train loss {loss_sum.item() / seen:.6f}, "
                   f"held-out MSE {mse:.6f} = {mse / variance:.4f} x variance ({time.time() - t0:.1f} s)")
    elapsed = time.time() - start
    ratio = mse / variance
    reached = ratio < args.target_ratio

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    model = model.cpu()
    torch.save(model.state_dict(), out)
    record = {
        "model": "SpectralShapeAutoencoder (320 bins, 32-dim latent)",
        "weights": os.path.basename(out),
        "heldout_mse": mse,
        "heldout_variance": variance,
        "ratio": ratio,
        "heldout_spectra": f"{HELDOUT_SIZE}, spectra.generate(seed={spectra.HELDOUT_SEED})",
        "training_spectra": f"{args.train_size}, spectra.generate(seed={spectra.TRAIN_SEED})",
        "target": f"MSE < {args.target_ratio} x variance",
        "target_reached": reached,
        "epochs": epochs_done,
        "batch_size": args.batch_size,
        "optimizer": f"Adam, lr {args.lr} (warm-up {args.warmup_steps} steps) cosine to {args.min_lr}",
        "max_batches_per_epoch": args.max_batches,
        "training_seconds": round(elapsed, 1),
        "device": common.device_description(device),
        "environment": common.environment(),
        "command": common.command_line(),
        "history": history,
    }
    common.write_training_record(args.weights_dir, "ssa", record)
    common.log(f"saved {out}; held-out MSE {mse:.6f}, variance {variance:.6f}, ratio {ratio:.4f} after "
               f"{epochs_done} epochs, {elapsed:.0f} s ({'target reached' if reached else 'TARGET NOT REACHED'}: "
               f"< {args.target_ratio})")
    if not reached:
        raise SystemExit(3)


if __name__ == "__main__":
    main()
