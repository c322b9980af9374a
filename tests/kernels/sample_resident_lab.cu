// Lab for the sample-resident kernel (layers/sample_resident/sample_resident.cuh): builds SSA-shaped chains with
// the engine's own builder, checks the kernel against a float reference of the same chain on odd batches and
// shapes, in bf16 and fp16, then times it at the SSA's shape against the Tensor Core floor.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I. tests/kernels/sample_resident_lab.cu \
//     layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp -o
//     sample_resident_lab
//   ./sample_resident_lab            # checks, then timings at batch 32 .. 65536 (--check-only: checks; time: timings;
//                                    # plan: the SSA's program, no device needed; one: one launch for ncu;
//                                    # rt: the row-tile kernel's checks and timings beside the interpreter's;
//                                    # rttime: those timings alone; rtcheck: those checks alone;
//                                    # rtlat: batch 1 on each CTA shape, each stage left out in turn;
//                                    # rtone [CFG [BATCH]]: one row-tile launch at 65536 (or BATCH) for ncu,
//                                    # CFG = group x 1000 + warps x 10 + tiles; rttrace [CFG [BATCH]]: the stage
//                                    # timeline of CTA 0, in a -DIE_RT_TRACE=1 build; its first tile, or its tile
//                                    # i with -DIE_RT_TRACE_TILE=i)
// lab-sources: layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp
//
// Variants and figures (H200, SSA shape, bf16, median of 50 launches over 3 rotated inputs; batch 65536, and
// batch 32 = one tile's latency). Floors at 65536: 100 GFLOP at ~760 TFLOP/s = 0.13 ms; 0.18 GB at ~4.2 TB/s.
//   1. generic per-pair epilogue, program and floats read from global memory, two 40 KiB weight slots
//                                                                                      7.74 ms   (0.241 ms at 32)
//   2. the epilogue per 16 x 64 tile, its branches resolved at compile time; LayerNorm 8 lanes per row
//                                                                                      4.18      (0.135)
//   3. program and floats copied to shared memory (its global loads were 15% of the stall samples); 24 KiB
//      weight slots (a larger W^T runs as column slices)                               3.75      (0.126)
//   4. swizzle by the line index alone (2 instructions, not 6); whole 64-column units compiled apart
//                                                                                      3.31      (0.113)
//   5. activations other than GELU out of line (the code fell from 74,000 to 39,000 SASS instructions: it
//      stalled on instruction fetch); unit indices without integer division             3.12      (0.106)
//   6. next-Linear index in the program, no K-range division, RoPE pair by mask, split K in at most 4 slices
//                                                                                      2.89      (0.0995) kept
//   7. tried: 32- or 16-column units where a product has fewer 64-column units than warps (10 of 15 warps
//      busy in the N = 64 products): more A loads and the runtime-groups path           3.19      (0.109) dropped
//   8. GELU's reciprocal by rcp.approx alone (layers/common/activation_device.cuh), not __frcp_rn's Newton step
//      and slow-path branch; A/B in one call, the old header against the new, two rounds each:
//                                                        2.81 -> 2.60 ms (0.0975 -> 0.0895 at 32; 4096: 0.186 -> 0.171)
//                                                        kept
//      Per source line after it (65536 launch profile, 19,624 SASS instructions): the swizzle 7.3% of the executed
//      instructions, GELU's exponential 6.5%, line_address 5.4%, the MMAs 2.8%, LayerNorm's shuffles 4.2%.
//   9. tried: the LayerNorm after a Linear in that Linear's epilogue (7 of the SSA's 8 LayerNorms; a 16 x 64 unit
//      holds whole rows, statistics by quad shuffles; 20 instructions instead of 26), A/B in one call:
//                                                        2.60 -> 2.67 ms (0.0896 -> 0.0921 at 32)        dropped
//      The LayerNorm pass left (without it 0.98 -> 0.57 ms), but the products got slower by more: the N = 64
//      products keep 10 of 15 warps busy, so the work moved from 15 warps to 10, and the epilogue's per-pair
//      stores with run-time element types cost more than the pass's 16-byte vectors.
//   warps: 15 (the builder's choice) 2.89 ms, 10: 3.12, 8: 3.70.
//   stage attribution (6., instructions of one kind left out): Linear 1.84 ms, LayerNorm 0.58, attention 0.36,
//   stores 0.06. ncu (4., batch 4096): 11.4 cycles per issued instruction, of them waiting on fixed latency 2.1,
//   barrier 1.6, shared memory 1.6, instruction fetch 1.4; HMMA 1.7% of the instructions, address arithmetic
//   and GELU most of the rest: the tile is bound by its epilogues' instructions and latency, not by the MMAs.
//   Per source line (tests/kernels/profile_lines.sh ... sample_resident_kernelI13__nv_bfloat16 one, final kernel):
//   GELU 16% of the executed instructions, the swizzled addresses 12%, LayerNorm's shuffles 4%, the MMAs 3%.
// Engine, same call (bench, SSA bf16, ms): batch 1 0.096 (per step 0.080), 32 0.097 (0.106), 512 0.098 (0.114),
// 2048 0.099 (0.168), 4096 0.187 (0.238), 8192 0.374 (0.406), 16384 0.743 (0.730), 65536 2.90 (2.68): hence the
// planner's batch range 16 .. 8192 (layers/sample_resident/sample_resident_cuda.cu).
//
// The row-tile kernel (layers/sample_resident/row_tile.cuh: samples in registers, a warp per 16 or 32 rows), the
// same chain, same calls (ms at batch 32 / 512 / 4096 / 65536; the interpreter 0.090 / 0.091 / 0.171 / 2.61):
//   R1. one sample per 16-row MMA tile (10 of 16 rows used), GELU by gelu_erf, bias added after the products
//       16 warps x 1 tile: 0.053 / 0.053 / 0.098 / 1.455; 8 x 2: 0.066 / 0.066 / 0.126 / 1.925; 4 x 2: 0.061 / 3.42
//       ncu (16 x 1, 65536): 11,000 instructions per sample, IPC 2.16 of 4, GELU 33% of the instructions
//   R2. GELU as x sigmoid(odd quintic) (dev::gelu_fast, error <= 2.6e-5), bias as the accumulator's start,
//       softmax by ex2.approx and rcp.approx
//       16 x 1: 0.049 / 0.050 / 0.092 / 1.340; 12 x 1: 0.041 / 0.042 / 0.107 / 1.392; 8 x 2: 1.579
//   R3. samples packed one after another into a warp's rows (S = 10: 3 samples in 2 tiles, 30 of 32 rows;
//       attention over both tiles' keys with a per-row sample mask) kept
//       8 x 2: 0.065 / 0.067 / 0.123 / 1.240 (fp16 1.249); 16 x 1 and 12 x 1 unchanged (one sample per tile)
//       ncu 65536: 8 x 2 6,000 instructions per sample (16 x 1: 9,100), stall samples: fixed-latency waits 21%,
//       no instruction (its code is twice 16 x 1's) 18%, long scoreboard (spills at 255 registers) 13%,
//       short scoreboard 10%, issuing 17%; 16 x 1: barrier 7%, MIO throttle 10%, waits 18%
//   R4. warps whose samples all lie past the batch skip their row work (they keep the barriers): batch 1,
//       12 x 1: 0.0305 ms (the interpreter 0.0886); the other batches unchanged (32: 0.0407, 65536 8 x 2: 1.267)
//   Stage attribution (RtModel::skip, each stage's work left out in turn; 8 x 2 at 65536, 1.273 ms in all):
//   attentions 0.49 ms, MLPs 0.35, embedding 0.26, output 0.21, encoder 0.13, decoder 0.10 (the differences
//   overlap: a stage left out also frees its barrier's wait).
//   R5. tried: the tile's input copied ahead into shared memory by cp.async (during the previous tile's attention)
//       instead of the embedding's two dependent rounds of global loads: 8 x 2 at 65536 1.262 ms (1.267 before),
//       32: 0.0411 (0.0407), "without embedding" still 1.011: the embedding's share is not its input loads.
//       Dropped (30 KiB of shared memory for nothing).
//   Per source line at 65536, 8 x 2 (`LAB_BIN=... tests/kernels/profile_lines.sh tests/kernels/sample_resident_lab.cu
//   row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E rtone 82`; tools/results/h200/row_tile/lines_rt82_65536.txt):
//   17,680 SASS instructions, 6,050 executed per sample. GELU (dev::gelu_fast: clamp, quintic, ex2, rcp; 3,840
//   per sample) about 21% of them, LayerNorm's two passes about 15%, the MMAs 12%, the softmax's mask and
//   exponentials about 9%, RoPE 4%, the weight copies 3.5%.
//   R6. measured, not shipped: GELU as 0.5 x (1 + tanh.approx(0.79788 (x + 0.044715 x^3))), 6 instructions
//       against gelu_fast's 9 (dev::gelu_fast swapped in a copy of the header, A/B in one call, two rounds):
//       8 x 2 at 65536 1.272 / 1.266 -> 1.164 / 1.172 ms (fp16 1.158); 12 x 1 at 32 0.0393. Every check passes
//       (bf16 recon error <= 1.1e-2 of 5e-2, fp16 <= 1.2e-3 of 1e-2), but its error against the exact GELU
//       (~1e-3: the tanh form's 3e-4 plus tanh.approx's 2^-11 relative) is 40x gelu_fast's, and in fp16 mode it
//       is as large as the storage rounding: to ship with an accuracy study against the modes' gates, not as a
//       swap. The rest of the way to 1.0 ms: skipping the key blocks a query tile cannot see (3 of 4 per tile with
//       3 samples in 32 rows; under a tenth), LayerNorm's passes (15%).
//   R7. tried (tools/results/h200/row_tile16/, H200, one call, two rounds): more warps per SM through fewer
//       registers: attention one head at a time (a head's q, k, v live instead of all four heads'), the MLP in
//       16-column chunks, the flat rows over the residual streams (a barrier in flatten), shapes 12 x 2 (384
//       threads, 168 registers) and 16 x 2 (512 threads, 128 registers, 223 KiB). ptxas still spills (16 x 2:
//       4 KB of spill stores; 8 x 2 stays at 255 registers): at 65536 16 x 2 1.73 ms, 12 x 2 1.54, and 8 x 2
//       itself 1.38 against 1.27 before (the per-head products reload A's B fragments per head). Dropped.
//       Shipped from it: GELU's tanh form in bf16 (dev::gelu_tanh_approx, a and b refitted to the exact GELU:
//       2.7e-4 against the usual constants' 4.7e-4), fp16 keeping gelu_fast: the A/B in the same call (the
//       restructured kernel, `-DIE_RT_BF16_GELU_TANH=0` against the default) 8 x 2 at 65536 1.381 -> 1.286 ms, 12 x 1
//       1.508 -> 1.411, 16 x 1 1.540 -> 1.443, 4096 16 x 1 0.105 -> 0.098; the bf16 checks' largest errors against
//       the float reference with the exact GELU (batches 1 to 10001, three shapes) move within their spread
//       (8 x 2 at 10001: recon 1.07e-2 -> 0.95e-2, latent 7.05e-3 -> 7.10e-3; 16 x 1: 9.5e-3 -> 1.0e-2): bf16's
//       own rounding dominates.
//   R8. a 4-warp CTA (41: 4 samples, 128 KiB): up to one wave it gives each busy warp a scheduler of its own
//       (tools/results/h200/row_tile16/call_e/: 32 samples 0.0342 against 12 x 1's 0.0395 ms, 512 0.0353 against
//       0.0399), at batch 1 its 128 threads copy the weights slower (0.0334 against 0.0289), past one wave it loses
//       (4096: 0.192 against 16 x 1's 0.090). The engine now picks the shape by an estimate from these figures
//       (rt_estimate_us in layers/sample_resident/row_tile_cta.h: first wave by busy warps, then further waves).
//   R9. the kernel's start: the floats (biases, LayerNorm parameters, RoPE tables) by cp.async together with the
//       first stage's weights, one wait for both, instead of plain loads first (call_g, three rounds alternating):
//       4 x 1 at batch 1 0.0338 -> 0.0297 ms, at 32 0.0346 -> 0.0309, at 512 0.0354 -> 0.0316; 16 x 1 at batch 1
//       0.0299 -> 0.0285; 8 x 2 at 65536 unchanged (1.168). Kept; the engine's shape figures were measured after it.
//   R10. batch 1 (rtlat: each shape at batch 1 with each stage left out in turn; an empty launch timed the same way
//       4.9-6.4 us; tools/results/h200/linear_resident/call_c/, before R10): 12 x 1 28.2 us in all, without the
//       embedding 25.6, the attentions 22.7, the MLPs 24.0, the encoder 26.3, the decoder 27.2, the output 26.9:
//       the stages' work about 16.5 us, the start and the barriers about 6. Per source line (4 x 1, one launch at
//       batch 1, lines_rt41_b1.txt): the weight stages' 16-byte cp.async copies, issued by every thread before its
//       stage's work (the one warp with a sample included), 24.5% of the executed instructions; the flat buffers'
//       zeroing 4.2%; the rows' sample indices by integer division 2.4%. ncu: 12.1 cycles per issued instruction,
//       of them the three idle warps' barrier 4.8, instruction fetch 2.75 (the code runs once), fixed latency 1.8.
//       Now each stage is one bulk copy by thread 0 (cp.async.bulk on an mbarrier per slot, layers/common/
//       bulk_copy.cuh's stream), the zeroing by 16-byte stores, the sample index by a float product. A/B in one
//       call, HEAD's header against the new one, same lab source, two rounds (call_d/), ms with the launch:
//       4 x 1 at batch 1 0.0305 / 0.0298 -> 0.0275 / 0.0276, at 32 0.0311 / 0.0303 -> 0.0273 / 0.0276, at 512
//       0.0318 / 0.0321 -> 0.0284 / 0.0296; 12 x 1 at batch 1 0.0283 / 0.0273 -> 0.0273 / 0.0266, at 32 0.0388 /
//       0.0387 -> 0.0363 / 0.0368; 16 x 1 at 4096 0.0885 / 0.0880 -> 0.0853 / 0.0864; 8 x 2 at 65536 1.1638 /
//       1.1649 -> 1.1535 / 1.1517. Kept; the engine's shape figures (row_tile_cta.h) are call_d's.
//   R11. tried: GELU on the packed bf16 pairs of fc2's and the output Linear's operands (fma.rn.bf16x2 and
//       tanh.approx.bf16x2: 3.5 instructions a value with the packing, against 6.5), A/B in one call, the same tree
//       with -DIE_RT_BF16_GELU_PACKED=0 / 1, two rounds (tools/results/h200/linear_resident/call_f/): 8 x 2 at
//       65536 1.1555 / 1.1507 -> 1.1329 / 1.1360 ms (-1.6%), 16 x 1 1.252 / 1.248 -> 1.234 / 1.232, batches 1 and
//       32 unchanged; the checks' errors against the float reference rose (bf16 recon at 10001: 8 x 2 9.5e-3 ->
//       1.04e-2, 4 x 2 1.02e-2 -> 1.35e-2). Dropped: 1.6% for a quarter more error.
//   R12. tried: attention skipping the 8-key blocks no row of a query tile attends to (with 3 samples of 10 rows
//       in 32, each tile sees 3 of the 4 blocks: a quarter of the QK^T MMAs, masks and exponentials left out by a
//       warp-uniform test; the blocks found by __reduce_or_sync at each attention, as the 8 x 2 shape has no
//       register to keep them). A/B in one call, HEAD's header against the new, two rounds alternating
//       (tools/results/h200/tf32_split/call_f/): 8 x 2 at 65536 1.1486 / 1.1538 -> 1.1583 / 1.1606 ms, 16 x 1
//       1.252 / 1.256 -> 1.294 / 1.298, 4 x 1 at 32 0.0274 / 0.0290 -> 0.0301 / 0.0306: slower everywhere (the
//       tests and predicates cost more than the work they skip). Dropped.
//   R13-R17: the code within the instruction cache. At 8 x 2 the unrolled kernel (12,148 PTX instructions, 40% of
//   them GELU unrolled at every product that may carry one) stalled on instruction fetch (a fifth of the stall
//   samples, R3). Each step an A/B in one call, the lab built per variant on the GPU machine, two rounds alternating
//   (tools/results/h200/views_softmax/call_a .. call_d), ms at 8 x 2 / 65536, 16 x 1 / 65536:
//   R13. the score scale inside the exponent's FFMA (ex2(fma(s, c, -max c)); positive scales only, the builder
//       declines others): 1.1505 / 1.1486 -> 1.1392 / 1.1300; 16 x 1 1.245 / 1.245 -> 1.258 / 1.251 (noise). Kept.
//   R14. attend's code once for both query tiles (a run-time loop, selects pick the tile's registers): -> 1.1097 /
//       1.1118; 16 x 1 1.223 / 1.215 (the same code at one tile). Kept (IE_RT_ATTEND_ONCE).
//   R15. tried: q's and k's product and RoPE as one copy (call_b): 1.1186 / 1.1187 -> 1.1234 / 1.1231, 16 x 1 1.224 /
//       1.221 -> 1.306 / 1.304. Dropped.
//   R16. the LayerNorms through one copy at two tiles a warp: the two that start a block's halves (call_b: -> 1.0576
//       / 1.0544; at 16 x 1 slower, 1.250 / 1.245, hence two tiles only), then every LayerNorm of the chain, the
//       stages differing only in where the rows come from and go (call_c: attend-once 1.0907 / 1.0853, the block's
//       two 1.0570 / 1.0531, all 1.0324 / 1.0271); PTX 11,447 -> 10,548 -> 7,902. Kept (IE_RT_NORM_SHARED).
//   R17. GELU of the products that seldom carry one (every Linear but fc1; fc1's and the LayerNorms' stay inline) as
//       one __noinline__ copy, the accumulator through a local array (call_d): 1.0252 / 1.0272 -> 0.9522 / 0.9460;
//       16 x 1 1.286 / 1.290 -> 1.199 / 1.193; 4096 16 x 1 0.0869 / 0.0876 -> 0.0820 / 0.0803; 32 4 x 1 0.028
//       unchanged; PTX 7,902 -> 5,776, spill stores 140 -> 28 bytes. Kept (IE_RT_GELU_OUT_OF_LINE). Its checks
//       include a chain with GELU after every Linear (Shape::gelu_everywhere), which found the encoder's activation
//       accepted and ignored (now applied). The engine in the same call: bf16 at 65536 0.9399 ms, fp16 1.0139.
//   R18-R21: small batches (tools/results/h200/row_heads/call_a .. call_e; ms with the launch, two rounds unless
//   said; "HEAD": the previous header built in the same call).
//   R18. warp groups sharing a 16-row tile, one attention head a warp (layers/sample_resident/row_heads.cuh; configs
//       4041, 4081, 4161 = group x 1000 + warps x 10 + 1): each warp normalizes whole rows itself, computes q, k, v
//       and the attention of its head, the projection's and fc2's columns of its head and a share of fc1's chunks;
//       the attention output and the MLP hidden go through the group's shared A fragments (two group barriers a
//       block). call_a: batch 1 4041 0.0247 / 0.0254, 4081 0.0239 / 0.0244 against 4 x 1 (HEAD) 0.0277 / 0.0269;
//       32: 4041 0.0263 / 0.0270 against 0.0281 / 0.0273; past one wave they lose (512: 4161 0.0330 against 4 x 1's
//       0.0284; 65536: 4161 3.18). Work at batch 1 (rtlat: each stage's work left out, and all of it) about 13.7 us
//       against 4 x 1's 18; with every stage's work left out 12.8 us (an empty kernel 5.7).
//   R19. tried (call_b): the weight stages through a ring of up to four slots, three stages in flight, where shared
//       memory allows: batch 1 unchanged (4041 0.0268 / 0.0280 against two slots' 0.0278 / 0.0278; with every
//       stage's work left out 12.8 us either way), 4 x 1 at 65536 2.79 against HEAD's 2.61. Dropped: the stages do
//       not wait for the stream.
//   R20. the stage timeline (-DIE_RT_TRACE=1, rttrace CFG BATCH: clock64 at each stage's edges in CTA 0; call_c):
//       4041 at batch 1 from the CTA's start: start 0.95 us, the embedding (the group's first warp) 2.46, attention
//       1.6, MLP 1.35, final LayerNorm 0.86 and the CTA-wide encoder 1.76, decoder 1.74, output Linear 1.3: 16.8 us.
//       8 x 2 at 65536 (CTA 0's first tile): embedding 6.3-7.6, attention 6.0, MLP 4.6, encoder 1.8 + 2.3, decoder
//       2.1, output 3.2.
//   R21. the embedding's input: all of a k-step's pairs loaded before any is packed (x_pairs, then pack_x; before,
//       each load fed its own conversion) and, in one-tile shapes with registers to spare (4 and 12 warps, the warp
//       groups), loaded when the tile starts, before its first stage waits for the weights (IE_RT_X_EARLY). A first
//       try that packed at the tile's start waited for the loads there (call_d: the first barrier 1.01 -> 2.71 us).
//       call_e, one round against HEAD: 8 x 2 at 65536 0.9412 -> 0.8526, at 4096 0.0917 -> 0.0873; 16 x 1 1.1887 ->
//       1.1479; 4 x 1 at 1 0.0260 -> 0.0255 (4081 0.0222, 4041 0.0229); the embedding stage at batch 1 (trace)
//       2.46 -> 1.30 us of rows. The engine (bench, bf16): 1 0.0231 -> 0.0200 ms, 32 0.0241 -> 0.0220, 512 0.0252
//       -> 0.0253, 4096 0.0780 -> 0.0771, 65536 0.9399 -> 0.8536; fp16 65536 1.014 -> 0.927.
//   R22. ncu warp-state samples of one launch (call_g): at batch 1 a quarter to a third of the warps' time is
//       instruction fetch (4041: wait 27%, no instruction 23%, short scoreboard 17%, issuing 14%, barrier 12%; 4 x 1:
//       no instruction 32%, its three idle warps' barrier 27%): each stage's code runs once a launch. 8 x 2 at
//       65536: 338.5 M instructions, 0.43 issued a cycle per scheduler; wait 26%, issuing 21%, short scoreboard
//       15%, not selected 10%, fetch 2.6%. Per line (call_d, 8 x 2 at 65536): GELU 15% of the executed
//       instructions, LayerNorm 14%, the MMAs 12.6%, the softmax 9%, RoPE 5%.
//   R23. tried: the next tile's input by bulk copy (thread 0, a copy a warp, on a third mbarrier) into the warps'
//       residual streams, dead from the encoder on, while the decoder and the output Linear run; the embedding read
//       it from shared memory (tools/results/h200/x_copy/call_a, A/B in one binary, two rounds): 8 x 2 at 65536
//       0.856 -> 0.881 ms, 16 x 1 at 65536 1.159 -> 1.237, at 4096 0.081 -> 0.086. The steady-state timeline (a
//       later tile: -DIE_RT_TRACE_TILE=3, kept) says why: the embedding's rows 3.8 -> 3.2 us, but the eight copies
//       held warp 0 in the decoder stage 1.6 us longer and the output rows took 1.5 us more while they landed.
//       Dropped. Steady state of 8 x 2 at 65536 without it (one tile of 24 samples, ~37.6 us): embedding 4.4,
//       attention 6.3 and MLP 4.9 a block, final LayerNorm + encoder 4.4, decoder 2.8, output 4.0; attribution
//       (each stage's work left out): embedding 0.08 ms, attentions 0.27, MLPs 0.20, encoder 0.08, decoder 0.045,
//       output 0.075 of 0.855.
//   Floor as above (0.13 ms); the kernel is bound by its instructions'
//   latency with 8-16 warps per SM, not by the Tensor Cores (HMMA 7% of the instructions).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "layers/sample_resident/row_heads.cuh"
#include "layers/sample_resident/row_tile_builder.h"
#include "layers/sample_resident/sample_resident.cuh"
#include "layers/sample_resident/sample_resident_builder.h"
#include "tests/kernels/ssa_chain.h"
#include "tests/kernels/ssa_reference.h"

using namespace ie::sr;

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

static uint16_t to_bits(float f, Elem e) {
  if (e == Elem::BF16) {
    __nv_bfloat16_raw r = __float2bfloat16_rn(f);
    return r.x;
  }
  __half_raw r = __float2half_rn(f);
  return r.x;
}
static float from_bits(uint16_t u, Elem e) {
  if (e == Elem::BF16) {
    __nv_bfloat16_raw r;
    r.x = u;
    return __bfloat162float(__nv_bfloat16(r));
  }
  __half_raw r;
  r.x = u;
  return __half2float(__half(r));
}

struct Device {
  int sms = 0, smem_optin = 0;
  double peak_tflops = 0;
};

struct Runner {
  Built built;
  Program* d_prog = nullptr;
  void* d_w = nullptr;
  float* d_f = nullptr;
  int grid_cap = 0;
  template <class T>
  void setup(const Device& dev) {
    CK(cudaMalloc(&d_prog, sizeof(Program)));
    CK(cudaMemcpy(d_prog, &built.program, sizeof(Program), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_w, built.weights.size() * 2));
    CK(cudaMemcpy(d_w, built.weights.data(), built.weights.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_f, built.floats.size() * 4));
    CK(cudaMemcpy(d_f, built.floats.data(), built.floats.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaFuncSetAttribute(sample_resident_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, dev.smem_optin));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sample_resident_kernel<T>, built.program.warps * 32,
                                                     built.program.smem_bytes));
    grid_cap = std::max(1, per_sm) * dev.sms;
  }
  template <class T>
  void launch(const float* x, float* recon, float* latent, int64_t batch, cudaStream_t s = 0) {
    Args a;
    a.program = d_prog, a.weights = d_w, a.floats = d_f, a.batch = batch;
    a.io[0] = x, a.io[1] = recon, a.io[2] = latent;
    const int64_t tiles = (batch + built.program.tile - 1) / built.program.tile;
    const int grid = static_cast<int>(std::min<int64_t>(tiles, grid_cap));
    sample_resident_kernel<T><<<grid, built.program.warps * 32, built.program.smem_bytes, s>>>(a);
  }
  int warps() const { return built.program.warps; }
  int tile() const { return built.program.tile; }
  int smem() const { return built.program.smem_bytes; }
  const char* name() const { return "interp"; }
  ~Runner() { cudaFree(d_prog), cudaFree(d_w), cudaFree(d_f); }
};

// The row-tile kernel (layers/sample_resident/row_tile.cuh) on the same chain.
struct RtRunner {
  RtBuilt built;
  unsigned char* d_w = nullptr;
  float* d_f = nullptr;
  long long* trace = nullptr;  // IE_RT_TRACE builds: the stage timeline of CTA 0
  int grid_cap = 0;
  template <class T>
  static void (*kernel(const RtModel& m))(rt::Args) {
    return rt::kernel_for<T, 64, 16>(m.warps, m.mt, m.group);
  }
  template <class T>
  void setup(const Device& dev) {
    CK(cudaMalloc(&d_w, built.weights.size()));
    CK(cudaMemcpy(d_w, built.weights.data(), built.weights.size(), cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_f, built.floats.size() * 4));
    CK(cudaMemcpy(d_f, built.floats.data(), built.floats.size() * 4, cudaMemcpyHostToDevice));
    auto k = kernel<T>(built.model);
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, dev.smem_optin));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, built.model.warps * 32, built.model.smem_bytes));
    grid_cap = std::max(1, per_sm) * dev.sms;
  }
  template <class T>
  void launch(const float* x, float* recon, float* latent, int64_t batch, cudaStream_t s = 0) {
    rt::Args a;
    a.m = built.model, a.weights = d_w, a.floats = d_f, a.x = x, a.recon = recon, a.latent = latent;
    a.batch = batch, a.trace = trace;
    const int64_t tiles = (batch + built.model.tile - 1) / built.model.tile;
    const int grid = static_cast<int>(std::min<int64_t>(tiles, grid_cap));
    kernel<T>(built.model)<<<grid, built.model.warps * 32, built.model.smem_bytes, s>>>(a);
  }
  int warps() const {
    return (built.model.group > 1 ? built.model.group * 1000 : 0) + built.model.warps * 10 + built.model.mt;
  }
  int tile() const { return built.model.tile; }
  int smem() const { return built.model.smem_bytes; }
  const char* name() const { return built.model.group > 1 ? "heads" : "rowtile"; }
  ~RtRunner() { cudaFree(d_w), cudaFree(d_f); }
};

static double max_err(const std::vector<float>& got, const std::vector<float>& want, double* worst_ref) {
  double e = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]) / (1.0 + std::fabs(want[i]));
    if (!(d <= e)) e = d, *worst_ref = want[i];
  }
  return e;
}

// The chain's program for this device and warp limit; false (with the reason printed) when it is declined.
static bool build_for(const Device& dev, const ChainSpec& spec, int max_warps, Built* built, const Shape& s) {
  std::string why;
  Budget budget;
  budget.smem_bytes = dev.smem_optin;
  budget.max_warps = max_warps;
  if (build_program(spec, budget, built, &why)) return true;
  std::printf("  shape seq %d width %d: declined: %s\n", s.seq, s.width, why.c_str());
  return false;
}

// The row-tile kernel; config = group x 1000 + warps x 10 + MMA tiles per warp (82: 8 warps of 2 tiles, 161: 16
// warps of 1; 4161: 16 warps in groups of 4 sharing a tile, row_heads.cuh).
static bool build_for(const Device& dev, const ChainSpec& spec, int config, RtBuilt* built, const Shape& s) {
  std::string why;
  RtBudget budget;
  budget.smem_bytes = dev.smem_optin;
  budget.group = std::max(1, config / 1000);
  budget.warps = config % 1000 / 10;
  budget.mt = config % 10;
  if (build_row_tile(spec, budget, built, &why)) return true;
  std::printf("  rowtile shape seq %d width %d: declined: %s\n", s.seq, s.width, why.c_str());
  return false;
}

template <class T, class R = Runner>
static bool check(const Device& dev, const Shape& s, Elem e, int64_t batch, int max_warps, std::mt19937& rng) {
  ChainSpec spec = ssa_chain(s, e, rng, to_bits);
  R run;
  if (!build_for(dev, spec, max_warps, &run.built, s)) return true;
  run.template setup<T>(dev);
  const int per_in = s.seq * s.slice, per_r = s.seq * s.slice, per_z = s.latent;
  std::vector<float> x(batch * per_in);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (auto& v : x) v = nd(rng);
  float *dx, *dr, *dz;
  CK(cudaMalloc(&dx, x.size() * 4));
  CK(cudaMalloc(&dr, batch * per_r * 4 + 64));
  CK(cudaMalloc(&dz, batch * per_z * 4 + 64));
  CK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(dr, 0xff, batch * per_r * 4 + 64));  // NaN: unwritten outputs show
  CK(cudaMemset(dz, 0xff, batch * per_z * 4 + 64));
  run.template launch<T>(dx, dr, dz, batch);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> r(batch * per_r + 16), z(batch * per_z + 16), rr(batch * per_r), rz(batch * per_z);
  CK(cudaMemcpy(r.data(), dr, r.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(z.data(), dz, z.size() * 4, cudaMemcpyDeviceToHost));
  // Run again: the same bits (split K adds its slices in a fixed order, no atomics).
  run.template launch<T>(dx, dr, dz, batch);
  CK(cudaDeviceSynchronize());
  std::vector<float> r2(r.size()), z2(z.size());
  CK(cudaMemcpy(r2.data(), dr, r2.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(z2.data(), dz, z2.size() * 4, cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(r2.data(), r.data(), batch * per_r * 4) == 0 &&
                    std::memcmp(z2.data(), z.data(), batch * per_z * 4) == 0;
  ssa_reference(spec, x, batch, &rr, &rz, from_bits);
  bool past_ok = true;  // nothing written past the batch
  for (int i = 0; i < 16; ++i) past_ok &= std::isnan(r[batch * per_r + i]) && std::isnan(z[batch * per_z + i]);
  r.resize(batch * per_r), z.resize(batch * per_z);
  double wr = 0, wz = 0;
  const double er = max_err(r, rr, &wr), ez = max_err(z, rz, &wz);
  const double tol = e == Elem::BF16 ? 5e-2 : 1e-2;  // relative to 1 + |ref|, through 2 blocks
  const bool ok = er <= tol && ez <= tol && past_ok && same;
  std::printf(
      "  %-7s %-4s seq %2d slice %2d width %3d heads %d hidden %3d latent %2d batch %6lld cfg %3d tile %3d "
      "smem %3d KiB: recon err %.2e latent err %.2e (tol %.0e)%s %s\n",
      run.name(), e == Elem::BF16 ? "bf16" : "fp16", s.seq, s.slice, s.width, s.heads, s.hidden, s.latent,
      static_cast<long long>(batch), run.warps(), run.tile(), run.smem() / 1024, er, ez, tol,
      past_ok ? "" : " WROTE PAST THE BATCH",
      ok     ? "ok"
      : same ? "FAIL"
             : "FAIL (not the same bits twice)");
  cudaFree(dx), cudaFree(dr), cudaFree(dz);
  return ok;
}

// Leaves out every instruction of kind `drop` (results are wrong; the time is the rest's): stage attribution.
static void drop_kind(Program& p, int drop) {
  if (drop < 0) return;
  int n = 0;
  for (int i = 0; i < p.count; ++i)
    if (static_cast<int>(p.instr[i].op) != drop) p.instr[n++] = p.instr[i];
  p.count = n;
}

static void drop_stages(Runner& r, int drop) { drop_kind(r.built.program, drop); }
// drop 6: every stage's work.
static void drop_stages(RtRunner& r, int drop) { r.built.model.skip = drop < 0 ? 0 : drop == 6 ? 63 : 1 << drop; }
static const char* stage_name(const Runner&, int drop) {
  const char* kinds[] = {"Load", "Store", "Linear", "LayerNorm", "Attention"};
  return kinds[drop];
}
static const char* stage_name(const RtRunner&, int drop) {
  const char* stages[] = {"embedding", "attention", "MLP", "encoder", "decoder", "output", "everything"};
  return stages[drop];
}

// Median ms of launch(i) over 50 runs after 20 untimed ones, each run between two events and waited for (so a
// small batch's figure includes its launch).
template <class F>
static double launch_median_ms(F&& launch) {
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  for (int i = 0; i < 20; ++i) launch(i);
  std::vector<float> ms;
  for (int i = 0; i < 50; ++i) {
    CK(cudaEventRecord(t0));
    launch(i);
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float m = 0;
    CK(cudaEventElapsedTime(&m, t0, t1));
    ms.push_back(m);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(t0), cudaEventDestroy(t1);
  return ms[ms.size() / 2];
}

template <class T, class R = Runner>
static void time_it(const Device& dev, Elem e, int64_t batch, int max_warps, std::mt19937& rng, int drop = -1) {
  Shape s;
  ChainSpec spec = ssa_chain(s, e, rng, to_bits);
  R run;
  if (!build_for(dev, spec, max_warps, &run.built, s)) return;
  drop_stages(run, drop);
  run.template setup<T>(dev);
  const int per_in = s.seq * s.slice;
  constexpr int kSets = 3;
  float *dx[kSets], *dr, *dz;
  std::vector<float> x(batch * per_in);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (int i = 0; i < kSets; ++i) {
    for (auto& v : x) v = nd(rng);
    CK(cudaMalloc(&dx[i], x.size() * 4));
    CK(cudaMemcpy(dx[i], x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  }
  CK(cudaMalloc(&dr, batch * s.seq * s.slice * 4));
  CK(cudaMalloc(&dz, batch * s.latent * 4));
  const double med = launch_median_ms([&](int i) { run.template launch<T>(dx[i % kSets], dr, dz, batch); });
  const double flop = chain_flops_per_sample(spec) * batch;
  const double bytes = batch * (s.seq * s.slice * 2.0 + s.latent) * 4;
  if (drop >= 0) std::printf("  without %-9s", stage_name(run, drop));
  std::printf(
      "  %-7s %s batch %6lld cfg %3d smem %3d KiB grid %4d: %8.4f ms  %7.1f TFLOP/s (%4.1f%% of %.0f)  %6.0f GB/s\n",
      run.name(), e == Elem::BF16 ? "bf16" : "fp16", static_cast<long long>(batch), run.warps(), run.smem() / 1024,
      run.grid_cap, med, flop / med / 1e9, 100.0 * flop / med / 1e9 / dev.peak_tflops, dev.peak_tflops,
      bytes / med / 1e6);
  for (int i = 0; i < kSets; ++i) cudaFree(dx[i]);
  cudaFree(dr), cudaFree(dz);
}

// The stage timeline of CTA 0 at `batch` on row-tile shape `config` (a -DIE_RT_TRACE=1 build; the lab's other
// modes pass no trace): after warm-up launches, one traced launch; per stage, from the first warp's start: when the
// warps reach its weights' wait, how long the wait and barrier take, each warp's rows, the CTA-wide part.
static void trace_stages(const Device& dev, int config, int64_t batch, std::mt19937& rng) {
  Shape s;
  ChainSpec spec = ssa_chain(s, Elem::BF16, rng, to_bits);
  RtRunner run;
  if (!build_for(dev, spec, config, &run.built, s)) return;
  run.setup<__nv_bfloat16>(dev);
  const int warps = run.built.model.warps, stages = run.built.model.stages;
  float *dx, *dr, *dz;
  std::vector<float> x(batch * s.seq * s.slice);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (auto& v : x) v = nd(rng);
  CK(cudaMalloc(&dx, x.size() * 4));
  CK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dr, batch * s.seq * s.slice * 4));
  CK(cudaMalloc(&dz, batch * s.latent * 4));
  std::vector<long long> t(rt::kRtTraceEdges * 32, 0);
  CK(cudaMalloc(&run.trace, t.size() * 8));
  CK(cudaMemset(run.trace, 0, t.size() * 8));
  for (int i = 0; i < 20; ++i) run.launch<__nv_bfloat16>(dx, dr, dz, batch);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(t.data(), run.trace, t.size() * 8, cudaMemcpyDeviceToHost));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double us = 1e3 / khz;  // per cycle, at the nominal clock
  long long t0 = t[0];
  for (int w = 0; w < warps; ++w) t0 = std::min(t0, t[w]);
  std::printf("  %s cfg %d batch %lld: CTA 0, us from its first warp's start (%.2f GHz nominal)\n", run.name(),
              run.warps(), static_cast<long long>(batch), khz / 1e6);
  const char* kinds[] = {"embed", "attn", "mlp", "enc", "dec", "out"};
  const RtModel& m = run.built.model;
  for (int st = 0; st < stages; ++st) {
    const int kind = st == 0 ? 0 : st <= 2 * m.blocks ? 2 - (st & 1) : st - 2 * m.blocks + 2;
    auto at = [&](int edge, int w) { return t[(1 + 4 * st + edge) * 32 + w]; };
    long long reach = at(0, 0), pass = at(1, 0), end = at(3, 0);
    for (int w = 0; w < warps; ++w)
      reach = std::min(reach, at(0, w)), pass = std::max(pass, at(1, w)), end = std::max(end, at(3, w));
    std::printf("  stage %2d %-5s reached %7.2f  passed %7.2f  rows per warp:", st, kinds[kind], (reach - t0) * us,
                (pass - t0) * us);
    for (int w = 0; w < warps; ++w) std::printf(" %5.2f", (at(2, w) - at(1, w)) * us);
    std::printf("  CTA-wide %5.2f  done %7.2f\n", (end - at(2, 0)) * us, (end - t0) * us);
  }
  cudaFree(dx), cudaFree(dr), cudaFree(dz), cudaFree(run.trace);
  run.trace = nullptr;
}

// An empty kernel timed as time_it times the others: the launch's share of a batch-1 figure.
__global__ void empty_kernel() {}
static void time_empty() {
  std::printf("  empty kernel, one CTA of 128 threads: %8.4f ms\n",
              launch_median_ms([](int) { empty_kernel<<<1, 128>>>(); }));
}

// The SSA's program as the builder lays it out (no device needed).
static void print_plan() {
  std::mt19937 rng(1);
  ChainSpec spec = ssa_chain(Shape{}, Elem::BF16, rng, to_bits);
  Built b;
  std::string why;
  if (!build_program(spec, Budget{}, &b, &why)) {
    std::printf("declined: %s\n", why.c_str());
    return;
  }
  const Program& p = b.program;
  const char* names[] = {"Load", "Store", "Linear", "LayerNorm", "Attention"};
  std::printf(
      "tile %d, warps %d, smem %d B (zero %d, scratch %d, weight slots %d + 2 x %d), %zu weights, %zu floats, "
      "%.2f MFLOP per sample\n",
      p.tile, p.warps, p.smem_bytes, p.zero, p.scratch, p.w_stage, p.w_slot_bytes, b.weights.size(), b.floats.size(),
      chain_flops_per_sample(spec) / 1e6);
  for (int i = 0; i < p.count; ++i) {
    const Instr& in = p.instr[i];
    std::printf("%2d %-9s in %6d/%d [%d,%d] -> out %6d/%d [%d,%d] io %d/%d res %d k %d n %d ksplit %d act %d rope %d\n",
                i, names[static_cast<int>(in.op)], in.in.offset, static_cast<int>(in.in.elem), in.in.rows, in.in.cols,
                in.out.offset, static_cast<int>(in.out.elem), in.out.rows, in.out.cols, in.in.io, in.out.io,
                in.residual.offset, in.k, in.n, in.ksplit, in.act, in.rope_cols);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "plan") {
    print_plan();
    return 0;
  }
  Device dev;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  dev.sms = prop.multiProcessorCount;
  dev.smem_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  dev.peak_tflops = 760.0;  // dense bf16/fp16 mma.sync measured peak class of an H100/H200 SXM (device_peaks)
  std::printf("%s, %d SMs, %d KiB shared per CTA\n", prop.name, dev.sms, dev.smem_optin / 1024);
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool time_only = mode == "time" || mode == "rttime";
  if (argc > 1 && std::string(argv[1]) == "one") {  // one launch at batch 4096, for ncu
    std::mt19937 rng(7);
    time_it<__nv_bfloat16>(dev, Elem::BF16, 4096, 16, rng);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "rtone") {  // the row-tile kernel at batch 65536 (or argv[3]), for ncu
    std::mt19937 rng(7);
    time_it<__nv_bfloat16, RtRunner>(dev, Elem::BF16, argc > 3 ? std::atoll(argv[3]) : 65536,
                                     argc > 2 ? std::atoi(argv[2]) : 82, rng);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "rttrace") {  // the stage timeline of CTA 0 (a -DIE_RT_TRACE=1 build)
    std::mt19937 rng(7);
    trace_stages(dev, argc > 2 ? std::atoi(argv[2]) : 4041, argc > 3 ? std::atoll(argv[3]) : 1, rng);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "rtlat") {  // batch-1 latency: each shape, each stage left out in turn
    std::mt19937 rng(7);
    time_empty();
    for (int w : {41, 121, 161, 4041, 4081})
      for (int k = -1; k < 7; ++k) time_it<__nv_bfloat16, RtRunner>(dev, Elem::BF16, 1, w, rng, k);
    return 0;
  }
  std::mt19937 rng(1234);
  bool ok = true;
  // the row-tile kernel's checks and timings, its timings, or its checks
  const bool rt_only = mode == "rt" || mode == "rttime" || mode == "rtcheck";
  if (!time_only) {
    std::printf("checks against the float reference:\n");
    const Shape ssa;
    if (!rt_only) {
      for (int64_t b : {1, 7, 16, 17, 1000, 10001}) ok &= check<__nv_bfloat16>(dev, ssa, Elem::BF16, b, 16, rng);
      for (int64_t b : {1, 33, 1000}) ok &= check<__half>(dev, ssa, Elem::F16, b, 16, rng);
      Shape odd;  // other sizes of the architecture
      odd.seq = 7, odd.slice = 16, odd.width = 128, odd.heads = 4, odd.hidden = 256, odd.blocks = 1, odd.latent = 16;
      ok &= check<__nv_bfloat16>(dev, odd, Elem::BF16, 999, 16, rng);
      odd.seq = 12, odd.slice = 16, odd.width = 64, odd.heads = 4, odd.hidden = 64, odd.blocks = 3, odd.latent = 16;
      ok &= check<__nv_bfloat16>(dev, odd, Elem::BF16, 77, 16, rng);
      ok &= check<__half>(dev, odd, Elem::F16, 5, 8, rng);
    }
    // The row-tile kernel: 8 warps of 2 samples, 16 warps of 1, 4 warps of 2 (a tile of 8).
    // Then warp groups sharing a tile, a head each: 4 warps (one group), 16 (four).
    for (int w : {82, 161, 121, 42, 41, 4041, 4161})
      for (int64_t b : {1, 7, 16, 17, 1000, 10001})
        ok &= check<__nv_bfloat16, RtRunner>(dev, ssa, Elem::BF16, b, w, rng);
    for (int w : {82, 4161})
      for (int64_t b : {1, 33, 1000}) ok &= check<__half, RtRunner>(dev, ssa, Elem::F16, b, w, rng);
    Shape odd;
    odd.seq = 7, odd.slice = 16, odd.width = 64, odd.heads = 4, odd.hidden = 64, odd.blocks = 3, odd.latent = 16;
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 77, 82, rng);
    ok &= check<__half, RtRunner>(dev, odd, Elem::F16, 5, 161, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 1001, 82, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 1001, 4081, rng);  // 2 samples per shared tile
    ok &= check<__half, RtRunner>(dev, odd, Elem::F16, 5, 4041, rng);
    odd.seq = 16, odd.slice = 48, odd.width = 64, odd.heads = 4, odd.hidden = 96, odd.blocks = 1, odd.latent = 16;
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 999, 82, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 999, 4161, rng);  // 3 output groups for 4 warps
    odd.seq = 1, odd.slice = 32, odd.width = 64, odd.heads = 4, odd.hidden = 128, odd.blocks = 2, odd.latent = 32;
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 33, 42, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 1000, 82, rng);    // 32 samples per warp
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 1000, 4161, rng);  // 16 per shared tile
    odd.seq = 5, odd.slice = 16, odd.hidden = 64, odd.blocks = 1, odd.latent = 16;
    ok &= check<__half, RtRunner>(dev, odd, Elem::F16, 777, 161, rng);   // 3 samples per warp, 1 tile
    ok &= check<__half, RtRunner>(dev, odd, Elem::F16, 777, 4121, rng);  // hidden 64: 2 chunks for 4 warps
    odd.seq = 10, odd.slice = 32, odd.width = 128, odd.heads = 4, odd.hidden = 128, odd.blocks = 2, odd.latent = 32;
    ok &= check<__nv_bfloat16, RtRunner>(dev, odd, Elem::BF16, 33, 82, rng);  // declined: width 128
    Shape gelus;  // GELU after every Linear: the out-of-line activation
    gelus.gelu_everywhere = true;
    ok &= check<__nv_bfloat16, RtRunner>(dev, gelus, Elem::BF16, 1001, 82, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, gelus, Elem::BF16, 77, 161, rng);
    ok &= check<__nv_bfloat16, RtRunner>(dev, gelus, Elem::BF16, 77, 4161, rng);
    ok &= check<__half, RtRunner>(dev, gelus, Elem::F16, 33, 82, rng);
    std::printf(ok ? "all checks passed\n" : "CHECKS FAILED\n");
  }
  if (mode == "--check-only" || mode == "rtcheck") return ok ? 0 : 1;
  std::printf("timings (SSA shape):\n");
  for (int64_t b : {1, 32, 512, 4096, 65536}) {
    time_it<__nv_bfloat16>(dev, Elem::BF16, b, 16, rng);
    for (int w : {82, 161, 121, 42, 41, 4041, 4081, 4161}) time_it<__nv_bfloat16, RtRunner>(dev, Elem::BF16, b, w, rng);
  }
  time_it<__half, RtRunner>(dev, Elem::F16, 65536, 82, rng);
  std::printf("row-tile stage attribution (batch 65536, bf16, 8 x 2; each stage's work left out in turn):\n");
  for (int k = 0; k < 6; ++k) time_it<__nv_bfloat16, RtRunner>(dev, Elem::BF16, 65536, 82, rng, k);
  if (rt_only) return ok ? 0 : 1;
  for (int w : {10, 8}) time_it<__nv_bfloat16>(dev, Elem::BF16, 65536, w, rng);
  time_it<__half>(dev, Elem::F16, 65536, 16, rng);
  std::printf("stage attribution (batch 65536, bf16):\n");
  for (int k = 1; k <= 4; ++k) time_it<__nv_bfloat16>(dev, Elem::BF16, 65536, 16, rng, k);
  return ok ? 0 : 1;
}
