"""Reading the test code (its syntax tree only, nothing run): which variable holds the
results, which names it calls (the operator's entries), and whether an object is the operator
code's own.
"""

import ast
import types


# Reading the test code: which variable holds the results, and which names it calls.


def _top_level(body):
    """Top-level statements, looking inside `if __name__ == "__main__":` blocks too."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _top_level(node.body)


def find_result_source(test_tree):
    """How to get the test's results: ('variable', NAME, 'NAME = test_x()') for the last
    top-level assignment from a call to a test function; else ('call', FUNC, 'test_x()') for the
    last test function the code defines but never calls (context_attn_bloom.py); else None."""
    defined = [n.name for n in test_tree.body if isinstance(n, ast.FunctionDef)]
    found = None
    called = set()
    for node in _top_level(test_tree.body):
        value = getattr(node, "value", None)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            called.add(value.func.id)
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and value.func.id in defined):
                found = ("variable", node.targets[0].id,
                         "%s = %s()" % (node.targets[0].id, value.func.id))
    if found:
        return found
    for fn in reversed([n for n in test_tree.body if isinstance(n, ast.FunctionDef)]):
        required = len(fn.args.args) - len(fn.args.defaults)
        if fn.name.startswith("test") and required == 0 and fn.name not in called:
            return ("call", fn.name, "%s()" % fn.name)
    return None


def names_bound_by(tree):
    """Names a module binds at top level (defs, classes, assignments, imports)."""
    bound = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bound.add(n.id)
    return bound


def self_imports(tree, ns, importable):
    """The modules a test imports that are the operator's own file: TritonBench's T tests import
    their operator by its file name (`from tanh_linear import tanh_linear`), which its scripts
    find beside them. A module counts only where its name is one the operator code defines (the
    file is named after its entry), and not as a module it imported, it is not importable here,
    and every name taken from it is the operator code's (`ns`, the namespace the operator code
    left). Returns {module: [names]}."""
    found = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        names = [a.name for a in node.names]
        if node.module not in ns or isinstance(ns[node.module], types.ModuleType):
            continue
        if not all(n in ns for n in names):
            continue
        if not importable(node.module):
            found.setdefault(node.module, []).extend(names)
    return found


def names_loaded_by(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def attribute_calls(tree):
    """{name: {attr, ...}} for every call NAME.ATTR(...) in the tree: a class's static or class
    methods the test calls directly (streamk_matmul's test calls `matmul.forward(None, a, b)` of
    a torch.autograd.Function, never its apply)."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name):
            out.setdefault(n.func.value.id, set()).add(n.func.attr)
    return out


def defined_in_main(obj, depth=0):
    """Whether the operator code defined obj (exec'd as module __main__), rather than imported
    it: only its own functions are operator entries."""
    if depth > 3:
        return False
    if getattr(obj, "__module__", None) == "__main__":
        return True
    inner = getattr(obj, "fn", None)  # triton's JITFunction, Autotuner, Heuristics
    if inner is not None and inner is not obj and defined_in_main(inner, depth + 1):
        return True
    owner = getattr(obj, "__self__", None)  # SomeFunction.apply bound to its class
    return isinstance(owner, type) and defined_in_main(owner, depth + 1)
