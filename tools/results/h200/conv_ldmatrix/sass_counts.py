"""SASS opcode counts per kernel from `cuobjdump -sass` output, for the ldmatrix experiment's call scripts.

    import sys; sys.path.insert(0, 'tools/results/h200/conv_ldmatrix')
    from sass_counts import functions, find, report
"""
import collections
import re

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
