"""Writes @deep: N jx.remat regions, each nested in the one before.

    make-deep-nesting.py N > deep.mlir
"""
import sys

n = int(sys.argv[1])
lines = ["func.func @deep(%x: tensor<4xf32>) -> tensor<4xf32> {"]
value = "%x"
for i in range(n):
    lines.append(f"%r{i} = jx.remat({value}) : (tensor<4xf32>) -> tensor<4xf32> "
                 f"policy = #jx.policy<nothing_saveable> {{")
    lines.append(f"^bb0(%a{i}: tensor<4xf32>):")
    value = f"%a{i}"
lines.append(f"%s = jx.sin {value} : tensor<4xf32>")
lines.append("jx.yield %s : tensor<4xf32>")
for i in reversed(range(n)):
    lines.append("}")
    if i > 0:
        lines.append(f"jx.yield %r{i} : tensor<4xf32>")
lines.append("return %r0 : tensor<4xf32>")
lines.append("}")
print("\n".join(lines))
