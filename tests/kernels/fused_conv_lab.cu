// Lab for the fused Conv + bias + ReLU + MaxPool kernels (layers/fused_conv/fused_conv_cuda.cuh): a float64 CPU
// reference, validation of every variant x tile configuration x element types on odd shapes, timings of the conv
// net's two convolutions against the device's peaks, and a CPU emulation of the tensor-core index math.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/fused_conv_lab.cu -o fused_conv_lab
// Run:
//   ./fused_conv_lab                 validate, then time conv1/conv2 at batch 10000 and 1000
//   ./fused_conv_lab --check-only    validate only;   --batch N   time at batch N only;   --csv PATH
//   --max-batch N   validate only the cases of at most N images (sanitizer runs)
//   --filter S    only the runs whose "variant config tin->tout" contains S (S1|S2: either);   --no-validate
//                 timing only (for ncu: `--filter "mma_bf16 w8_m4_px1024 bf16->bf16" --no-validate --batch 10000`)
//   ./fused_conv_lab --emulate       CPU only: replay the kernels' index functions with an MMA emulated from the
//                                    PTX ISA fragment tables (needs no GPU)
//   --peak-tflops X (bf16/fp16, default 790)  --peak-tflops-tf32 X (395)  --peak-tflops-fp32 X (60)
//   --peak-gbps X (4000): the H200 figures the percentages are taken against.
// Exit status: non-zero when any check fails or a CUDA call errs. Without a GPU the GPU parts are skipped (with a
// message) and the emulation runs instead.
//
// ptxas report (CUDA 13.0, sm_90a, `-Xptxas -v` on this file): registers per thread; every kernel has 0 bytes of
// stack frame and 0 spill stores/loads. The element types (f32/bf16/f16 in and out) do not change the counts.
//   mma (bf16, f16) and tf32            NT=1  NT=2  NT=4  NT=8   (NT = n8 tiles: k <= 8, 16, 32, 64)
//     ConvTileSmall (4 warps, MT=2)       44    61    80   127
//     ConvTileLarge (8 warps, MT=4)       64    80   127   233   (NT=8: one 256-thread CTA per SM by registers)
//   ffma, both configs                    64                     (__launch_bounds__(threads, 1): without the 1,
//                                                                 ptxas chose 48 registers and spilled 8 bytes)
//   stacked: 8-warp one-row-block kernels (KS=8) are capped at 80 registers (3 CTAs/SM) and spill 8-28 bytes
//     in the NW=4/5 instantiations (measured faster than 113 registers without spills: 0.39 against 0.44 ms);
//     4-warp KS=16 kernels use 128 (4 CTAs/SM); every other stacked kernel: 0 spills.
//
// Variants and what was learned (keep this current):
// - mma (bf16/f16 m16n8k16) is the main path. A fragments are gathered straight from the staged input tile (no
//   im2col buffer): one 32-bit LDS per register thanks to the pair-expanded staging (word x = elements x, x+1),
//   which doubles the input tile in shared memory but makes every tap pair one aligned load whatever the pixel's
//   column parity. The kernel row is padded to even taps (7 -> 8) with zero weights: conv2's K grows 196 -> 224
//   (+14%), cheaper than splitting pairs across rows. Expected limit: shared-memory bandwidth for A (4 wavefronts
//   per m16 tile per k-step, shared by NT n-tiles: conv1 with NT=1 issues ~4 LDS per MMA and is LDS-bound;
//   conv2 with NT=2 about half as many).
// - tf32 (m16n8k8) is the same kernel with one element per word; K is not padded (7 taps stay 7). Its weights
//   for the largest supported shape (c=16, r=7, k=64: 200 KB) exceed half of shared memory, so the B fragments
//   then come through L1 (__ldg); the lab's c16/k64/r7 case covers that path.
// - ffma: strict fp32 direct convolution; a lane computes 4 columns x 4 channels with a 4-register sliding
//   window along kx (1 LDS + 1 broadcast LDG.128 per 16 FFMA). Rows of a warp are 4 staged rows apart with an
//   odd row length, so the 32 lanes' loads (stride 4 words) fall in distinct banks.
//   The loop along a kernel row unrolled for r = 3, 5, 7 (ffma_block<R>; configurations *_rows): 85 registers
//   (64 before; unrolling the kernel's rows too kept every weight live: 148). H100, batch 10000, f32 in, same
//   call, plain -> unrolled (best configuration of each; tools/results/h200/ffma_rows/): conv2 3.70 -> 2.77 ms
//   (17.3 -> 23.2 TFLOP/s), conv1 2.41 -> 2.94 ms (one input channel: fewer warps per SM hurt more than the
//   loop costs), so the unrolled kernels are candidates of their own and the tuner keeps the winner per shape.
// - cols (fused_conv_columns.cuh): strict fp32 with the input staged column-major; a lane owns RO = 8 or 16 conv
//   rows of one column x 4 channels and slides down the column: per kernel column, ceil((RO+r-1)/4) LDS.128 of
//   inputs and r broadcast LDS.128 of weights feed RO x r x 4 FFMA (RO 16, r 7: 13 loads for 448 FFMA).
//   H200, batch 10000, f32 in and out, ms (tools/results/h200/fp32_columns/; same call per line):
//                                                  conv1 best          conv2 best        (pixels-on-M FFMA: 2.41
//                                                  / 2.77)
//     conv tile in shared memory, pool_store       1.344 (r8_w4)       1.602 (r16_w8)    call_lab1_first
//       ncu conv1 r8_w4: 958 M warp instructions for 392 M FFMA: pool_store's run-time divisions, 28% occupancy
//     rows pooled in registers, windows across     1.038 (r8_w8)       1.626 (r16_w8)    call_lab1
//       lanes by shuffles, stored from registers (no conv tile; needs a power-of-two window <= 32 and win == ps)
//     the window known at compile time (2, 4)      0.865 (r8_w8)       1.558 (r16_w8)    call_a
//       conv1: 778 -> 684 M instructions (FFMA 60%); per-instruction samples: 11% on the barrier's branch, 9% on
//       the staging's stores (waiting on the global loads); conv2: FFMA 84% of instructions, 69% of the FFMA rate
//     weights re-laid [ci][kx][quad][ky] in shared  0.847 (r8_w4)       1.541 (r16_w8)    call_lab2
//       memory (immediate offsets), float4 staging stores; r8_w5 (an image in 25 blocks, 5 warps) 0.899
//     tried, dropped: the next tile copied by cp.async  0.947 (r8_w8)     1.733 (r16_w8)    call_b
//       (4 bytes a lane) into a raw buffer under this tile's work, then turned into columns in shared memory:
//       the raw buffer's shared memory cost occupancy (conv1 r8_w4 38% -> 32%) and the transpose pass more than
//       the hidden load latency saved; the conv net in fp32 2.47 -> 2.71 ms at 10000
//     after the review's one epilogue loop (HEAD    0.950 (r8_w8)       1.497 (r16_w8)    head_mma/call_a, b
//       at 1201233: a full index per store); per-store offsets hoisted (two pointers) 0.905 / 1.550; the same with
//       the 8-row configurations capped at 64 registers (3 -> 4 CTAs per SM) 0.873 / (1.553); HEAD with the cap
//       alone 0.936 / 1.529 (an explicit minimum of 1 CTA changed r16's allocation: 127 -> 120 registers); one
//       base offset and two strides with the cap 0.867 / 1.557. Kept: one base offset and the cap for 8-row lanes,
//       16-row lanes as HEAD (no minimum, full index per store).
//   r16 loses on conv1 (bands of 16 rows: 17% of rows wasted, 5 blocks over 4 or 8 warps); r8 on conv2 (32 accumulators
//   per lane against 64). All configurations are tuner candidates (strict fp32, and tf32's short products).
// - The epilogue stages the fp32 conv tile in shared memory and pools from there: general for any window and
//   stride (overlapping 3/2 included) and exact (fp32 conv values, bias and ReLU after the max). Its cost is
//   shared memory: for conv2 a whole image (32x32x16 fp32 = 64 KB) with ConvTileLarge.
// - Persistent grid (SMs x resident CTAs): weights and the k-offset table are loaded once per CTA.
// - stacked (fused_conv_stacked.cuh, k <= 16): weights on M, pixels on N, conv rows stacked under the channels.
//   The measured history, H200, batch 10000, bf16 in and out (ms; ncu warp instructions per image in brackets):
//     pixels-on-M (w8_m4_px1024)                          conv1 2.07 [134K]      conv2 1.11
//       ncu: 60% of its instructions were run-time integer division (pixel_word, pool_store, staging);
//       HMMA 1.3% of instructions, tensor pipe 5% busy, issue 68%: issue-bound on index arithmetic.
//     stacked v1: FastDiv, weights in registers          conv1 1.19 [71K]       conv2 1.61 (1 CTA/SM: 178 KB)
//     + pooling in registers, double-buffered input      conv1 1.74 [69K]       conv2 0.87
//       (conv1 slower: 10 MMAs per work unit under ~450 instructions of unit set-up, running max and epilogue)
//     + a unit = a row block x all column groups; first  conv1 0.91 [36K]       conv2 1.41 (px4096: 1 CTA/SM)
//       row block peeled; max.NaN (one FMNMX.NAN); NW=5
//     + flat staging (one contiguous run per band)       conv1 0.64 [22K]       conv2 0.54 [16K] (w4_n4_px1024)
//       (row staging had cost 157 instructions per 86-word row: 38% of conv1, 56% of conv2)
//     + compile-time window combines, no running max     conv1 0.44 [21K]       conv2 0.42
//       in the one-row-block kernel (80 registers: 3 CTAs/SM)
//     + one output per lane when rows combine across     conv1 0.39             conv2 0.43 (128 registers for
//       lanes; ReLU as max.NaN(v, 0)                                             4-warp KS=16 CTAs: 4 per SM)
//     tile configurations (same call): conv1 w4_n5_px3200 0.381, w8_n5_px6400 0.391, w8_n2 0.441, w4_n2 0.527,
//       w4_n4_px1024 0.868; conv2 w4_n4_px1024 0.427, w4_n4_px512 0.492, w4_n2 0.534, w8_n4 0.867, w4_n5 3.06.
//       Batch 1: conv1 best w4_n2_px1024 0.0079 ms, conv2 w4_n4_px512 0.0122 ms. All stay candidates: the
//       tuning cache keeps the winner per shape and batch.
//   Where conv1 stood (ncu, 0.44 ms version): issue 50% active, tensor pipe 14%, 37% occupancy; per work unit
//   and column group 364 instructions for 25 HMMA (MMA loop ~144, epilogue ~220).
//   Stall samples of the 0.40 / 0.43 ms kernels (ncu pc sampling, conv1 f32->bf16 w4_n5, conv2 w4_n4, batch
//   10000): "wait" 31% / 31%, long scoreboard 31% / 20% (the staging's global loads: 28% of conv1's samples sat
//   on the float -> bf16 pack after them), short scoreboard 12% / 17%, barrier 11% / 5%; issue 0.49 / 0.39 per
//   scheduler at 31% / 25% occupancy. Per-line: the MMA loop 45% / 64% of instructions, conv1's epilogue 30%
//   (a per-write select of the lane's row and bias 10%), conv2's k-step test 6% and k-offset load 9%.
//     + prefetch: the next tile's bands by 16-byte cp.async into a raw buffer while this tile computes, then
//       converted to operand words from shared memory (two barriers per tile); the lane's output row, bias and
//       limit chosen once per unit; conv1's row combine as one shuffle (each lane sends the value its partner
//       writes); conv2's first 9 k-steps without the test. Same call, old header against new (H200, 10000):
//       conv1 f32->bf16 w4_n5 0.399 -> 0.318, bf16->bf16 0.378 -> 0.303, tf32 w8_n5 1.00 -> 0.62;
//       conv2 w4_n4 0.425 -> 0.344 (0.379 with the prefetch alone), w8_n4 0.858 -> 0.510.
//       Stalls after the prefetch: long scoreboard gone from the top; conv1 wait 35%, short scoreboard 15%,
//       barrier 13% (10 units on 4 warps: 3, 3, 2, 2).
//     + stk_w5_n5_px3200 (5 warps: 2 units each): conv1 f32->bf16 0.315, bf16 0.294; batch 1 0.0090 (w4_n5
//       0.0114). Tried, lab only (lab_cfg below): stk_w5_n10_px3200 (one 80-column group per unit): 96
//       registers with 44 bytes of spills, 0.344; more CTAs per SM by a register cap (one call, 10000):
//       conv1 w5_n5 at 81 registers (72, 108 bytes of spill loads) 0.365 against 0.314; conv2 w4_n4 at 102
//       (96, 1176 bytes) 0.523 and w4_n2 at 102 (96, 160 bytes) 0.459 against 0.343. Occupancy is not the lever
//       while the weights stay in registers.
//   Batch 1 after the prefetch: conv1 w5_n5 0.0090 ms, conv2 w8_n4 0.0116 / w4_n4_px512 0.0118.
//     + band pointers without a division (plane n0 * c + seg): conv1 f32->bf16 0.315 -> 0.307, bf16 0.294 ->
//       0.291; conv2 w4_n4 0.344 -> 0.338.
// - shared rows (make_stacked_plan with share, shared_rows_mma; k 9..16, r 5 or 7, c <= 4, 2x2/4x4 pools): the
//   pool window's R conv rows computed together so that each B fragment feeds several of them. Weights padded to
//   8 taps x 8 rows per input channel (A_0, 64 registers for c = 4). H200, conv2, batch 10000, bf16 (ms):
//     stk_w4_n4_px1024 (one row block at a time, running max)            0.338   [15.5K instructions per image]
//     v1: all R rows share each fragment, A shifted by one row =        0.299 (w4_n2), 0.306 (w4_n4) [13.5K]
//         A_0's registers re-paired: ptxas copied each A operand into an aligned quad (line profile: the MMA
//         line 38% of instructions for 16% HMMA)
//     v2: rows of one parity share (shift by whole k-steps: A_0's quads as they are), the fragments loaded
//         once per parity (19 LDS.32 per 16 MMAs and channel against v1's 10)  0.288 (w4_n4), 0.290 (w4_n2) [12.6K]
//     register caps (same call): w4_n4 at 168 (3 CTAs/SM, 44 bytes spilled) 0.288, at 205 (2 CTAs) 0.331, at
//     128 (4 CTAs, 508 bytes spilled) 0.428; w8_n4 0.392; w4_n4_px512 0.345. Batch 1: w4_n4_px512 0.0092
//     against stk 0.0117. Still latency-bound: 8-12 warps per SM, issue 0.41 per cycle and scheduler, "wait"
//     the top stall (ncu, v1 at 2 CTAs/SM); the MMA loop is now 49% of instructions, staging, prefetch and
//     epilogue the rest.
// - ldsm (tests/kernels/fused_conv_ldsm.cuh, lab only; k <= 16, r <= 8, bf16/f16, pools of their own stride): the
// stacked kernel with its B
//   fragments from ldmatrix. Staged per input row and 8-column chunk: the 8 copies shifted by 0..7 elements (128 B),
//   so every pixel's 8 taps of a row are one aligned 16-byte ldmatrix row; one x4 = two k-steps of an n-tile (conv1:
//   15 LDSM per row block and column group against 50 LDS.32 + 5 LDS.64). Weights as the stacked kernel's (rp = 8).
//   Measured on an H100 (all three calls got one; old and new in one process per batch; ms, bf16 -> bf16, 10000):
//     call 1 (144-byte entries, staging loads generic)  conv1 stk_w5_n5 0.298 / 0.299, ldsm w5_n5_px3200 0.336 /
//       0.336, px1600 0.343 / 0.343; f32->bf16 stk 0.315, ldsm 0.423 (83 KB of shared memory: 2 CTAs per SM)
//     call 2 (128-byte entries + 16 B per row, LDS    conv1 stk 0.3035 / 0.3034, ldsm px3200 0.329 / 0.324, px1600
//       staging, prefetch reading nothing past x)      0.340 / 0.334, w10_n5_px3200 (2 CTAs, 20 warps) 0.344 / 0.339;
//       f32->bf16 stk 0.317 / 0.317, ldsm 0.341 / 0.343; batch 1000 stk 0.0388, ldsm 0.0428, px1600 0.0411; batch 1
//       stk_w5_n5 0.0097, ldsm 0.0092, px1600 0.0074 (the engine's stk px640/px320 latency tiles not in this call);
//       conv2 (K = 14 k-steps, running max) ldsm px1600 0.442 against shared rows 0.278.
//     call 3 (control flow of the MMA loop)            conv1 stk 0.2998 / 0.2988, ldsm 0.3285 / 0.3259, flat (x4
//       for every pair, no early exit) 0.3310 / 0.3284, flat + __syncwarp() before the epilogue 0.3268 / 0.3249.
//   Why it loses (ncu, call 3, one launch at 10000): executed warp instructions stk 167.3M, ldsm 164.1M (-2%): the
//   MMA loop's savings (static SASS 113 LDS -> 30 LDSM) are spent again on building 8 copies per staged row (8 word
//   loads, 7 PRMT, 8 STS.128 per 8 pixels and row: 4x the staged bytes), and the issue rate falls (issue active
//   60.9% -> 54.1%): 106 registers and 67 KB of shared memory give 3 CTAs = 15 warps per SM against 19 (the w10
//   configuration restores 19 warps at 0.58 issued per cycle and scheduler, still 0.339 ms). ptxas wraps conv1's 65
//   epilogue shuffles in WARPSYNC / ENDCOLLECTIVE (the stacked kernel: none); a __syncwarp() removes them (static
//   SASS 2872 -> 2104, executed 161.7M) without a measurable gain. Not shipped to the engine; lab only.
//   ptxas (tools/results/h200/conv_ldmatrix/ptxas_local.txt): conv1's kernel (KS = 6) 106 registers at px3200,
//   96 at px1600 and w10, 0 spills; the px1600 configuration's KS = 6/8 running-max instantiations spill 12-48 bytes.
//   Found on the way: stacked_prefetch's raw band held up to 12 bytes of lead, but 16-bit inputs can have 14 (a band
//   whose irb * w * 2 = 4 mod 16 then spilled its last chunk onto the next band: fixed, + 15); and its last chunk's
//   16-byte cp.async with a shorter src-size is reported by compute-sanitizer memcheck as a read past the input's
//   allocation when the band ends the tensor (the lab's exact-size buffers; `stk_w5_n5_px3200 bf16->bf16`, conv1
//   n = 1: 2 errors; harmless in hardware: the source size keeps the copy inside). stacked_prefetch now copies that
//   one chunk element by element, for both kernels.
// - shared rows in tf32 mode as split products (shr_tf32x3; fc::WordBf16x3: each float32 operand as hi + lo bf16,
//   lo words staged lo_off words after the hi ones, the lo weights in shared memory since A_0's 64 registers
//   cannot be held twice beside R accumulator sets; lo x hi + hi x lo + hi x hi per k-step; 179-213 registers,
//   no spills, 2 CTAs of 4 warps per SM). Validation holds them to the unrounded operands: conv2 rel L2 2.7e-6 to
//   3.5e-6. H200, conv2, float32 in and out, ms (tools/results/h200/tf32_split/call_g/): 10000 shr_tf32x3
//   w4_n4_px1024 0.668 against the pixels-on-M tf32 kernel the engine ran before (w8_m4_px1024) 1.431; 1000 0.0776
//   against 0.155. The conv net in tf32 at 10000: 1.82 -> 1.07 ms in the engine (same build's bench).
// - wgmma (fused_conv_wgmma.cuh; 16-bit input of the product's type, k <= 16, 2x2/4x4 pools, <= 64 kept columns): the
//   shared-rows idea on Hopper's warpgroup MMA. M = 16 channels x 4 conv rows (weights: A from registers, 80 for
//   conv2), N = 64 output columns, K = the 4 rows' 10 input rows x 8 taps x c (20 k-steps for conv2); B (the im2col
//   of 64 columns, each row the input shifted by one more element) built per tile in shared memory in the 128-byte-
//   swizzled K-major layout by byte permutes of two 16-byte loads per (K chunk, 8 columns). H200, conv2, bf16,
//   same process as the shared-rows kernel (shr w4_n4_px1024: 10000 0.2946 ms, 1000 0.0406;
//   tools/results/h200/conv_wgmma/):
//     call_a: the pooled values stored by 4 lanes of 32, a fast division per store     10000 0.552, 1000 0.0588
//       (ncu: 1330 instructions a warp and tile, 19.5 threads active, 2.2 of 5.4 cycles a fixed-latency wait)
//     call_b: pooled by reduce-scatter shuffles (14 a tile, not 48), each lane stores   10000 0.326, 1000 0.0365
//       2 values (4x4) or 8 (2x2); descriptors by an added offset; no k-step branches
//       ncu: 530 instructions a warp and tile, 6.95 cycles between a warp's instructions with 8 warps per SM (2
//       CTAs: 225 registers, 83 KB of shared memory), L1 54%: 640 tensor cycles a tile against ~3,800.
//     call_c_lab: wg_m64n64_s1, one B buffer, 3 CTAs per SM (registers capped at 168:    10000 0.320, 1000 0.0372
//       116-224 bytes of spills), the next tile's loads in registers under this one's products; 2 buffers 0.3255
//     call_d: per-item offsets precomputed (a tile's image and row group once, then     10000 s1 0.307 / 2 buffers
//       an add per item), descriptors built once per buffer (the compiler had rebuilt     0.322, 1000 0.0357 /
//       each k-step's from the address: 4 uniform instructions per HGMMA)                0.0359, 1 0.0077-0.0089
//       (shr in that run: 10000 0.2936, 1000 0.0405, 1 px512 0.0087)
//     call_f (per line, ncu): 25% of the 2-buffer kernel's stall samples on the wgmma fence (it waited for the
//       next tile's loads, issued just before it), 17% of s1's on its HGMMAs; the build's STS.128 17-20% of the
//       executed instructions; zeroing the loaded words ahead of the loads 9%
//     call_g: the next tile's loads issued after this tile's wgmmas, words zeroed     10000 s1 0.264 / 2 buffers
//       only where nothing is loaded; old and new header built in one call,           0.278 (old 0.307 / 0.323),
//       alternating, two rounds (shr 0.2936)                                         1000 0.0315 / 0.0324 (old
//                                                                                    0.0358; shr 0.0403), 1 0.0077
//   The engine takes it first in the heuristic's order for 16-bit second convolutions; the tuner keeps the winner.
//   The floor of this form: wgmma reads B at 1/32 byte per MAC (50% of shared-memory bandwidth at the Tensor rate)
//   and the build writes as much again (each input element 8 times, for the 8 taps, x 2.5 for the rows' overlap);
//   with 8-12 warps per SM each warp's ~450 instructions a tile run at one per ~7 cycles (latency-bound).
//   Not tried: a producer warpgroup building B for two consumer warpgroups (the Hopper GEMM's warp specialization),
//   the kernel's x taps on M (B rows = input rows as they are, no 8-fold copy, at 3x the MACs).
// - wgmma pixels-on-M (fused_conv_wgmma_pixels.cuh; 16-bit input of the product's type, c <= 8, k <= 16, 2x2/4x4
//   pools, padding, images up to 64 KB staged): an implicit GEMM with the pixels on M and the weights as wgmma's B in
//   shared memory (placed once per CTA). M = 64 pixels of a 4-row x 32-column tile as column pairs, N = 2 x channels
//   (the pair's two columns: B holds the weights shifted by one tap), K = r kernel rows x (r + 1) taps x CP staged
//   channels (conv2: 14 k-steps, 8/7 of the kept taps). The image is staged channels-last (CP = 4 or 8) so that a
//   16-byte K chunk is an ldmatrix row: A comes from the staged image by one ldmatrix.x4 per k-step and lane, with no
//   im2col written anywhere. H200, conv2, bf16, same process (tools/results/h200/conv_wgmma_pixels/; wg_m64n64_s1 in
//   the same runs 0.262-0.264 ms at 10000, 0.0315 at 1000):
//     call_a: one group of 14 k-steps (loads, then products), 8-column staging units     10000 1wg 0.226 / 2wg 0.219,
//       (racecheck: the buffers' zeroing raced the first staging stores: a barrier      1000 0.0314 / 0.0285,
//       added)                                                                           1 0.0060
//     call_b: k-steps in two groups (the second group's A loads under the first's      10000 1wg 0.230 (one group
//       products, the next tile's first group under the second's): 2-3% over one         0.238) / 2wg 0.226 (0.230)
//       group in the same run; mma.sync per warp with the weights in registers (205-242  sync 0.239 / 0.255
//       registers): slower, dropped from the kernel and the lab. ncu (1wg): 12 warps per SM, issue 36% busy, 8.05
//       cycles a warp between instructions, 242 instructions a warp and tile (14 LDSM, 14 HGMMA); shared stores of the
//       8-column staging 15.9-way bank-conflicted (4.5 M of 30.8 M shared wavefronts); wgmma reads B once per
//       warpgroup (~9 M wavefronts: 8 per HGMMA).
//     call_c: pixel-pair staging units (4-byte loads, conflict-free 16-byte stores),    10000 1wg 0.301 / 2wg
//       all of an item's units in registers ahead, the weights' descriptor kept in a        0.268, 1000 0.0373 /
//       register, no division per tile: slower; 100-105 M instructions (77.6 M before)      0.0327 (wg_s1 0.262)
//     call_d: 8-column units again, their 16-byte stores rotated per thread pair      10000 1wg 0.208 / 2wg 0.210
//       (t / 2 % 4) so that a quarter-warp's stores hit distinct banks; call_c's          (wg_s1 0.262, shr 0.294),
//       descriptor and division changes kept. 126 registers (4 CTAs of 1 warpgroup per    1000 0.0277 / 0.0276
//       SM), 70 M instructions, L1 (shared) throughput 81%: now near the shared-memory    (0.0315), 1 0.0059-0.0068
//       bound of this form (per k-step and warpgroup 2 KB of A by ldmatrix + 1 KB of B    (0.0060-0.0063)
//       by wgmma for 32 K MACs).
//   Next for this form: N = 64 (four columns per M row: 29% more MACs, 14% fewer shared bytes per kept MAC), the
//   pooled outputs gathered for 16-byte stores (4 of 32 bytes a sector now), the first convolution's float input.
// - wgmma column shifts (tests/kernels/fused_conv_wgmma_shifts.cuh, lab only; one input channel, k <= 4, 3x3 / 5x5 /
//   7x7, 2x2 pool): conv1 with 8-column groups of pixels on M and the 8 column shifts x 4 channels on N, so that a K
//   chunk of 8 taps is 16 contiguous bytes of a staged 16-bit row (ldmatrix), the pool entirely in the lane. Correct
//   (30 checks, sanitizers clean) but slower, H200, conv1 from float32 in bf16 (tools/results/h200/
//   conv_wgmma_pixels/call_g): 10000 0.360 (1wg) / 0.347 (2wg) against the stacked kernel's 0.311 in the same
//   process (the engine's pool-on-M kernel: 0.208 in call_f), 1000 0.052 / 0.047 (0.040), batch 1 0.0068-0.0072
//   (0.0091); from bf16 input 0.288 at 10000. ncu: 147 M instructions at 10000 (the MMA part needs ~30 M): a tile's
//   7 k-steps carry per-tile divisions, clamps and 4 scattered stores a lane, and the staging divides per unit.
//   Next for it: positions updated without divisions, stores gathered, N = 64 (16 shifts) for twice the work a tile.
// Next steps worth measuring (not done): conv1 + conv2 in one kernel (the 4x40x40 map stays on chip); wgmma for conv2
// (its M = 16 channels only fills wgmma's M = 64 with 4 stacked rows); NT=3/6 instantiations (k=20 and k=48 now pad
// to 32 and 64 channels). For conv1 the lab's figures say the stacked kernel is bound by latency at ~19 warps per SM
// (issue 61%), not by its shared-memory loads: levers that add warps or independent work per warp (fewer registers
// per thread with the weights in shared memory, two row blocks in flight per warp) rather than fewer loads.
// Known limit: the padded taps of odd kernels and the K padding multiply zero weights by real (finite) inputs; an
// Inf or NaN in the input can therefore also reach the outputs right beside its receptive field.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "layers/fused_conv/fused_conv_columns.cuh"
#include "layers/fused_conv/fused_conv_cuda.cuh"
#include "layers/fused_conv/fused_conv_stacked.cuh"
#include "layers/fused_conv/fused_conv_wgmma.cuh"
#include "layers/fused_conv/fused_conv_wgmma_pixels.cuh"
#include "tests/kernels/fused_conv_ldsm.cuh"
#include "tests/kernels/fused_conv_wgmma_shifts.cuh"

namespace fc = ie::fused_conv;
using fc::ConvPoolShape;
using fc::Variant;

// Stacked tile configurations tried here and not shipped (figures in the header above).
namespace lab_cfg {
struct StackedW5N10 {  // a whole 80-column row block per unit: one k-offset load per 10 MMAs
  static constexpr const char* kName = "stk_w5_n10_px3200";
  static constexpr int kWarps = 5, kNW = 10, kTargetPixels = 3200, kMinBlocks = 3;
};
struct StackedW5N5Occ {  // one more CTA per SM (81 registers at most)
  static constexpr const char* kName = "stk_w5_n5_px3200_occ";
  static constexpr int kWarps = 5, kNW = 5, kTargetPixels = 3200, kMinBlocks = 4;
};
struct StackedW4N4Occ {  // conv2 with 5 CTAs per SM (102 registers at most, 64 of them weights)
  static constexpr const char* kName = "stk_w4_n4_px1024_occ";
  static constexpr int kWarps = 4, kNW = 4, kTargetPixels = 1024, kMinBlocks = 5;
};
struct StackedW4N2Occ {  // conv2, 8 fewer accumulators, 5 CTAs per SM
  static constexpr const char* kName = "stk_w4_n2_px1024_occ";
  static constexpr int kWarps = 4, kNW = 2, kTargetPixels = 1024, kMinBlocks = 5;
};
struct SharedW4N4Two {  // shared rows with 2 CTAs per SM: no register cap below 255 (3 CTAs: 168, 44 bytes spilled)
  static constexpr const char* kName = "stk_w4_n4_px1024_s2";
  static constexpr int kWarps = 4, kNW = 4, kTargetPixels = 1024, kMinBlocks = 4, kShareMinBlocks = 2;
};
struct SharedW4N4Four {  // shared rows with 4 CTAs per SM (128 registers)
  static constexpr const char* kName = "stk_w4_n4_px1024_s4";
  static constexpr int kWarps = 4, kNW = 4, kTargetPixels = 1024, kMinBlocks = 4, kShareMinBlocks = 4;
};
// ldsm (fused_conv_ldsm.cuh): conv1's half image with one row block per warp (2 CTAs, 20 warps per SM), and the
// MMA loop's control-flow flavors (see LdsmFlavor).
struct LdsmW10N5 {
  static constexpr const char* kName = "ldsm_w10_n5_px3200";
  static constexpr int kWarps = 10, kNW = 5, kTargetPixels = 3200, kMinBlocks = 2;
};
struct LdsmW5N5Flat : fc::LdsmW5N5 {
  static constexpr const char* kName = "ldsm_w5_n5_px3200_flat";
  static constexpr int kFlavor = 1;
};
struct LdsmW5N5FlatSync : fc::LdsmW5N5 {
  static constexpr const char* kName = "ldsm_w5_n5_px3200_flat_sync";
  static constexpr int kFlavor = 2;
};
// wgmma pixels-on-M with the k-steps in one group (a tile's A loads, then its products; call_a's form).
struct WgPixelsOneG1 : fc::WgPixelsOne {
  static constexpr const char* kName = "wgpx_1wg_g1";
  static constexpr int kGroups = 1;
};
struct WgPixelsTwoG1 : fc::WgPixelsTwo {
  static constexpr const char* kName = "wgpx_2wg_g1";
  static constexpr int kGroups = 1;
};
}  // namespace lab_cfg

// ---- shapes, data, reference -------------------------------------------------------------------------------

struct Case {
  const char* name;
  ConvPoolShape s;
};

ConvPoolShape conv1(int n) { return {n, 1, 86, 86, 4, 7, 0, 2, 2}; }
ConvPoolShape conv2(int n) { return {n, 4, 40, 40, 16, 7, 0, 4, 4}; }

std::vector<Case> validation_cases() {
  return {
      {"conv1", conv1(1)},
      {"conv1", conv1(7)},
      {"conv1", conv1(1000)},
      {"conv1", conv1(10001)},
      {"conv2", conv2(1)},
      {"conv2", conv2(7)},
      {"conv2", conv2(1000)},
      {"c3_33x33_k20_r5_p2_pool3s2", {7, 3, 33, 33, 20, 5, 2, 3, 2}},
      {"c16_17x17_k64_r3_p1_nopool", {7, 16, 17, 17, 64, 3, 1, 0, 0}},
      {"c4_31x29_k16_r7_pool2", {7, 4, 31, 29, 16, 7, 0, 2, 2}},
      {"c2_12x12_k6_r3_pool2_imgs/tile", {7, 2, 12, 12, 6, 3, 0, 2, 2}},
      {"c2_9x300_k8_r4_p1_pool2_colblocks", {3, 2, 9, 300, 8, 4, 1, 2, 2}},
      {"c16_20x20_k64_r7_p3_pool2_maxrange", {3, 16, 20, 20, 64, 7, 3, 2, 2}},
      {"c1_5x6_k1_r3_nopool_tiny", {5, 1, 5, 6, 1, 3, 0, 0, 0}},
      // shared rows: channels 9..16, 5x5 / 7x7, 2x2 / 4x4 pools, 1..4 input channels, padding, odd sizes
      {"c3_23x27_k12_r5_pool4", {7, 3, 23, 27, 12, 5, 0, 4, 4}},
      {"c1_19x21_k9_r5_p2_pool2", {7, 1, 19, 21, 9, 5, 2, 2, 2}},
      {"c2_30x26_k10_r7_p3_pool4", {7, 2, 30, 26, 10, 7, 3, 4, 4}},
      {"c4_41x37_k16_r7_pool4_floor", {1001, 4, 41, 37, 16, 7, 0, 4, 4}},
      // wgmma: 64 kept columns (one segment per tile), 3x3 kernels, one channel, batch 1
      {"c1_70x67_k8_r7_pool2_xw64", {5, 1, 70, 67, 8, 7, 0, 2, 2}},
      {"c4_22x19_k16_r3_pool4", {9, 4, 22, 19, 16, 3, 0, 4, 4}},
      {"c4_40x40_k13_r5_pool2_n1", {1, 4, 40, 40, 13, 5, 0, 2, 2}},
      // wgmma column shifts: one input channel, odd widths (element loads), padding, 3x3 / 5x5, 2-3 channels
      {"c1_33x29_k3_r5_pool2_odd", {5, 1, 33, 29, 3, 5, 0, 2, 2}},
      {"c1_20x21_k4_r3_p1_pool2", {3, 1, 20, 21, 4, 3, 1, 2, 2}},
      {"c1_86x86_k2_r7_p2_pool2", {2, 1, 86, 86, 2, 7, 2, 2, 2}},
  };
}

size_t in_count(const ConvPoolShape& s) { return static_cast<size_t>(s.n) * s.c * s.h * s.w; }
size_t out_count(const ConvPoolShape& s) { return static_cast<size_t>(s.n) * s.k * fc::pooled_h(s) * fc::pooled_w(s); }

struct Data {
  std::vector<float> x, w, b;
};

// Images in [0, 1); weights and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)). Fresh per case (seeded by it).
Data make_data(const ConvPoolShape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const float bound = 1.f / std::sqrt(static_cast<float>(s.c * s.r * s.r));
  std::uniform_real_distribution<float> u01(0.f, 1.f), uw(-bound, bound);
  Data d;
  d.x.resize(in_count(s));
  d.w.resize(static_cast<size_t>(s.k) * s.c * s.r * s.r);
  d.b.resize(s.k);
  for (auto& v : d.x) v = u01(rng);
  for (auto& v : d.w) v = uw(rng);
  for (auto& v : d.b) v = uw(rng);
  return d;
}

// Conv + bias + ReLU + MaxPool in float64, NCHW, one thread per group of images.
std::vector<double> reference(const ConvPoolShape& s, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b) {
  const int oh = fc::conv_out_size(s.h, s.r, s.pad), ow = fc::conv_out_size(s.w, s.r, s.pad);
  const int ph = fc::pooled_h(s), pw = fc::pooled_w(s);
  const int win = s.pool_window ? s.pool_window : 1, ps = s.pool_window ? s.pool_stride : 1;
  std::vector<double> out(out_count(s));
  auto image = [&](int img, std::vector<double>& conv) {
    for (int k = 0; k < s.k; ++k)
      for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox) {
          double acc = b[k];
          for (int c = 0; c < s.c; ++c)
            for (int ky = 0; ky < s.r; ++ky) {
              const int iy = oy + ky - s.pad;
              if (iy < 0 || iy >= s.h) continue;
              for (int kx = 0; kx < s.r; ++kx) {
                const int ix = ox + kx - s.pad;
                if (ix < 0 || ix >= s.w) continue;
                acc += static_cast<double>(x[((static_cast<size_t>(img) * s.c + c) * s.h + iy) * s.w + ix]) *
                       w[((static_cast<size_t>(k) * s.c + c) * s.r + ky) * s.r + kx];
              }
            }
          conv[(static_cast<size_t>(k) * oh + oy) * ow + ox] = std::max(acc, 0.0);
        }
    for (int k = 0; k < s.k; ++k)
      for (int py = 0; py < ph; ++py)
        for (int px = 0; px < pw; ++px) {
          double m = -INFINITY;
          for (int i = 0; i < win; ++i)
            for (int j = 0; j < win; ++j)
              m = std::max(m, conv[(static_cast<size_t>(k) * oh + py * ps + i) * ow + px * ps + j]);
          out[((static_cast<size_t>(img) * s.k + k) * ph + py) * pw + px] = m;
        }
  };
  const int nthreads = std::max(1, std::min<int>(std::thread::hardware_concurrency(), s.n));
  std::vector<std::thread> pool;
  for (int t = 0; t < nthreads; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> conv(static_cast<size_t>(s.k) * oh * ow);
      for (int img = t; img < s.n; img += nthreads) image(img, conv);
    });
  for (auto& th : pool) th.join();
  return out;
}

// The reference's conventions on a case checkable by hand: a 3x3 kernel whose centre tap is 1, padding 1, is the
// identity (inputs >= 0 survive ReLU), and MaxPool 2/2 floor-mode of a 5x5 map keeps rows/cols 0..3.
bool reference_self_check() {
  const ConvPoolShape s{1, 1, 5, 5, 1, 3, 1, 2, 2};
  std::vector<float> x(25), w(9, 0.f), b(1, 0.25f);
  for (int i = 0; i < 25; ++i) x[i] = float((i * 7) % 25) / 25.f;
  w[4] = 1.f;
  const std::vector<double> r = reference(s, x, w, b);
  bool ok = r.size() == 4;
  for (int py = 0; py < 2 && ok; ++py)
    for (int px = 0; px < 2; ++px) {
      const double want = 0.25 + std::max({x[(2 * py) * 5 + 2 * px], x[(2 * py) * 5 + 2 * px + 1],
                                           x[(2 * py + 1) * 5 + 2 * px], x[(2 * py + 1) * 5 + 2 * px + 1]});
      ok = ok && std::fabs(r[py * 2 + px] - want) < 1e-6;
    }
  printf("%s  reference self-check (identity kernel, pad 1, pool 2/2 floor)\n", ok ? "PASS" : "FAIL");
  return ok;
}

// make_data, redrawn until image 0 has a positive output: an all-zero (ReLU'd) reference would pass anything.
Data make_live_data(const ConvPoolShape& s, uint64_t seed) {
  for (;; seed += 7919) {
    Data d = make_data(s, seed);
    ConvPoolShape one = s;
    one.n = 1;
    const std::vector<float> x0(d.x.begin(), d.x.begin() + in_count(one));
    const std::vector<double> r = reference(one, x0, d.w, d.b);
    if (std::any_of(r.begin(), r.end(), [](double v) { return v > 0; })) return d;
  }
}

struct Errors {
  double rel_l2 = 0, max_rel = 0;
  size_t non_finite = 0;
};

// ||out - ref|| / ||ref|| and max|out - ref| / max|ref|; a non-finite output (unwritten: poisoned) is counted.
Errors compare(const std::vector<float>& out, const std::vector<double>& ref) {
  Errors e;
  double num = 0, den = 0, max_err = 0, max_ref = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++e.non_finite;
      continue;
    }
    const double d = out[i] - ref[i];
    num += d * d, den += ref[i] * ref[i];
    max_err = std::max(max_err, std::fabs(d)), max_ref = std::max(max_ref, std::fabs(ref[i]));
  }
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0);
  e.max_rel = max_ref > 0 ? max_err / max_ref : max_err;
  return e;
}

// ---- element types -----------------------------------------------------------------------------------------

enum class DT { kF32, kBF16, kF16 };
template <class T>
constexpr DT dt_of() {
  return std::is_same_v<T, float> ? DT::kF32 : std::is_same_v<T, __half> ? DT::kF16 : DT::kBF16;
}
size_t dt_size(DT t) { return t == DT::kF32 ? 4 : 2; }
const char* dt_name(DT t) { return t == DT::kF32 ? "f32" : t == DT::kF16 ? "f16" : "bf16"; }

// Host values as type `t` would hold them, and their bytes.
float quantize(float v, DT t) {
  return t == DT::kF32   ? v
         : t == DT::kF16 ? fc::to_float(fc::from_float<__half>(v))
                         : fc::to_float(fc::from_float<__nv_bfloat16>(v));
}
std::vector<unsigned char> to_bytes(const std::vector<float>& v, DT t) {
  std::vector<unsigned char> out(v.size() * dt_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DT::kF32) {
      memcpy(&out[i * 4], &v[i], 4);
    } else {
      const uint16_t bits = static_cast<uint16_t>(t == DT::kF16 ? fc::bits16(fc::from_float<__half>(v[i]))
                                                                : fc::bits16(fc::from_float<__nv_bfloat16>(v[i])));
      memcpy(&out[i * 2], &bits, 2);
    }
  }
  return out;
}
std::vector<float> from_bytes(const std::vector<unsigned char>& b, DT t, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (t == DT::kF32) {
      memcpy(&out[i], &b[i * 4], 4);
    } else {
      uint16_t bits;
      memcpy(&bits, &b[i * 2], 2);
      out[i] = t == DT::kF16 ? fc::WordF16::unpack(bits, 0) : fc::WordBf16::unpack(bits, 0);
    }
  }
  return out;
}

// ---- CPU emulation of the tensor-core path -----------------------------------------------------------------
// The kernels' own index functions (staging, pixel and k-word offsets, the A gather, B packing, C stores, the
// pool epilogue) run on the CPU; only mma.sync is replaced, by a product whose register layout comes from the
// PTX ISA tables for m16n8k16 (.bf16/.f16) and m16n8k8 (.tf32), written independently of the kernel's view.
// The result must match a float64 reference computed on the same rounded operands.

// (row, col) of element `e` of A register `reg` of `lane`. PTX ISA "Matrix Fragments for mma.m16n8k16 with
// floating point type": a_i, i = 0..7, two per .b32 register, lower index in the low half:
// row = groupID (+8 for a2,a3,a6,a7), col = 2*threadID_in_group + (i & 1) (+8 for a4..a7).
// m16n8k8 .tf32: a_i, i = 0..3: row = groupID (+8 for a1, a3), col = threadID_in_group (+4 for a2, a3).
void isa_a_coord(int e_per_word, int lane, int reg, int e, int* row, int* col) {
  const int g = lane >> 2, t = lane & 3;
  if (e_per_word == 2) {
    const int i = 2 * reg + e;
    *row = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0);
    *col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
  } else {
    *row = g + (reg == 1 || reg == 3 ? 8 : 0);
    *col = t + (reg >= 2 ? 4 : 0);
  }
}
// B (k x 8): m16n8k16: b_i, i = 0..3: row = 2*threadID_in_group + (i & 1) (+8 for b2, b3), col = groupID.
// m16n8k8 .tf32: b0 row threadID_in_group, b1 row threadID_in_group + 4, col groupID.
void isa_b_coord(int e_per_word, int lane, int reg, int e, int* row, int* col) {
  const int g = lane >> 2, t = lane & 3;
  if (e_per_word == 2) {
    const int i = 2 * reg + e;
    *row = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
  } else {
    *row = t + (reg == 1 ? 4 : 0);
  }
  *col = g;
}
// C/D (16 x 8 f32): c_i: row = groupID (+8 for c2, c3), col = 2*threadID_in_group + (i & 1).
void isa_c_coord(int lane, int i, int* row, int* col) {
  *row = (lane >> 2) + (i >= 2 ? 8 : 0);
  *col = 2 * (lane & 3) + (i & 1);
}

// One warp-wide mma.sync on the 32 lanes' registers. False if the fragments do not tile A and B exactly once.
template <class Word>
bool emulated_mma(double (&acc)[32][4], const uint32_t (&a)[32][4], const uint2 (&b)[32]) {
  constexpr int kK = 8 * Word::kE;
  double A[16][16] = {}, B[16][8] = {};
  int seen_a[16][16] = {}, seen_b[16][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < 4; ++reg)
      for (int e = 0; e < Word::kE; ++e) {
        int row, col;
        isa_a_coord(Word::kE, lane, reg, e, &row, &col);
        A[row][col] = Word::unpack(a[lane][reg], e);
        ++seen_a[row][col];
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int e = 0; e < Word::kE; ++e) {
        int row, col;
        isa_b_coord(Word::kE, lane, reg, e, &row, &col);
        B[row][col] = Word::unpack(reg ? b[lane].y : b[lane].x, e);
        ++seen_b[row][col];
      }
  }
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < kK; ++j)
      if (seen_a[i][j] != 1) return false;
  for (int i = 0; i < kK; ++i)
    for (int j = 0; j < 8; ++j)
      if (seen_b[i][j] != 1) return false;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      int row, col;
      isa_c_coord(lane, i, &row, &col);
      for (int k = 0; k < kK; ++k) acc[lane][i] += A[row][k] * B[k][col];
    }
  return true;
}

// The float64 reference on the operands as the kernel rounds them (inputs and weights to Word's type).
template <class Word>
std::vector<double> rounded_reference(const ConvPoolShape& s, const Data& d) {
  auto q = [](float v) {
    const float pair[2] = {v, 0.f};
    return Word::unpack(Word::pack(pair), 0);
  };
  std::vector<float> xq(d.x.size()), wq(d.w.size());
  std::transform(d.x.begin(), d.x.end(), xq.begin(), q);
  std::transform(d.w.begin(), d.w.end(), wq.begin(), q);
  return reference(s, xq, wq, d.b);
}

struct EmuConfig {
  const char* name;
  int warps, mtiles, target_pixels;
};

// Replays one launch of the mma/tf32 kernel (Word) or the ffma kernel (Word = WordF32) tile by tile.
template <class Word>
bool emulate_case(const Case& cs, Variant v, const EmuConfig& cfg, uint64_t seed) {
  const ConvPoolShape& s = cs.s;
  const Data d = make_live_data(s, seed);
  fc::TilePlan p;
  std::string why;
  if (!fc::make_plan(s, v, cfg.target_pixels, fc::kDefaultSmemLimit, &p, &why)) {
    printf("FAIL  emulate %-5s %-12s %-36s plan: %s\n", Word::kE == 2 ? "16bit" : "32bit", cfg.name, cs.name,
           why.c_str());
    return false;
  }
  std::vector<unsigned char> wpk(fc::packed_weight_bytes(s, v) + 16);
  fc::pack_weights(s, v, d.w.data(), wpk.data());
  const uint2* w2 = reinterpret_cast<const uint2*>(wpk.data());
  std::vector<int2> kofs(p.kchunks * 4);
  for (int i = 0; i < p.kchunks * 4; ++i) kofs[i] = fc::kofs_entry(p, i >> 2, i & 3);
  const size_t in_words = static_cast<size_t>(p.g) * p.img_words;
  std::vector<uint32_t> s_in(in_words);
  std::vector<float> ct(static_cast<size_t>(p.k) * p.ct_stride);
  std::vector<float> y(out_count(s), NAN);
  const uint32_t kPoison = 0xDEADBEEFu;  // no packed input in [0, 1) has these bits
  bool ok = true;
  for (int tile = 0; tile < p.tiles && ok; ++tile) {
    const fc::TileCoord t = fc::tile_coord(p, tile);
    std::fill(s_in.begin(), s_in.end(), kPoison);
    std::fill(ct.begin(), ct.end(), 1e30f);  // an unwritten conv value shows up in the pooled output
    for (int lane = 0; lane < 32; ++lane) fc::stage_input<Word>(p, d.x.data(), t, s_in.data(), 0, 1, lane);
    if (std::count(s_in.begin(), s_in.end(), kPoison)) {
      printf("  staging left words unwritten (tile %d)\n", tile);
      ok = false;
      break;
    }
    if (v == Variant::kFfma) {
      const int blocks = (p.np / 4) * ((p.g * p.crb + 3) / 4) * ((p.cwk + 31) / 32);
      for (int b = 0; b < blocks; ++b)
        for (int lane = 0; lane < 32; ++lane)
          fc::ffma_block(p, reinterpret_cast<const float*>(s_in.data()), reinterpret_cast<const float4*>(wpk.data()),
                         ct.data(), b, lane);
    } else {
      const int passes = (p.mtiles + cfg.mtiles - 1) / cfg.mtiles;
      for (int warp = 0; warp < cfg.warps; ++warp)
        for (int pass = warp; pass < passes && ok; pass += cfg.warps)
          for (int mt = 0; mt < cfg.mtiles && ok; ++mt) {
            const int mtile = pass * cfg.mtiles + mt;
            int lo[32], hi[32];
            for (int lane = 0; lane < 32; ++lane) fc::lane_pixels(p, mtile, lane, &lo[lane], &hi[lane]);
            for (int j = 0; j < p.np && ok; ++j) {
              double acc[32][4] = {};
              for (int kc = 0; kc < p.kchunks && ok; ++kc) {
                uint32_t a[32][4];
                uint2 b[32];
                for (int lane = 0; lane < 32; ++lane) {
                  int idx[4];
                  fc::a_frag_index(lo[lane], hi[lane], kofs[kc * 4 + (lane & 3)], idx);
                  for (int r = 0; r < 4; ++r) {
                    if (idx[r] < 0 || static_cast<size_t>(idx[r]) >= in_words) {
                      printf("  A gather out of the staged tile: %d of %zu\n", idx[r], in_words);
                      ok = false;
                      idx[r] = 0;
                    }
                    a[lane][r] = s_in[idx[r]];
                  }
                  b[lane] = w2[fc::wpk_index(kc, j, lane, p.np)];
                }
                if (!emulated_mma<Word>(acc, a, b)) {
                  printf("  fragments do not cover the MMA operands exactly once\n");
                  ok = false;
                }
              }
              for (int lane = 0; lane < 32; ++lane) {
                const float c[4] = {float(acc[lane][0]), float(acc[lane][1]), float(acc[lane][2]), float(acc[lane][3])};
                fc::store_c(p, ct.data(), mtile * 16, j, lane, c);
              }
            }
          }
    }
    fc::pool_store(p, ct.data(), d.b.data(), y.data(), t, 0, 1);
  }
  const Errors e = compare(y, rounded_reference<Word>(s, d));
  const double tol = v == Variant::kFfma ? 1e-5 : 1e-6;
  ok = ok && e.non_finite == 0 && e.rel_l2 <= tol && e.max_rel <= tol;
  const char* vname = v == Variant::kFfma      ? "ffma"
                      : v == Variant::kTf32    ? "tf32"
                      : v == Variant::kMmaBf16 ? "bf16"
                                               : "f16";
  printf("%s  emulate %-5s %-12s %-36s g=%d pb=%d pcb=%d tiles=%d rel_l2 %.2e max_rel %.2e unwritten %zu (tol %.0e)\n",
         ok ? "PASS" : "FAIL", vname, cfg.name, cs.name, p.g, p.pb, p.pcb, p.tiles, e.rel_l2, e.max_rel, e.non_finite,
         tol);
  return ok;
}

// Replays one launch of the column kernel (fused_conv_columns.cuh) tile by tile, lane by lane, rows per lane RO.
template <int R, int RO>
bool emulate_columns_r(const Case& cs, int target_pixels, uint64_t seed) {
  const ConvPoolShape& s = cs.s;
  const Data d = make_live_data(s, seed);
  fc::TilePlan p;
  std::string why;
  if (!fc::make_column_plan(s, RO, target_pixels, fc::kDefaultSmemLimit, &p, &why)) {
    printf("n/a   emulate cols  r%-2d px%-5d %-36s %s\n", RO, target_pixels, cs.name, why.c_str());
    return true;  // a shape the column kernel declines runs on the pixels-on-M kernel
  }
  p.vpool = std::min(p.vpool, 1);  // the pool across lanes (vpool 2) needs warp shuffles: the GPU runs check it
  std::vector<float> wpk(fc::packed_weight_bytes(s, Variant::kFfma) / 4);
  fc::pack_weights(s, Variant::kFfma, d.w.data(), wpk.data());
  std::vector<float4> s_w(wpk.size() / 4);
  fc::stage_column_weights(p, reinterpret_cast<const float4*>(wpk.data()), s_w.data(), 0, 1);
  std::vector<float> s_in(static_cast<size_t>(p.g) * p.img_words + 4);
  std::vector<float> ct(static_cast<size_t>(p.k) * p.ct_stride);
  std::vector<float> y(out_count(s), NAN);
  const float kPoison = -12345.f;
  bool ok = true;
  const int blocks = fc::column_blocks(p, RO);
  for (int tile = 0; tile < p.tiles && ok; ++tile) {
    const fc::TileCoord t = fc::tile_coord(p, tile);
    std::fill(s_in.begin(), s_in.end() - 4, kPoison);
    std::fill(ct.begin(), ct.end(), 1e30f);  // an unwritten conv value shows up in the pooled output
    for (int warp = 0; warp < 3; ++warp)
      for (int lane = 0; lane < 32; ++lane) fc::stage_columns(p, d.x.data(), t, s_in.data(), warp, 3, lane);
    if (std::count(s_in.begin(), s_in.end() - 4, kPoison) !=
        static_cast<long>(p.g * p.c * (p.cwk + p.r - 1)) * (p.ws - p.irb)) {
      printf("  staging left words unwritten (tile %d)\n", tile);
      ok = false;
    }
    for (int b = 0; b < blocks; ++b)
      for (int lane = 0; lane < 32; ++lane)
        fc::column_block<R, RO, 0>(p, s_in.data(), s_w.data(), ct.data(), b, lane, t, d.b.data(), y.data());
    fc::pool_store(p, ct.data(), d.b.data(), y.data(), t, 0, 1);
  }
  const Errors e = compare(y, rounded_reference<fc::WordF32>(s, d));
  ok = ok && e.non_finite == 0 && e.rel_l2 <= 1e-5 && e.max_rel <= 1e-5;
  printf(
      "%s  emulate cols  r%-2d px%-5d %-36s g=%d pb=%d pcb=%d tiles=%d vpool=%d rel_l2 %.2e max_rel %.2e unwritten "
      "%zu (tol 1e-05)\n",
      ok ? "PASS" : "FAIL", RO, target_pixels, cs.name, p.g, p.pb, p.pcb, p.tiles, p.vpool, e.rel_l2, e.max_rel,
      e.non_finite);
  return ok;
}

template <int RO>
bool emulate_columns_case(const Case& cs, int target_pixels, uint64_t seed) {
  switch (cs.s.r) {
    case 3:
      return emulate_columns_r<3, RO>(cs, target_pixels, seed);
    case 4:
      return emulate_columns_r<4, RO>(cs, target_pixels, seed);
    case 5:
      return emulate_columns_r<5, RO>(cs, target_pixels, seed);
    case 6:
      return emulate_columns_r<6, RO>(cs, target_pixels, seed);
    default:
      return emulate_columns_r<7, RO>(cs, target_pixels, seed);
  }
}

// FastDiv against plain division: every divisor 1..4096 on edge dividends, then random pairs up to 2^31 - 1.
bool fastdiv_self_check() {
  std::mt19937_64 rng(99);
  int bad = 0;
  auto check = [&](int n, int d) {
    const fc::FastDiv f(d);
    const int q = f.div(n);
    if (q != n / d || f.mod(n, q) != n % d) ++bad;
  };
  for (int d = 1; d <= 4096; ++d)
    for (int n : {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, 12345 * d - 1, 2147483647, 2147483646, 1 << 30})
      if (n >= 0) check(n, d);
  for (int i = 0; i < 2000000; ++i) check(static_cast<int>(rng() & 0x7fffffff), 1 + static_cast<int>(rng() % 100000));
  printf("%s  FastDiv against division (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad == 0;
}

// The register epilogue of n-tile j (the kernels' reg_pool_epilogue / unpooled_epilogue), lane by lane in lockstep.
void emulate_reg_epilogue(const fc::StackedPlan& p, const fc::PoolDst<float> (&dst)[32], int col0, int j,
                          const float (&pm)[32][4]) {
  if (p.win == 1) {
    for (int lane = 0; lane < 32; ++lane) {
      const int col = col0 + 8 * j + 2 * (lane & 3);
      fc::pool_write(dst[lane], col, pm[lane][0], pm[lane][2]);
      fc::pool_write(dst[lane], col + 1, pm[lane][1], pm[lane][3]);
    }
    return;
  }
  float v[32], w[32], v2[32], w2[32];
  for (int l = 0; l < 32; ++l) v[l] = fc::nan_max(pm[l][0], pm[l][1]), w[l] = fc::nan_max(pm[l][2], pm[l][3]);
  auto xor_step = [&](int mask) {
    for (int l = 0; l < 32; ++l) v2[l] = fc::nan_max(v[l], v[l ^ mask]), w2[l] = fc::nan_max(w[l], w[l ^ mask]);
    std::copy(v2, v2 + 32, v), std::copy(w2, w2 + 32, w);
  };
  for (int i = 0; i < p.rp_nm; ++i) xor_step(p.rp_mask[i]);
  if (p.rp_inlane)
    for (int l = 0; l < 32; ++l) v[l] = w[l] = fc::nan_max(v[l], w[l]);
  for (int i = 0; i < p.rp_nc; ++i) xor_step(1 << i);
  for (int lane = 0; lane < 32; ++lane) {  // one output per lane when rows combine across lanes
    const int pcol = (col0 + 8 * j + 2 * (lane & 3)) >> p.log2w;
    if (p.rp_nm > 0)
      fc::pool_write_one(dst[lane], pcol, dst[lane].one_is_w ? w[lane] : v[lane]);
    else
      fc::pool_write(dst[lane], pcol, v[lane], w[lane]);
  }
}

// Replays one launch of the stacked kernel tile by tile and unit by unit, with the kernel's own index functions
// and the MMA from the PTX ISA fragment tables.
template <class Word>
bool emulate_stacked_case(const Case& cs, Variant v, int nw, int target_pixels, uint64_t seed) {
  const ConvPoolShape& s = cs.s;
  const Data d = make_live_data(s, seed);
  fc::StackedPlan p;
  std::string why;
  if (!fc::make_stacked_plan(s, v, nw, target_pixels, fc::kDefaultSmemLimit, &p, &why)) {
    printf("n/a   emulate stacked nw=%d %-36s: %s\n", nw, cs.name, why.c_str());
    return true;
  }
  std::vector<unsigned char> wpk(fc::stacked_weight_bytes(s, v) + 16);
  fc::stacked_pack_weights(s, v, d.w.data(), wpk.data());
  const uint4* w4 = reinterpret_cast<const uint4*>(wpk.data());
  const size_t in_words = static_cast<size_t>(p.g) * p.img_words;
  std::vector<uint32_t> s_in(in_words);
  std::vector<float> ct(static_cast<size_t>(p.k) * p.ct_stride);
  std::vector<float> y(out_count(s), NAN);
  const uint32_t kPoison = 0xDEADBEEFu;
  bool ok = true;
  for (int tile = 0; tile < p.tiles && ok; ++tile) {
    const fc::TileCoord t = fc::stacked_tile_coord(p, tile);
    std::fill(s_in.begin(), s_in.end(), kPoison);
    std::fill(ct.begin(), ct.end(), 1e30f);
    if (p.flat)
      fc::stacked_stage_flat<Word>(p, d.x.data(), t, s_in.data(), 0, 1);
    else
      for (int lane = 0; lane < 32; ++lane) fc::stacked_stage<Word>(p, d.x.data(), t, s_in.data(), 0, 1, lane);
    if (std::count(s_in.begin(), s_in.end(), kPoison)) {
      printf("  staging left words unwritten (tile %d)\n", tile);
      ok = false;
      break;
    }
    if constexpr (Word::kE == 2) {  // 16-bit input of the operand's type takes the paired-load path: same words
      using T16 = std::conditional_t<std::is_same_v<Word, fc::WordF16>, __half, __nv_bfloat16>;
      std::vector<T16> x16(d.x.size());
      for (size_t i = 0; i < x16.size(); ++i) x16[i] = fc::from_float<T16>(d.x[i]);
      std::vector<uint32_t> s_in16(in_words, kPoison);
      if (p.flat)
        fc::stacked_stage_flat<Word>(p, x16.data(), t, s_in16.data(), 0, 1);
      else
        for (int lane = 0; lane < 32; ++lane) fc::stacked_stage<Word>(p, x16.data(), t, s_in16.data(), 0, 1, lane);
      if (s_in16 != s_in) {
        printf("  16-bit staging differs from the generic one (tile %d)\n", tile);
        ok = false;
        break;
      }
    }
    for (int u = 0; u < p.units && ok; ++u) {
      fc::StackedUnit su[32];
      fc::PoolDst<float> dst[32];
      for (int lane = 0; lane < 32; ++lane) {
        su[lane] = fc::stacked_unit(p, u, lane);
        dst[lane] = fc::pool_dst(p, t, su[lane], lane, d.b.data(), y.data());
      }
      for (int q = 0; q < p.groups && ok; ++q)
        for (int j = 0; j < nw && ok; ++j) {
          const int col0 = q * nw * 8;
          float pm[32][4];
          for (int rr = 0; rr < p.rpu && ok; ++rr) {
            double acc[32][4] = {};
            for (int ks = 0; ks < p.ksteps && ok; ++ks) {
              uint32_t a[32][4];
              uint2 b[32];
              for (int lane = 0; lane < 32; ++lane) {
                const uint4 av = w4[ks * 32 + lane];
                a[lane][0] = av.x, a[lane][1] = av.y, a[lane][2] = av.z, a[lane][3] = av.w;
                const int2 ko = fc::stacked_kofs_entry(p, ks, lane & 3);
                const long row = su[lane].base + col0 + rr * p.dy * p.ws;
                const long i0 = row + ko.x + 8 * j, i1 = row + ko.y + 8 * j;
                if (i0 < 0 || i1 < 0 || static_cast<size_t>(i0) >= in_words || static_cast<size_t>(i1) >= in_words) {
                  printf("  B gather out of the staged tile: %ld / %ld of %zu\n", i0, i1, in_words);
                  ok = false;
                  break;
                }
                b[lane] = make_uint2(s_in[i0], s_in[i1]);
              }
              if (ok && !emulated_mma<Word>(acc, a, b)) {
                printf("  fragments do not cover the MMA operands exactly once\n");
                ok = false;
              }
            }
            for (int lane = 0; lane < 32; ++lane)
              for (int i = 0; i < 4; ++i)
                pm[lane][i] = rr ? fc::nan_max(pm[lane][i], float(acc[lane][i])) : float(acc[lane][i]);
          }
          if (!p.reg_pool) {
            for (int lane = 0; lane < 32; ++lane) fc::stacked_store(p, ct.data(), su[lane], col0, j, lane, pm[lane]);
          } else {
            emulate_reg_epilogue(p, dst, col0, j, pm);
          }
        }
    }
    if (!p.reg_pool) fc::stacked_pool_store(p, ct.data(), d.b.data(), y.data(), t, 0, 1);
  }
  const Errors e = compare(y, rounded_reference<Word>(s, d));
  const double tol = 1e-6;
  ok = ok && e.non_finite == 0 && e.rel_l2 <= tol && e.max_rel <= tol;
  const char* vname = v == Variant::kTf32 ? "tf32" : v == Variant::kMmaBf16 ? "bf16" : "f16";
  printf(
      "%s  emulate stacked %-4s nw=%d px%-5d %-36s kp=%d dy=%d ks=%d %s%s rpu=%d g=%d pb=%d pcb=%d units=%d "
      "tiles=%d rel_l2 %.2e unwritten %zu\n",
      ok ? "PASS" : "FAIL", vname, nw, target_pixels, cs.name, p.kp, p.dy, p.ksteps,
      p.reg_pool ? "regpool" : "smempool", p.flat ? " flat" : "", p.rpu, p.g, p.pb, p.pcb, p.units, p.tiles, e.rel_l2,
      e.non_finite);
  return ok;
}

// Replays one launch of the ldsm kernel (fused_conv_ldsm.cuh): its staging (from the input, and from the raw band
// copies the prefetch makes, with the bytes past each band poisoned), its per-lane ldmatrix addresses, ldmatrix
// itself from the PTX ISA ("each of the 8 rows ... thread t receives row t / 4, elements 2 (t % 4), + 1 of each
// matrix"), the MMA from the fragment tables, and the register epilogue.
template <class Word>
bool emulate_ldsm_case(const Case& cs, Variant v, int nw, int target_pixels, uint64_t seed) {
  using T16 = std::conditional_t<std::is_same_v<Word, fc::WordF16>, __half, __nv_bfloat16>;
  const ConvPoolShape& s = cs.s;
  const Data d = make_live_data(s, seed);
  fc::LdsmPlan p;
  std::string why;
  if (!fc::make_ldsm_plan(s, v, nw, target_pixels, fc::kDefaultSmemLimit, &p, &why, 2)) {
    printf("n/a   emulate ldsm nw=%d %-36s: %s\n", nw, cs.name, why.c_str());
    return true;
  }
  std::vector<unsigned char> wpk(fc::ldsm_weight_bytes(s, v) + 16);
  fc::ldsm_pack_weights(s, v, d.w.data(), wpk.data());
  const uint4* w4 = reinterpret_cast<const uint4*>(wpk.data());
  std::vector<T16> x16(d.x.size());
  for (size_t i = 0; i < x16.size(); ++i) x16[i] = fc::from_float<T16>(d.x[i]);
  const size_t bytes = static_cast<size_t>(p.g) * p.img_bytes;
  std::vector<unsigned char> s_in(bytes), s_alt(bytes), raw(static_cast<size_t>(p.g) * p.c * p.raw_band_bytes);
  std::vector<float> y(out_count(s), NAN);
  bool ok = true;
  auto data_bytes_equal = [&](const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
    for (size_t row = 0; row < static_cast<size_t>(p.g) * p.c * p.irb; ++row)
      for (int cc = 0; cc < p.ws; ++cc) {
        const size_t at = row * p.row_bytes + cc * fc::kLdsmEntryBytes;
        if (memcmp(&a[at], &b[at], 128)) return false;
      }
    return true;
  };
  for (int tile = 0; tile < p.tiles && ok; ++tile) {
    const fc::TileCoord t = fc::stacked_tile_coord(p, tile);
    std::fill(s_in.begin(), s_in.end(), 0xEE);  // 0xEEEE: no input in [0, 1) has these bits
    fc::ldsm_stage<Word, float, false>(p, d.x.data(), t, nullptr, s_in.data(), 0, 1);
    for (size_t row = 0; row < static_cast<size_t>(p.g) * p.c * p.irb && ok; ++row)
      for (int cc = 0; cc < p.ws && ok; ++cc)
        for (int h = 0; h < 64; ++h) {
          uint16_t u;
          memcpy(&u, &s_in[row * p.row_bytes + cc * fc::kLdsmEntryBytes + 2 * h], 2);
          if (u == 0xEEEE) {
            printf("  staging left entry bytes unwritten (tile %d row %zu chunk %d)\n", tile, row, cc);
            ok = false;
            break;
          }
        }
    // 16-bit input of the operand's type (word loads) and the raw band copies: the same entries
    std::fill(s_alt.begin(), s_alt.end(), 0xEE);
    fc::ldsm_stage<Word, T16, false>(p, x16.data(), t, nullptr, s_alt.data(), 0, 1);
    if (ok && !data_bytes_equal(s_in, s_alt)) {
      printf("  16-bit staging differs from the float one (tile %d)\n", tile);
      ok = false;
    }
    if (ok && p.prefetch) {
      std::fill(raw.begin(), raw.end(), 0xFF);  // NaN bits past each band: must not be read
      for (int seg = 0; seg < p.g * p.c; ++seg) {
        const fc::BandRun<T16> b = fc::stacked_band(p, x16.data(), t, seg);
        const int lead = static_cast<int>(reinterpret_cast<uintptr_t>(b.src) & 15);
        const int nbytes = b.len > 0 ? lead + b.len * 2 : 0;
        if (fc::round_up(nbytes, 16) > p.raw_band_bytes) {  // stacked_prefetch writes whole 16-byte chunks
          printf("  band %d's copy (%d bytes from lead %d) overruns its %d raw bytes\n", seg, fc::round_up(nbytes, 16),
                 lead, p.raw_band_bytes);
          ok = false;
          break;
        }
        if (nbytes)
          memcpy(&raw[static_cast<size_t>(seg) * p.raw_band_bytes],
                 reinterpret_cast<const unsigned char*>(b.src) - lead, nbytes);
      }
      std::fill(s_alt.begin(), s_alt.end(), 0xEE);
      if (ok) fc::ldsm_stage<Word, T16, true>(p, x16.data(), t, raw.data(), s_alt.data(), 0, 1);
      if (ok && !data_bytes_equal(s_in, s_alt)) {
        printf("  staging from the raw band copies differs (tile %d)\n", tile);
        ok = false;
      }
    }
    for (int u = 0; u < p.units && ok; ++u) {
      fc::StackedUnit su[32];
      fc::PoolDst<float> dst[32];
      for (int lane = 0; lane < 32; ++lane) {
        su[lane] = fc::stacked_unit(p, u, lane);
        dst[lane] = fc::pool_dst(p, t, su[lane], lane, d.b.data(), y.data());
      }
      for (int q = 0; q < p.groups && ok; ++q)
        for (int j = 0; j < nw && ok; ++j) {
          const int col0 = q * nw * 8;
          float pm[32][4];
          for (int rr = 0; rr < p.rpu && ok; ++rr) {
            double acc[32][4] = {};
            for (int i = 0; 2 * i < p.ksteps && ok; ++i) {
              long addr[32];
              for (int lane = 0; lane < 32; ++lane) {
                addr[lane] = fc::ldsm_unit_offset(p, su[lane].gi, su[lane].rb) + rr * p.dy * p.row_bytes +
                             (q * nw + j) * fc::kLdsmEntryBytes + fc::ldsm_lane_offset(p, i, lane);
                if (addr[lane] < 0 || addr[lane] + 16 > static_cast<long>(bytes) || addr[lane] % 16) {
                  printf("  ldmatrix row address outside the staged tile or misaligned: %ld of %zu\n", addr[lane],
                         bytes);
                  ok = false;
                  addr[lane] = 0;
                }
              }
              uint32_t regs[32][4];
              for (int lane = 0; lane < 32; ++lane)
                for (int m = 0; m < 4; ++m) memcpy(&regs[lane][m], &s_in[addr[8 * m + lane / 4] + 4 * (lane % 4)], 4);
              for (int half = 0; half < 2 && 2 * i + half < p.ksteps && ok; ++half) {
                uint32_t a[32][4];
                uint2 b[32];
                for (int lane = 0; lane < 32; ++lane) {
                  const uint4 av = w4[(2 * i + half) * 32 + lane];
                  a[lane][0] = av.x, a[lane][1] = av.y, a[lane][2] = av.z, a[lane][3] = av.w;
                  b[lane] = make_uint2(regs[lane][2 * half], regs[lane][2 * half + 1]);
                }
                if (!emulated_mma<Word>(acc, a, b)) {
                  printf("  fragments do not cover the MMA operands exactly once\n");
                  ok = false;
                }
              }
            }
            for (int lane = 0; lane < 32; ++lane)
              for (int i = 0; i < 4; ++i)
                pm[lane][i] = rr ? fc::nan_max(pm[lane][i], float(acc[lane][i])) : float(acc[lane][i]);
          }
          emulate_reg_epilogue(p, dst, col0, j, pm);
        }
    }
  }
  const Errors e = compare(y, rounded_reference<Word>(s, d));
  const double tol = 1e-6;
  ok = ok && e.non_finite == 0 && e.rel_l2 <= tol && e.max_rel <= tol;
  printf(
      "%s  emulate ldsm %-4s nw=%d px%-5d %-36s kp=%d dy=%d ks=%d rpu=%d%s g=%d pb=%d pcb=%d units=%d tiles=%d "
      "smem %d rel_l2 %.2e unwritten %zu\n",
      ok ? "PASS" : "FAIL", v == Variant::kMmaBf16 ? "bf16" : "f16", nw, target_pixels, cs.name, p.kp, p.dy, p.ksteps,
      p.rpu, p.prefetch ? " prefetch" : "", p.g, p.pb, p.pcb, p.units, p.tiles, p.smem_bytes, e.rel_l2, e.non_finite);
  return ok;
}

int run_emulation() {
  printf("== CPU emulation of the kernels' index math (MMA from the PTX ISA fragment tables) ==\n");
  std::vector<Case> cases = {
      {"conv1 n=1", conv1(1)},
      {"conv2 n=1", conv2(1)},
      {"c3_11x11_k10_r5_p2_pool3s2 n=3", {3, 3, 11, 11, 10, 5, 2, 3, 2}},
      {"c16_17x17_k64_r3_p1_nopool", {1, 16, 17, 17, 64, 3, 1, 0, 0}},
      {"c2_9x300_k8_r4_p1_pool2 n=2", {2, 2, 9, 300, 8, 4, 1, 2, 2}},
      {"c4_31x29_k16_r7_pool2", {1, 4, 31, 29, 16, 7, 0, 2, 2}},
      {"c16_12x12_k64_r7_p3_pool2", {1, 16, 12, 12, 64, 7, 3, 2, 2}},
      {"c1_5x6_k1_r3_nopool n=5", {5, 1, 5, 6, 1, 3, 0, 0, 0}},
      {"c3_13x11_k5_r3_p1_pool2 n=3 (kp 8)", {3, 3, 13, 11, 5, 3, 1, 2, 2}},
      {"c2_19x23_k2_r5_pool3s2 n=2 (kp 2)", {2, 2, 19, 23, 2, 5, 0, 3, 2}},
      {"c1_40x140_k4_r7_p3_pool2 (colblocks)", {1, 1, 40, 140, 4, 7, 3, 2, 2}},
      {"c1_21x37_k1_r3_p1_pool4 n=2 (kp 1)", {2, 1, 21, 37, 1, 3, 1, 4, 4}},
      {"c2_23x19_k2_r5_pool2 (kp 2)", {1, 2, 23, 19, 2, 5, 0, 2, 2}},
      {"c1_30x30_k7_r3_pool8 (kp 8, window 8)", {1, 1, 30, 30, 7, 3, 0, 8, 8}},
      {"c2_20x21_k16_r3_p1_pool2 (kp 16)", {1, 2, 20, 21, 16, 3, 1, 2, 2}},
      {"c1_17x19_k12_r5_p2_nopool (kp 16)", {2, 1, 17, 19, 12, 5, 2, 0, 0}},
      {"c3_15x15_k3_r3_nopool (kp 4)", {2, 3, 15, 15, 3, 3, 0, 0, 0}},
  };
  const EmuConfig cfgs[] = {
      {fc::ConvTileSmall::kName, fc::ConvTileSmall::kWarps, fc::ConvTileSmall::kMTiles,
       fc::ConvTileSmall::kTargetPixels},
      {fc::ConvTileLarge::kName, fc::ConvTileLarge::kWarps, fc::ConvTileLarge::kMTiles,
       fc::ConvTileLarge::kTargetPixels},
      {"tiny_px48", 3, 3, 48},  // many tiles, bands and column blocks on small shapes
  };
  int failures = 0;
  uint64_t seed = 1000;
  for (const Case& cs : cases) {
    std::string why;
    if (!fc::supported(cs.s, &why)) {
      printf("FAIL  %s: not supported: %s\n", cs.name, why.c_str());
      ++failures;
      continue;
    }
    for (const EmuConfig& cfg : cfgs) {
      ++seed;
      failures += !emulate_case<fc::WordBf16>(cs, Variant::kMmaBf16, cfg, seed);
      failures += !emulate_case<fc::WordF16>(cs, Variant::kMmaF16, cfg, seed);
      failures += !emulate_case<fc::WordTf32>(cs, Variant::kTf32, cfg, seed);
      failures += !emulate_case<fc::WordF32>(cs, Variant::kFfma, cfg, seed);
    }
    for (int nw : {1, 2, 5})
      for (int px : {48, 2048}) {
        ++seed;
        failures += !emulate_stacked_case<fc::WordBf16>(cs, Variant::kMmaBf16, nw, px, seed);
        failures += !emulate_stacked_case<fc::WordF16>(cs, Variant::kMmaF16, nw, px, seed);
        failures += !emulate_stacked_case<fc::WordTf32>(cs, Variant::kTf32, nw, px, seed);
        failures += !emulate_ldsm_case<fc::WordBf16>(cs, Variant::kMmaBf16, nw, px, seed);
        failures += !emulate_ldsm_case<fc::WordF16>(cs, Variant::kMmaF16, nw, px, seed);
      }
    for (int px : {1600, 3200}) {  // the ldsm configurations (conv1: quarter and half images)
      ++seed;
      failures += !emulate_ldsm_case<fc::WordBf16>(cs, Variant::kMmaBf16, 5, px, seed);
    }
    for (int px : {48, 1024, 3200}) {  // the column kernel: small tiles (many bands), its configurations' sizes
      ++seed;
      failures += !emulate_columns_case<8>(cs, px, seed);
      failures += !emulate_columns_case<16>(cs, px, seed);
    }
  }
  // The supported() boundary.
  const struct {
    ConvPoolShape s;
    bool want;
  } edges[] = {{{1, 17, 8, 8, 4, 3, 0, 0, 0}, false}, {{1, 1, 8, 8, 65, 3, 0, 0, 0}, false},
               {{1, 1, 8, 8, 4, 2, 0, 0, 0}, false},  {{1, 1, 8, 8, 4, 3, 2, 0, 0}, false},
               {{1, 1, 8, 8, 4, 3, 0, 2, 3}, false},  {{1, 1, 4, 4, 4, 5, 0, 0, 0}, false},
               {{1, 1, 8, 8, 4, 3, 1, 8, 8}, true},   {{1, 16, 9, 9, 64, 7, 3, 9, 1}, true}};
  for (const auto& ed : edges) {
    std::string why;
    const bool got = fc::supported(ed.s, &why);
    if (got != ed.want) {
      printf("FAIL  supported(c=%d k=%d r=%d pad=%d pool %d/%d) = %d\n", ed.s.c, ed.s.k, ed.s.r, ed.s.pad,
             ed.s.pool_window, ed.s.pool_stride, got);
      ++failures;
    }
  }
  printf("emulation: %s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
  return failures;
}

// ---- GPU runs ----------------------------------------------------------------------------------------------

#define CUDA_CHECK(expr)                                                                                    \
  do {                                                                                                      \
    cudaError_t err_ = (expr);                                                                              \
    if (err_ != cudaSuccess) {                                                                              \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(err_), __FILE__, __LINE__, #expr); \
      exit(2);                                                                                              \
    }                                                                                                       \
  } while (0)

using LaunchFn = cudaError_t (*)(const ConvPoolShape&, const void*, const void*, const float*, void*, cudaStream_t);

template <Variant V, class Cfg, class TIn, class TOut>
cudaError_t launch_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                          cudaStream_t st) {
  const TIn* xi = static_cast<const TIn*>(x);
  TOut* yo = static_cast<TOut*>(y);
  if constexpr (V == Variant::kFfma) return fc::launch_fused_conv_ffma<Cfg, TIn, TOut>(s, xi, w, b, yo, st);
  if constexpr (V == Variant::kTf32) return fc::launch_fused_conv_tf32<Cfg, TIn, TOut>(s, xi, w, b, yo, st);
  if constexpr (V == Variant::kMmaBf16)
    return fc::launch_fused_conv_mma<Cfg, TIn, TOut, __nv_bfloat16>(s, xi, w, b, yo, st);
  if constexpr (V == Variant::kMmaF16) return fc::launch_fused_conv_mma<Cfg, TIn, TOut, __half>(s, xi, w, b, yo, st);
}

struct Run {
  Variant v;
  const char* variant;
  const char* config;
  DT tin, tout;
  LaunchFn launch;
  bool stacked = false;  // the stacked kernel (fused_conv_stacked.cuh): its own weight layout and range
  bool share = false;    // ... its shared-rows plans (shared_rows_mma): their own weight layout and range
  bool ldsm = false;     // the ldmatrix kernel (fused_conv_ldsm.cuh): its own plan and range (weights: rp = 8)
  int column_rows = 0;   // the column kernel (fused_conv_columns.cuh): rows per lane; ffma weights, its own plan
  int column_px = 0;     // ... and its target pixels
  bool wgmma = false;    // the warpgroup-MMA kernel (fused_conv_wgmma.cuh): its own plan, weights and range
  bool wgpx = false;     // the wgmma pixels-on-M kernel (fused_conv_wgmma_pixels.cuh): its own plan, weights, range
  bool wgsh = false;     // the wgmma column-shifts kernel (fused_conv_wgmma_shifts.cuh): its own plan, weights, range
};

template <Variant V, class Cfg, class TIn, class TOut>
Run make_run(const char* name) {
  return {V, name, Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_erased<V, Cfg, TIn, TOut>};
}

template <Variant V, class Cfg, class TIn, class TOut>
cudaError_t launch_stacked_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                                  cudaStream_t st) {
  using Word = std::conditional_t<V == Variant::kTf32, fc::WordTf32,
                                  std::conditional_t<V == Variant::kMmaF16, fc::WordF16, fc::WordBf16>>;
  return fc::launch_fused_conv_stacked<Cfg, Word, TIn, TOut>(s, V, static_cast<const TIn*>(x), w, b,
                                                             static_cast<TOut*>(y), st);
}

template <Variant V, class Cfg, class TIn, class TOut>
Run make_stacked_run(const char* name) {
  return {V, name, Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_stacked_erased<V, Cfg, TIn, TOut>, true};
}

template <Variant V, class Cfg, class TIn, class TOut>
cudaError_t launch_shared_rows_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                                      cudaStream_t st) {
  // tf32 mode: split bf16 products (fc::WordBf16x3)
  using Word = std::conditional_t<V == Variant::kTf32, fc::WordBf16x3,
                                  std::conditional_t<V == Variant::kMmaF16, fc::WordF16, fc::WordBf16>>;
  return fc::launch_fused_conv_shared_rows<Cfg, Word, TIn, TOut>(s, V, static_cast<const TIn*>(x), w, b,
                                                                 static_cast<TOut*>(y), st);
}

template <Variant V, class Cfg, class TIn, class TOut>
Run make_shared_rows_run(const char* name) {
  return {V, name, Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_shared_rows_erased<V, Cfg, TIn, TOut>, true, true};
}

template <Variant V, class Cfg, class TIn, class TOut>
cudaError_t launch_ldsm_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                               cudaStream_t st) {
  using Word = std::conditional_t<V == Variant::kMmaF16, fc::WordF16, fc::WordBf16>;
  return fc::launch_fused_conv_ldsm<Cfg, Word, TIn, TOut>(s, V, static_cast<const TIn*>(x), w, b, static_cast<TOut*>(y),
                                                          st);
}

template <Variant V, class Cfg, class TIn, class TOut>
Run make_ldsm_run(const char* name) {
  Run r{V, name, Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_ldsm_erased<V, Cfg, TIn, TOut>, true};
  r.ldsm = true;
  return r;
}

template <class Cfg, class TIn, class TOut>
cudaError_t launch_columns_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                                  cudaStream_t st) {
  return fc::launch_fused_conv_columns<Cfg, TIn, TOut>(s, static_cast<const TIn*>(x), w, b, static_cast<TOut*>(y), st);
}

template <class Cfg, class TIn, class TOut>
Run make_columns_run() {
  Run r{Variant::kFfma, "cols", Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_columns_erased<Cfg, TIn, TOut>};
  r.column_rows = Cfg::kRows, r.column_px = Cfg::kTargetPixels;
  return r;
}

template <class Cfg, class T, class TOut>
cudaError_t launch_wgmma_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                                cudaStream_t st) {
  fc::WgmmaPlan p;
  std::string why;
  if (!fc::make_wgmma_plan(s, std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16, &p, &why))
    return cudaErrorInvalidValue;
  return fc::launch_fused_conv_wgmma<Cfg, T, TOut>(p, static_cast<const T*>(x), w, b, static_cast<TOut*>(y), st);
}

template <class Cfg, class T, class TOut>
Run make_wgmma_run(const char* name) {
  constexpr Variant V = std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16;
  Run r{V, name, Cfg::kName, dt_of<T>(), dt_of<TOut>(), &launch_wgmma_erased<Cfg, T, TOut>};
  r.wgmma = true;
  return r;
}

template <class Cfg, class T, class TOut>
cudaError_t launch_wgpx_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                               cudaStream_t st) {
  fc::WgPixelsPlan p;
  std::string why;
  if (!fc::make_wgmma_pixels_plan(s, std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16, &p, &why))
    return cudaErrorInvalidValue;
  return fc::launch_fused_conv_wgmma_pixels<Cfg, T, TOut>(p, static_cast<const T*>(x), w, b, static_cast<TOut*>(y), st);
}

template <class Cfg, class T, class TOut>
Run make_wgpx_run(const char* name) {
  constexpr Variant V = std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16;
  Run r{V, name, Cfg::kName, dt_of<T>(), dt_of<TOut>(), &launch_wgpx_erased<Cfg, T, TOut>};
  r.wgpx = true;
  return r;
}

template <class Cfg, class TIn, class T, class TOut>
cudaError_t launch_wgsh_erased(const ConvPoolShape& s, const void* x, const void* w, const float* b, void* y,
                               cudaStream_t st) {
  fc::WgShiftsPlan p;
  std::string why;
  if (!fc::make_wgmma_shifts_plan(s, std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16, &p, &why))
    return cudaErrorInvalidValue;
  return fc::launch_fused_conv_wgmma_shifts<Cfg, T, TIn, TOut>(p, static_cast<const TIn*>(x), w, b,
                                                               static_cast<TOut*>(y), st);
}

template <class Cfg, class TIn, class T, class TOut>
Run make_wgsh_run(const char* name) {
  constexpr Variant V = std::is_same_v<T, __half> ? Variant::kMmaF16 : Variant::kMmaBf16;
  Run r{V, name, Cfg::kName, dt_of<TIn>(), dt_of<TOut>(), &launch_wgsh_erased<Cfg, TIn, T, TOut>};
  r.wgsh = true;
  return r;
}

// Whether the column kernel's plan takes the shape ("" when it does, or the run is another kernel's).
std::string columns_run_unsupported(const ConvPoolShape& s, const Run& r) {
  fc::TilePlan p;
  std::string why;
  if (r.wgmma) return fc::wgmma_unsupported(s, r.v);
  if (r.wgpx) return fc::wgmma_pixels_unsupported(s, r.v);
  if (r.wgsh) return fc::wgmma_shifts_unsupported(s, r.v);
  if (r.column_rows && !fc::make_column_plan(s, r.column_rows, r.column_px, fc::kDefaultSmemLimit, &p, &why))
    return why;
  return "";
}

// Whether a stacked run takes the shape ("" when it does).
std::string stacked_run_unsupported(const ConvPoolShape& s, const Run& r) {
  if (r.ldsm) return fc::ldsm_unsupported(s, r.v);
  return r.share ? fc::shared_rows_unsupported(s, r.v) : fc::stacked_unsupported(s, r.v);
}

std::vector<Run> all_runs() {
  using S = fc::ConvTileSmall;
  using L = fc::ConvTileLarge;
  using bf16 = __nv_bfloat16;
  return {
      make_run<Variant::kFfma, S, float, float>("ffma"),
      make_run<Variant::kFfma, L, float, float>("ffma"),
      make_run<Variant::kFfma, S, bf16, float>("ffma"),
      make_run<Variant::kFfma, L, bf16, float>("ffma"),
      make_run<Variant::kFfma, fc::ConvTileSmallRows, float, float>("ffma"),
      make_run<Variant::kFfma, fc::ConvTileLargeRows, float, float>("ffma"),
      make_columns_run<fc::ColumnTileR8W4, float, float>(),
      make_columns_run<fc::ColumnTileR8W8, float, float>(),
      make_columns_run<fc::ColumnTileR8W5, float, float>(),
      make_columns_run<fc::ColumnTileR16W4, float, float>(),
      make_columns_run<fc::ColumnTileR16W8, float, float>(),
      make_run<Variant::kTf32, S, float, float>("tf32"),
      make_run<Variant::kTf32, L, float, float>("tf32"),
      make_run<Variant::kMmaBf16, S, float, float>("mma_bf16"),
      make_run<Variant::kMmaBf16, L, float, float>("mma_bf16"),
      make_run<Variant::kMmaBf16, S, bf16, bf16>("mma_bf16"),
      make_run<Variant::kMmaBf16, L, bf16, bf16>("mma_bf16"),
      make_run<Variant::kMmaF16, S, float, float>("mma_f16"),
      make_run<Variant::kMmaF16, L, float, float>("mma_f16"),
      make_run<Variant::kMmaF16, S, __half, __half>("mma_f16"),
      make_run<Variant::kMmaF16, L, __half, __half>("mma_f16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW8N2, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW8N4, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW8N5, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW4N4, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW4N4Small, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW4N2, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW4N5, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW5N5, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW8N5, float, float>("stk_bf16"),
      // float32 pixels staged as bf16 words: conv1 in the engine's bf16 plan (its input Cast folded)
      make_stacked_run<Variant::kMmaBf16, fc::StackedW4N5, float, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW5N5, float, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, lab_cfg::StackedW5N10, float, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, lab_cfg::StackedW5N5Occ, float, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, lab_cfg::StackedW4N4Occ, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, lab_cfg::StackedW4N2Occ, bf16, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaBf16, fc::StackedW8N5, float, bf16>("stk_bf16"),
      make_stacked_run<Variant::kMmaF16, fc::StackedW8N5, __half, __half>("stk_f16"),
      make_stacked_run<Variant::kMmaF16, fc::StackedW8N4, __half, __half>("stk_f16"),
      make_stacked_run<Variant::kTf32, fc::StackedW8N5, float, float>("stk_tf32"),
      make_stacked_run<Variant::kTf32, fc::StackedW8N4, float, float>("stk_tf32"),
      make_shared_rows_run<Variant::kMmaBf16, fc::StackedW4N4, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, fc::StackedW4N2, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, fc::StackedW8N4, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, fc::StackedW4N4Small, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, lab_cfg::SharedW4N4Two, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, lab_cfg::SharedW4N4Four, bf16, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaBf16, fc::StackedW4N4, float, bf16>("shr_bf16"),
      make_shared_rows_run<Variant::kMmaF16, fc::StackedW4N4, __half, __half>("shr_f16"),
      make_shared_rows_run<Variant::kMmaF16, fc::StackedW4N2, float, float>("shr_f16"),
      make_shared_rows_run<Variant::kTf32, fc::StackedW4N4, float, float>("shr_tf32x3"),
      make_shared_rows_run<Variant::kTf32, fc::StackedW4N4Small, float, float>("shr_tf32x3"),
      make_shared_rows_run<Variant::kTf32, lab_cfg::SharedW4N4Two, float, float>("shr_tf32x3"),
      make_ldsm_run<Variant::kMmaBf16, fc::LdsmW5N5, bf16, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaBf16, fc::LdsmW5N5Quarter, bf16, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaBf16, lab_cfg::LdsmW10N5, bf16, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaBf16, lab_cfg::LdsmW5N5Flat, bf16, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaBf16, lab_cfg::LdsmW5N5FlatSync, bf16, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaBf16, fc::LdsmW5N5, float, bf16>("ldsm_bf16"),
      make_ldsm_run<Variant::kMmaF16, fc::LdsmW5N5, __half, __half>("ldsm_f16"),
      make_ldsm_run<Variant::kMmaF16, fc::LdsmW5N5Quarter, float, float>("ldsm_f16"),
      make_wgmma_run<fc::WgmmaTile2, bf16, bf16>("wg_bf16"),
      make_wgmma_run<fc::WgmmaTile1, bf16, bf16>("wg_bf16"),
      make_wgmma_run<fc::WgmmaTile2, bf16, float>("wg_bf16"),
      make_wgmma_run<fc::WgmmaTile2, __half, __half>("wg_f16"),
      make_wgpx_run<fc::WgPixelsOne, bf16, bf16>("wgpx_bf16"),
      make_wgpx_run<fc::WgPixelsTwo, bf16, bf16>("wgpx_bf16"),
      make_wgpx_run<lab_cfg::WgPixelsOneG1, bf16, bf16>("wgpx_bf16"),
      make_wgpx_run<lab_cfg::WgPixelsTwoG1, bf16, bf16>("wgpx_bf16"),
      make_wgpx_run<fc::WgPixelsOne, bf16, float>("wgpx_bf16"),
      make_wgpx_run<fc::WgPixelsOne, __half, __half>("wgpx_f16"),
      make_wgsh_run<fc::WgShiftsOne, float, bf16, bf16>("wgsh_bf16"),
      make_wgsh_run<fc::WgShiftsTwo, float, bf16, bf16>("wgsh_bf16"),
      make_wgsh_run<fc::WgShiftsOne, bf16, bf16, bf16>("wgsh_bf16"),
      make_wgsh_run<fc::WgShiftsOne, float, __half, __half>("wgsh_f16"),
  };
}

struct Tol {
  double rel_l2, max_rel;  // max_rel < 0: not checked
};
// Per precision (METHOD.md): fp32 1e-5; tf32 1e-3 rel L2 and 5e-3 max-abs relative to max; bf16/fp16 operands
// 1e-2 rel L2. A 16-bit output adds its own rounding (bf16: 2^-9 relative, fp16: 2^-11).
Tol tolerance(const Run& r) {
  Tol t = r.v == Variant::kFfma ? Tol{1e-5, 1e-5} : r.v == Variant::kTf32 ? Tol{1e-3, 5e-3} : Tol{1e-2, -1};
  const double out_tol = r.tout == DT::kBF16 ? 1e-2 : r.tout == DT::kF16 ? 2e-3 : 0;
  t.rel_l2 = std::max(t.rel_l2, out_tol);
  if (t.max_rel >= 0) t.max_rel = std::max(t.max_rel, out_tol);
  return t;
}

struct DeviceBuf {
  void* p = nullptr;
  explicit DeviceBuf(size_t bytes) { CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 16))); }
  ~DeviceBuf() { cudaFree(p); }
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
};

std::shared_ptr<DeviceBuf> upload(const void* src, size_t bytes) {
  auto b = std::make_shared<DeviceBuf>(bytes);
  CUDA_CHECK(cudaMemcpy(b->p, src, bytes, cudaMemcpyHostToDevice));
  return b;
}

std::shared_ptr<DeviceBuf> packed_weights(const ConvPoolShape& s, const Run& r, const std::vector<float>& w) {
  std::vector<unsigned char> host(r.wgsh      ? fc::wgmma_shifts_weight_bytes(s)
                                  : r.wgpx    ? fc::wgmma_pixels_weight_bytes(s)
                                  : r.wgmma   ? fc::wgmma_weight_bytes(s)
                                  : r.ldsm    ? fc::ldsm_weight_bytes(s, r.v)
                                  : r.stacked ? fc::stacked_weight_bytes(s, r.v, r.share)
                                              : fc::packed_weight_bytes(s, r.v));
  if (r.wgsh && r.v == Variant::kMmaF16)
    fc::wgmma_shifts_pack_weights<__half>(s, w.data(), host.data());
  else if (r.wgsh)
    fc::wgmma_shifts_pack_weights<__nv_bfloat16>(s, w.data(), host.data());
  else if (r.wgpx && r.v == Variant::kMmaF16)
    fc::wgmma_pixels_pack_weights<__half>(s, w.data(), host.data());
  else if (r.wgpx)
    fc::wgmma_pixels_pack_weights<__nv_bfloat16>(s, w.data(), host.data());
  else if (r.wgmma && r.v == Variant::kMmaF16)
    fc::wgmma_pack_weights<__half>(s, w.data(), host.data());
  else if (r.wgmma)
    fc::wgmma_pack_weights<__nv_bfloat16>(s, w.data(), host.data());
  else if (r.ldsm)
    fc::ldsm_pack_weights(s, r.v, w.data(), host.data());
  else if (r.stacked)
    fc::stacked_pack_weights(s, r.v, w.data(), host.data(), r.share);
  else
    fc::pack_weights(s, r.v, w.data(), host.data());
  return upload(host.data(), host.size());
}

// An operand as the variant's MMA sees it (tf32: cvt.rna; bf16/f16: round to nearest even; ffma: itself).
float round_operand(float x, Variant v) {
  const float pair[2] = {x, 0.f};
  switch (v) {
    case Variant::kTf32:
      return fc::WordTf32::unpack(fc::WordTf32::pack(pair), 0);
    case Variant::kMmaBf16:
      return fc::WordBf16::unpack(fc::WordBf16::pack(pair), 0);
    case Variant::kMmaF16:
      return fc::WordF16::unpack(fc::WordF16::pack(pair), 0);
    default:
      return x;
  }
}

// Below this many products per output, rounding errors do not average out and cancellation can make any
// tolerance relative to the output arbitrary: such a case is held to the rounded-operand reference alone.
constexpr int kConditionedK = 16;

int validate(const std::vector<Run>& runs, cudaStream_t stream, int max_batch) {
  printf("== validation against the float64 CPU reference ==\n");
  printf(
      "   two checks per run: (a) against a reference on the operands rounded as the kernel rounds them\n"
      "   (tolerance 1e-5 plus the output's rounding: the kernel computes exactly its precision's product);\n"
      "   (b) against the reference on the unrounded weights (the precision mode's tolerance), for cases\n"
      "   with at least %d products per output\n",
      kConditionedK);
  int failures = 0;
  uint64_t seed = 1;
  for (const Case& cs : validation_cases()) {
    const ConvPoolShape& s = cs.s;
    std::string why;
    if (!fc::supported(s, &why)) {
      printf("FAIL  %s: not supported: %s\n", cs.name, why.c_str());
      ++failures;
      continue;
    }
    if (s.n > max_batch) {  // --max-batch (sanitizer runs)
      ++seed;
      continue;
    }
    const Data d = make_live_data(s, seed++);
    auto bias = upload(d.b.data(), d.b.size() * 4);
    DeviceBuf y(out_count(s) * 4);
    std::map<DT, std::shared_ptr<DeviceBuf>> x_dev;
    std::map<DT, std::vector<double>> refs;
    std::map<std::tuple<Variant, bool, bool, bool, bool, bool, bool>, std::shared_ptr<DeviceBuf>> w_dev;
    std::map<std::pair<DT, Variant>, std::vector<double>> rounded_refs;
    const bool conditioned = s.c * s.r * s.r >= kConditionedK;
    for (const Run& r : runs) {
      if (!x_dev.count(r.tin)) {  // the reference sees the input as the kernel does (rounded to TIn)
        std::vector<float> xq(d.x.size());
        for (size_t i = 0; i < xq.size(); ++i) xq[i] = quantize(d.x[i], r.tin);
        const auto bytes = to_bytes(xq, r.tin);
        x_dev[r.tin] = upload(bytes.data(), bytes.size());
        refs[r.tin] = reference(s, xq, d.w, d.b);
      }
      if (r.stacked) {
        fc::StackedPlan sp;
        fc::LdsmPlan lp;
        std::string no;
        if (r.ldsm ? !fc::make_ldsm_plan(s, r.v, 1, 1, fc::kDefaultSmemLimit, &lp, &no, 4)
                   : !fc::make_stacked_plan(s, r.v, 1, 1, fc::kDefaultSmemLimit, &sp, &no, 4, r.share)) {
          printf("n/a   %-8s %-16s %-34s n=%-5d the stacked kernel does not take it: %s\n", r.variant, r.config,
                 cs.name, s.n, no.c_str());
          continue;
        }
      }
      if (const std::string no = columns_run_unsupported(s, r); !no.empty()) {
        printf("n/a   %-8s %-16s %-34s n=%-5d the %s kernel does not take it: %s\n", r.variant, r.config, cs.name, s.n,
               r.wgsh    ? "wgmma shifts"
               : r.wgpx  ? "wgmma pixels"
               : r.wgmma ? "wgmma"
                         : "column",
               no.c_str());
        continue;
      }
      const auto wkey = std::make_tuple(r.v, r.stacked, r.share, r.ldsm, r.wgmma, r.wgpx, r.wgsh);
      if (!w_dev.count(wkey)) w_dev[wkey] = packed_weights(s, r, d.w);
      const size_t out_bytes = out_count(s) * dt_size(r.tout);
      CUDA_CHECK(cudaMemsetAsync(y.p, 0xFF, out_bytes, stream));  // NaN in every type: unwritten outputs show
      CUDA_CHECK(r.launch(s, x_dev[r.tin]->p, w_dev[wkey]->p, static_cast<const float*>(bias->p), y.p, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      std::vector<unsigned char> host(out_bytes);
      CUDA_CHECK(cudaMemcpy(host.data(), y.p, out_bytes, cudaMemcpyDeviceToHost));
      const std::vector<float> out = from_bytes(host, r.tout, out_count(s));
      bool same_misaligned = true;
      if (r.stacked || r.wgmma || r.wgpx ||
          r.wgsh) {  // the input one element past a 16-byte boundary: staged without the prefetch, same bits
        const size_t in_bytes = in_count(s) * dt_size(r.tin);
        DeviceBuf shifted(in_bytes + 16);
        void* xs = static_cast<char*>(shifted.p) + dt_size(r.tin);
        CUDA_CHECK(cudaMemcpy(xs, x_dev[r.tin]->p, in_bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemsetAsync(y.p, 0xFF, out_bytes, stream));
        CUDA_CHECK(r.launch(s, xs, w_dev[wkey]->p, static_cast<const float*>(bias->p), y.p, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<unsigned char> again(out_bytes);
        CUDA_CHECK(cudaMemcpy(again.data(), y.p, out_bytes, cudaMemcpyDeviceToHost));
        same_misaligned = again == host;
      }
      // Split products (shared rows in tf32) keep about 16 bits of each operand: held to the unrounded ones.
      const Variant rounding = r.share && r.v == Variant::kTf32 ? Variant::kFfma : r.v;
      auto key = std::make_pair(r.tin, rounding);
      if (!rounded_refs.count(key)) {
        std::vector<float> xq(d.x.size()), wq(d.w.size());
        for (size_t i = 0; i < xq.size(); ++i) xq[i] = round_operand(quantize(d.x[i], r.tin), rounding);
        for (size_t i = 0; i < wq.size(); ++i) wq[i] = round_operand(d.w[i], rounding);
        rounded_refs[key] = reference(s, xq, wq, d.b);
      }
      const Errors eq = compare(out, rounded_refs[key]);
      const double out_tol = r.tout == DT::kBF16 ? 1e-2 : r.tout == DT::kF16 ? 2e-3 : 0;
      const bool exact_ok = eq.non_finite == 0 && eq.rel_l2 <= std::max(1e-5, out_tol);
      const Errors e = compare(out, refs[r.tin]);
      const Tol t = tolerance(r);
      const bool mode_ok =
          !conditioned || (e.non_finite == 0 && e.rel_l2 <= t.rel_l2 && (t.max_rel < 0 || e.max_rel <= t.max_rel));
      const bool ok = exact_ok && mode_ok && same_misaligned;
      failures += !ok;
      char max_tol[16] = "-";
      if (t.max_rel >= 0) snprintf(max_tol, sizeof max_tol, "%.0e", t.max_rel);
      printf(
          "%s  %-8s %-16s %4s->%-4s %-34s n=%-5d rounded-operand rel_l2 %.2e | rel_l2 %.2e max_rel %.2e "
          "unwritten %zu (tol %.0e / %s%s)%s\n",
          ok ? "PASS" : "FAIL", r.variant, r.config, dt_name(r.tin), dt_name(r.tout), cs.name, s.n, eq.rel_l2, e.rel_l2,
          e.max_rel, e.non_finite, t.rel_l2, max_tol, conditioned ? "" : "; K < 16: (a) only",
          same_misaligned ? "" : " MISALIGNED INPUT GAVE OTHER OUTPUTS");
    }
  }
  printf("validation: %s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
  return failures;
}

// ---- timing ------------------------------------------------------------------------------------------------

// Values in [0, 1) from a hash of the index: never zeros, different per buffer.
template <class T>
__global__ void fill_uniform(T* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ static_cast<uint32_t>(i >> 32) * 0x85EBCA77u ^ seed;
    h ^= h >> 16, h *= 0x85EBCA6Bu, h ^= h >> 13, h *= 0xC2B2AE35u, h ^= h >> 16;
    p[i] = fc::from_float<T>((h >> 8) * (1.f / 16777216.f));
  }
}

void fill(void* p, DT t, size_t n, uint32_t seed) {
  if (t == DT::kF32) fill_uniform<<<1024, 256>>>(static_cast<float*>(p), n, seed);
  if (t == DT::kBF16) fill_uniform<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
  if (t == DT::kF16) fill_uniform<<<1024, 256>>>(static_cast<__half*>(p), n, seed);
  CUDA_CHECK(cudaGetLastError());
}

struct Peaks {
  double tflops16 = 790, tflops_tf32 = 395, tflops_fp32 = 60, gbps = 4000;
};

struct Timing {
  std::string line, csv;
};

int time_runs(const std::vector<Run>& runs, const std::vector<int>& batches, const Peaks& peaks, cudaStream_t stream,
              std::vector<Timing>* rows, const std::string& only_shape) {
  constexpr int kWarmup = 5, kReps = 50, kBuffers = 3;
  for (int which = 0; which < 2; ++which)
    for (int batch : batches) {
      const ConvPoolShape s = which == 0 ? conv1(batch) : conv2(batch);
      const char* sname = which == 0 ? "conv1" : "conv2";
      if (!only_shape.empty() && only_shape != sname) continue;
      const Data d = make_data({1, s.c, 1, 1, s.k, s.r, 0, 0, 0}, 77);  // weights and bias only
      auto bias = upload(d.b.data(), d.b.size() * 4);
      DeviceBuf y(out_count(s) * 4);
      std::map<DT, std::vector<std::shared_ptr<DeviceBuf>>> xs;
      const double flops = 2.0 * s.k * s.c * s.r * s.r * double(s.n) * fc::kept_conv_rows(s) * fc::kept_conv_cols(s);
      for (const Run& r : runs) {
        auto& bufs = xs[r.tin];
        for (int i = int(bufs.size()); i < kBuffers; ++i) {
          bufs.push_back(std::make_shared<DeviceBuf>(in_count(s) * dt_size(r.tin)));
          fill(bufs.back()->p, r.tin, in_count(s), 0x1234u + 977u * i);
        }
        if (r.stacked && !stacked_run_unsupported(s, r).empty()) continue;
        if (!columns_run_unsupported(s, r).empty()) continue;
        auto w = packed_weights(s, r, d.w);
        for (int i = 0; i < kWarmup; ++i)
          CUDA_CHECK(r.launch(s, bufs[i % kBuffers]->p, w->p, static_cast<const float*>(bias->p), y.p, stream));
        std::vector<cudaEvent_t> ev(2 * kReps);
        for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
        for (int i = 0; i < kReps; ++i) {
          CUDA_CHECK(cudaEventRecord(ev[2 * i], stream));
          CUDA_CHECK(r.launch(s, bufs[i % kBuffers]->p, w->p, static_cast<const float*>(bias->p), y.p, stream));
          CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], stream));
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<float> ms(kReps);
        for (int i = 0; i < kReps; ++i) CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
        for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
        std::sort(ms.begin(), ms.end());
        const double med = ms[kReps / 2];
        const double bytes = double(in_count(s)) * dt_size(r.tin) + double(out_count(s)) * dt_size(r.tout);
        const double tflops = flops / (med * 1e-3) / 1e12, gbps = bytes / (med * 1e-3) / 1e9;
        const double peak = r.v == Variant::kFfma   ? peaks.tflops_fp32
                            : r.v == Variant::kTf32 ? peaks.tflops_tf32
                                                    : peaks.tflops16;
        char line[256], csv[256];
        snprintf(line, sizeof line, "%-8s %-16s %4s->%-4s %-5s %6d %9.4f %8.1f %6.1f%% %8.0f %6.1f%%", r.variant,
                 r.config, dt_name(r.tin), dt_name(r.tout), sname, batch, med, tflops, 100 * tflops / peak, gbps,
                 100 * gbps / peaks.gbps);
        snprintf(line + strlen(line), sizeof line - strlen(line), "  (min %.4f max %.4f)", ms.front(), ms.back());
        snprintf(csv, sizeof csv, "%s,%s,%s,%s,%s,%d,%.5f,%.5f,%.5f,%.3f,%.1f,%.3f", r.variant, r.config,
                 dt_name(r.tin), dt_name(r.tout), sname, batch, med, ms.front(), tflops, 100 * tflops / peak, gbps,
                 100 * gbps / peaks.gbps);
        rows->push_back({line, csv});
        printf("%s\n", line);
        fflush(stdout);
      }
    }
  return 0;
}

// ---- main --------------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
  bool check_only = false, emulate = false, no_validate = false;
  int max_batch = 1 << 30;
  std::string filter, only_shape;
  std::vector<int> batches = {10000, 1000};
  std::string csv_path;
  Peaks peaks;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", a.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--check-only")
      check_only = true;
    else if (a == "--emulate")
      emulate = true;
    else if (a == "--no-validate")
      no_validate = true;
    else if (a == "--filter")
      filter = next();
    else if (a == "--batch")
      batches = {atoi(next())};
    else if (a == "--max-batch")
      max_batch = atoi(next());
    else if (a == "--shape")  // timing: conv1 or conv2 only
      only_shape = next();
    else if (a == "--csv")
      csv_path = next();
    else if (a == "--peak-tflops")
      peaks.tflops16 = atof(next());
    else if (a == "--peak-tflops-tf32")
      peaks.tflops_tf32 = atof(next());
    else if (a == "--peak-tflops-fp32")
      peaks.tflops_fp32 = atof(next());
    else if (a == "--peak-gbps")
      peaks.gbps = atof(next());
    else {
      fprintf(stderr,
              "usage: %s [--check-only] [--emulate] [--no-validate] [--filter S] [--batch N] [--shape conv1|conv2] "
              "[--max-batch N] "
              "[--csv PATH] "
              "[--peak-tflops X] "
              "[--peak-tflops-tf32 X] [--peak-tflops-fp32 X] [--peak-gbps X]\n",
              argv[0]);
      return 2;
    }
  }
  int failures = reference_self_check() ? 0 : 1;
  failures += fastdiv_self_check() ? 0 : 1;
  int devices = 0;
  const cudaError_t dev_err = cudaGetDeviceCount(&devices);
  if (emulate || dev_err != cudaSuccess || devices == 0) {
    if (!emulate)
      printf("no CUDA device (%s): GPU validation and timing skipped; running the CPU emulation instead\n",
             dev_err != cudaSuccess ? cudaGetErrorString(dev_err) : "0 devices");
    failures += run_emulation();
    printf("%s\n", failures ? "FAILED" : "ALL PASSED");
    return failures ? 1 : 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  printf(
      "device: %s, %d SMs, %zu KB opt-in shared memory per block; peaks: %.0f TFLOP/s bf16/fp16, %.0f tf32, "
      "%.0f fp32, %.0f GB/s\n",
      prop.name, prop.multiProcessorCount, prop.sharedMemPerBlockOptin / 1024, peaks.tflops16, peaks.tflops_tf32,
      peaks.tflops_fp32, peaks.gbps);
  cudaStream_t stream;
  // A blocking stream: ordered after the uploads (pageable cudaMemcpy) and fills on the legacy default stream.
  CUDA_CHECK(cudaStreamCreate(&stream));
  std::vector<Run> runs;
  for (const Run& r : all_runs()) {  // --filter: substrings of "variant config tin->tout", '|' between them
    const std::string id = std::string(r.variant) + " " + r.config + " " + dt_name(r.tin) + "->" + dt_name(r.tout);
    bool take = filter.empty();
    for (size_t at = 0; !take && at <= filter.size();) {
      const size_t bar = std::min(filter.find('|', at), filter.size());
      const std::string alt = filter.substr(at, bar - at);
      take = !alt.empty() && id.find(alt) != std::string::npos;
      at = bar + 1;
    }
    if (take) runs.push_back(r);
  }
  if (!no_validate) failures += validate(runs, stream, max_batch);
  std::vector<Timing> rows;
  if (!check_only) {
    printf("== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffers ==\n");
    time_runs(runs, batches, peaks, stream, &rows, only_shape);
    printf("\n%-8s %-16s %-10s %-5s %6s %9s %8s %7s %8s %7s\n", "variant", "config", "types", "shape", "batch", "ms",
           "TFLOP/s", "%peak", "GB/s", "%peak");
    for (const auto& r : rows) printf("%s\n", r.line.c_str());
  }
  if (!csv_path.empty()) {
    FILE* f = fopen(csv_path.c_str(), "w");
    if (!f) {
      fprintf(stderr, "cannot write %s\n", csv_path.c_str());
      return 2;
    }
    fprintf(f, "variant,config,tin,tout,shape,batch,ms_median,ms_min,tflops,pct_peak_tflops,gbps,pct_peak_gbps\n");
    for (const auto& r : rows) fprintf(f, "%s\n", r.csv.c_str());
    fclose(f);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  printf("%s\n", failures ? "FAILED" : "ALL PASSED");
  return failures ? 1 : 0;
}
