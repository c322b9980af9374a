#!/usr/bin/env bash
# SASS of the column kernel's conv-net instantiations (r = 7) from the lab binary, with an opcode histogram.
source tools/results/h200/device_env.sh
L=.device/lab
for cfg in 14ColumnTileR8W4 15ColumnTileR16W8; do
  fn="_ZN2ie10fused_conv25fused_conv_columns_kernelINS0_${cfg}ELi7EffEEvNS0_8TilePlanEPKT1_PK6float4PKfPT2_"
  cuobjdump -sass -fun "$fn" $L/fused_conv_lab > $R/sass_$cfg.txt 2>&1
  echo "$cfg: $(wc -l < $R/sass_$cfg.txt) lines"
  grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9_.]*" $R/sass_$cfg.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -14
done
cd $OUT && tar czf r.tgz r && rm -rf r
