"""The zero fill (the request's "zero_fill"): for an operator whose own test reads memory it never
set (the judge's table of known test defects, src/triton/judge/defect_table.cpp), the torch.empty
family returns zeros while the operator and its test run.
"""

from .errors import StageError


# The zero fill: for an operator whose own test reads memory it never set (the judge's table of
# known test defects, src/triton/judge/defect_table.cpp), the torch.empty family returns zeros.

ZERO_FILL_FUNCTIONS = ("empty", "empty_like", "empty_strided")   # torch.X
ZERO_FILL_METHODS = ("new_empty", "new_empty_strided")           # torch.Tensor.X


class ZeroFill:
    """Patches torch.empty, empty_like, empty_strided and Tensor.new_empty(_strided) so that each
    returns its tensor filled with zeros (under no_grad, so a leaf that requires grad stays a
    leaf), on whatever device it was made. install() before the operator code runs, remove()
    when the test is done. `report` is what goes back to the judge: the functions patched and
    how often each was called."""

    def __init__(self, torch):
        self.torch = torch
        self.saved = []  # (owner, name, the attribute as it was, whether owner held it itself)
        self.calls = {}
        self.report = {"patched": [], "calls": self.calls}

    def _zeroing(self, label, original):
        torch, calls = self.torch, self.calls

        def zeroed(*args, **kwargs):
            out = original(*args, **kwargs)
            if isinstance(out, torch.Tensor):
                with torch.no_grad():
                    out.zero_()
            calls[label] = calls.get(label, 0) + 1
            return out

        zeroed.__name__ = getattr(original, "__name__", label.rsplit(".", 1)[-1])
        zeroed.__doc__ = getattr(original, "__doc__", None)
        return zeroed

    def install(self):
        torch = self.torch
        for owner, prefix, names in ((torch, "torch.", ZERO_FILL_FUNCTIONS),
                                     (torch.Tensor, "torch.Tensor.", ZERO_FILL_METHODS)):
            for name in names:
                original = getattr(owner, name, None)
                if original is None:
                    continue
                own = name in getattr(owner, "__dict__", {})
                self.saved.append((owner, name, original, own))
                setattr(owner, name, self._zeroing(prefix + name, original))
                self.report["patched"].append(prefix + name)

    def remove(self):
        for owner, name, original, own in reversed(self.saved):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # inherited: the class's own entry goes again
        self.saved = []


# One run.


def zero_fill(torch):
    if torch is None:
        raise StageError("setup", RuntimeError("the zero fill needs torch"))
    return ZeroFill(torch)
