"""What custom_kernel returned, crossing from the worker to the checker without pickles: the
worker describes it as JSON (a tree of tuples, lists, string-keyed dicts, plain values and
tensors given by dtype and shape) and copies each tensor into a buffer the checker made for it;
the checker checks the description against its limits, makes the buffers, and rebuilds the
same tree around them for the task's check.

Torch-free: the tensor type, the dtype names and the allocation are handed in, so the tests run
with stand-ins."""

MAX_DEPTH = 16
MAX_LEAVES = 4096


class ShapeError(ValueError):
    pass


def describe(obj, is_tensor, tensors, depth=0):
    """The description of `obj`; every tensor met is appended to `tensors`, in order."""
    if depth > MAX_DEPTH:
        raise ShapeError("custom_kernel's output nests deeper than %d" % MAX_DEPTH)
    if is_tensor(obj):
        tensors.append(obj)
        if len(tensors) > MAX_LEAVES:
            raise ShapeError("custom_kernel's output holds more than %d tensors" % MAX_LEAVES)
        return {"t": "tensor", "dtype": str(obj.dtype).replace("torch.", ""),
                "shape": [int(d) for d in obj.shape]}
    if isinstance(obj, (tuple, list)):
        return {"t": "tuple" if isinstance(obj, tuple) else "list",
                "items": [describe(x, is_tensor, tensors, depth + 1) for x in obj]}
    if isinstance(obj, dict):
        if not all(isinstance(k, str) for k in obj):
            raise ShapeError("custom_kernel's output is a dict with keys that are not strings")
        return {"t": "dict",
                "items": [[k, describe(v, is_tensor, tensors, depth + 1)] for k, v in obj.items()]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        if isinstance(obj, str) and len(obj) > 65536:
            raise ShapeError("custom_kernel's output holds a string of %d characters" % len(obj))
        return {"t": "value", "v": obj}
    raise ShapeError("custom_kernel returned a %s, which kjudge cannot hand to the checker "
                     "(tensors, tuples, lists, dicts and plain values can)" % type(obj).__name__)


def rebuild(desc, dtypes, allocate, max_bytes, state=None, depth=0):
    """The tree `desc` describes, each tensor made by allocate(dtype, shape); a description
    that breaks the limits (depth, leaves, an unknown dtype, a bad shape, more than max_bytes in
    all) is refused. `dtypes`: name -> (dtype, bytes per element). Returns (tree, buffers)."""
    if state is None:
        state = {"bytes": 0, "buffers": []}
    if depth > MAX_DEPTH or not isinstance(desc, dict):
        raise ShapeError("the worker described an output the checker does not take")
    kind = desc.get("t")
    if kind == "tensor":
        name, shape = desc.get("dtype"), desc.get("shape")
        if name not in dtypes:
            raise ShapeError("custom_kernel returned a tensor of dtype %r" % (name,))
        if not isinstance(shape, list) or len(shape) > 16 or not all(
                isinstance(d, int) and not isinstance(d, bool) and 0 <= d < (1 << 40)
                for d in shape):
            raise ShapeError("custom_kernel returned a tensor of shape %r" % (shape,))
        dtype, size = dtypes[name]
        count = 1
        for d in shape:
            count *= d
        state["bytes"] += count * size
        if state["bytes"] > max_bytes:
            raise ShapeError("custom_kernel's output is over %d bytes, more than the checker "
                             "takes for this input" % max_bytes)
        if len(state["buffers"]) >= MAX_LEAVES:
            raise ShapeError("custom_kernel's output holds more than %d tensors" % MAX_LEAVES)
        t = allocate(dtype, shape)
        state["buffers"].append(t)
        return t, state["buffers"]
    items = desc.get("items")
    if kind in ("tuple", "list"):
        if not isinstance(items, list):
            raise ShapeError("a bad %s in the worker's description" % kind)
        out = [rebuild(x, dtypes, allocate, max_bytes, state, depth + 1)[0] for x in items]
        return (tuple(out) if kind == "tuple" else out), state["buffers"]
    if kind == "dict":
        if not isinstance(items, list) or not all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in items):
            raise ShapeError("a bad dict in the worker's description")
        return ({k: rebuild(v, dtypes, allocate, max_bytes, state, depth + 1)[0]
                 for k, v in items}, state["buffers"])
    if kind == "value":
        v = desc.get("v")
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise ShapeError("a bad value in the worker's description")
        return v, state["buffers"]
    raise ShapeError("the worker described an output of kind %r" % (kind,))
