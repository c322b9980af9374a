"""SASS opcode counts per kernel from `cuobjdump -sass` output, for the ldmatrix experiment's call scripts.

    import sys; sys.path.insert(0, 'tools/results/h200/conv_ldmatrix')
    from sass_counts import functions, find, report
or from the shell, one report per 'TAG=NEEDLE,NEEDLE,...' argument (BF16 stands for the bf16 instantiation):
    "$TORCH_PYTHON" tools/results/h200/conv_ldmatrix/sass_counts.py 'ldsm conv1=fused_conv_ldsm_kernel,Li6ELi1E,BF16'
"""
import collections
import re
import sys

OPCODE = re.compile(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)')
BF16 = 'Word16I13__nv_bfloat16EES4_S4_'  # the bf16-in, bf16-out instantiations


def functions(path='/tmp/lab.sass'):
    """The kernels' SASS texts, each starting with its mangled name."""
    return re.split(r'\n\s*Function : ', open(path).read())[1:]


def find(funcs, *needles):
    """The first kernel whose name holds every needle, or None."""
    for f in funcs:
        name = f.split('\n', 1)[0]
        if all(n in name for n in needles):
            return f
    return None


def report(tag, func, top=25, name_chars=150):
    """Prints the kernel's name and its instruction count by opcode (the `top` most frequent)."""
    if func is None:
        print(tag, 'not found')
        return
    ops = collections.Counter(m.group(1) for m in OPCODE.finditer(func))
    print(tag, func.split('\n', 1)[0][:name_chars])
    print('  total', sum(ops.values()), dict(ops.most_common(top)))


if __name__ == '__main__':
    fs = functions()
    for arg in sys.argv[1:]:
        tag, needles = arg.split('=', 1)
        report(tag, find(fs, *[BF16 if n == 'BF16' else n for n in needles.split(',')]))
