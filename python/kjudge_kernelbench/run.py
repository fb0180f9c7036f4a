"""One whole run (run): the stages of kjudge_kernelbench/__init__.py in order, each failure
tagged with its stage, the record the judge reads. The control channel (control.py) is asked for
every GPU phase; `control` may be a LocalControl (a run by hand).
"""

import os
import platform
import sys

from .errors import StageError, describe_exception, describe_short
from .guard import TorchGuard, Watch
from .held import _clock
from .load import load_module
from .marks import CallMarks
from .tamper import Tamper
from .tensors import Tensors
from .timing import Timer

# Bytes of input sets the timed pairs draw from (at least one set, at most 4).
POOL_BYTES = 2 << 30
POOL_SETS = 4


def import_torch():
    try:
        import torch  # noqa: F401
    except Exception as e:  # noqa: BLE001 - the machine lacks it: reported, not charged
        raise StageError("setup", e) from None
    return sys.modules["torch"]


class Run:
    def __init__(self, request, control, tamper=None):
        self.request = request
        self.control = control
        self.tamper = tamper
        self.record = {"protocol": 1, "nonce": request.get("nonce", ""), "status": "ok",
                       "seconds": {}, "trials": []}
        self.torch = None
        self.marks = None
        self.compiled = None
        self.phase_held = None  # "gpu" or "time" while one is held

    # -- the control channel, with what is held remembered (a failure releases it) --

    def gpu(self):
        self.control.gpu()
        self.phase_held = "gpu"

    def idle(self):
        self.control.idle()
        self.phase_held = None

    def release(self):
        held, self.phase_held = self.phase_held, None
        try:
            if held == "gpu":
                self.control.idle()
            elif held == "time":
                self.control.end()
        except Exception:  # noqa: BLE001 - the channel is gone: the judge knows
            pass

    def timed(self, stage, fn):
        t0 = _clock()
        try:
            return fn()
        finally:
            self.record["seconds"][stage] = self.record["seconds"].get(stage, 0.0) + _clock() - t0

    def seed(self, s):
        self.torch.manual_seed(int(s) & ((1 << 63) - 1))

    # -- stages --

    def setup(self):
        req = self.request
        if req.get("hf_offline"):
            for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
                os.environ[k] = "1"
        torch = self.torch = import_torch()
        try:
            if not torch.cuda.is_available():
                raise RuntimeError("no CUDA device is visible to torch %s" % torch.__version__)
            torch.cuda.set_device(0)
            cap = int(req.get("gpu_memory_bytes") or 0)
            total = torch.cuda.get_device_properties(0).total_memory
            share = float(req.get("gpu_memory_share") or 0)
            if cap <= 0 and share > 0:
                cap = min(total, max(int(0.9 * total * share), 8 << 30))
            if cap > 0:
                torch.cuda.set_per_process_memory_fraction(min(1.0, cap / float(total)), 0)
            self.record["env"] = {
                "python": platform.python_version(), "torch": torch.__version__,
                "cuda": getattr(torch.version, "cuda", None),
                "gpu": torch.cuda.get_device_name(0), "gpu_memory_bytes": int(total),
                "memory_cap_bytes": cap}
        except Exception as e:  # noqa: BLE001
            raise StageError("setup", e) from None
        self.tensors = Tensors(torch)
        timing = req.get("timing") or {}
        self.marks = CallMarks() if timing.get("cupti") else None
        self.timer = Timer(torch, timing, self.marks)
        self.no_grad = torch.no_grad
        self.sync = torch.cuda.synchronize
        if self.tamper is not None:
            for name, obj in (("control", self.control), ("timer", self.timer),
                              ("tensors", self.tensors), ("marks", self.marks)):
                self.tamper.watch(name, obj)

    def call_marked(self, fn, args, side, index):
        marks = self.marks
        t0 = marks.now() if marks is not None else 0
        out = fn(*args)
        self.sync()
        if marks is not None:
            marks.add(side, 0, index, t0, marks.now())
        return out

    def reference(self):
        req = self.request
        mod = load_module(req["reference_path"], "kb_reference", "reference", "reference")
        self.ref_module = mod
        try:
            Model = mod.Model
            get_inputs, get_init_inputs = mod.get_inputs, mod.get_init_inputs
        except AttributeError as e:
            raise StageError("reference", e) from None
        self.get_inputs, self.get_init_inputs = get_inputs, get_init_inputs
        t = self.tensors
        try:
            self.seed(req["seed"])
            init = get_init_inputs()
            self.seed(req["seed"])
            model = Model(*init)
            self.trial_inputs = []
            for s in req["trial_seeds"]:
                self.seed(s)
                self.trial_inputs.append(get_inputs())
        except Exception as e:  # noqa: BLE001
            raise StageError("reference", e) from None
        self.gpu()
        try:
            self.timer.prepare()
            self.ref_model = model.cuda()
            self.ref_outputs, self.ref_alias = [], []
            with self.no_grad():
                for i, (s, inputs) in enumerate(zip(req["trial_seeds"], self.trial_inputs)):
                    x = t.to_device(inputs, "cuda")
                    self.seed(s)
                    y = self.call_marked(self.ref_model, x, 1, i)
                    if t.nonfinite(y):
                        raise ValueError("the reference's output holds NaN or Inf on trial %d" % i)
                    self.ref_outputs.append(y)
                    self.ref_alias.append(t.overlaps(t.spans(y), t.spans(x)))
        except StageError:
            raise
        except Exception as e:  # noqa: BLE001
            raise StageError("reference", e) from None
        self.idle()
        # The baselines of what the solution may change, taken once the reference has run (what
        # it and torch did for it, a model library's imports and threads, is not the solution's)
        # and before any of the solution's code runs.
        try:
            # torch.compile's first use (the judge's, or a solution's own) installs dynamo's hooks
            # on nn.Module: installed now, they are in the baseline.
            import torch._dynamo  # noqa: F401
            guard = sys.modules.get("torch._dynamo.mutation_guard")
            install = getattr(guard, "install_generation_tagging_init", None)
            if install is not None:
                install()
        except Exception:  # noqa: BLE001 - a torch without dynamo: nothing to install
            pass
        self.guard = TorchGuard(self.torch)
        self.watch = Watch(self.torch, [req["solution_path"]])
        if self.tamper is not None:
            self.tamper.watch("guard", self.guard)
            self.tamper.watch("watch", self.watch)

    def solution(self):
        req = self.request
        base = {k: v for k, v in vars(self.ref_module).items() if not k.startswith("__")}
        mod = load_module(req["solution_path"], "kb_solution", "syntax", "import", base=base)
        ModelNew = vars(mod).get("ModelNew")
        if ModelNew is None:
            raise StageError("import", NameError("the solution defines no ModelNew"))
        try:
            self.seed(req["seed"])
            init = self.get_init_inputs()
            self.seed(req["seed"])
            model = ModelNew(*init)
        except BaseException as e:  # noqa: BLE001
            raise StageError("init", e) from None
        self.gpu()
        try:
            self.sol_model = model.cuda() if hasattr(model, "cuda") else model
        except BaseException as e:  # noqa: BLE001
            raise StageError("init", e) from None

    def correctness(self):
        req, t = self.request, self.tensors
        atol, rtol = float(req["atol"]), float(req["rtol"])
        outputs = []  # held alive: an output sharing memory with one of them is a cached one
        try:
            with self.no_grad():
                for i, (s, inputs) in enumerate(zip(req["trial_seeds"], self.trial_inputs)):
                    x = t.to_device(inputs, "cuda")
                    self.seed(s)
                    y = self.call_marked(self.sol_model, x, 0, i)
                    r = t.compare(y, self.ref_outputs[i], atol, rtol)
                    mine = t.spans(y)
                    r["alias_input"] = t.overlaps(mine, t.spans(x))
                    r["alias_earlier"] = any(t.overlaps(mine, t.spans(o)) for o in outputs)
                    r["alias_reference"] = any(t.overlaps(mine, t.spans(o))
                                               for o in self.ref_outputs)
                    r["reference_alias_input"] = self.ref_alias[i]
                    if r["ok"]:
                        r.pop("why", None)
                    self.record["trials"].append(r)
                    outputs.append(y)
        except BaseException as e:  # noqa: BLE001
            raise StageError("correctness", e) from None
        self.idle()
        return all(r["ok"] for r in self.record["trials"])

    def compile_reference(self):
        info = {"attempted": True, "ok": False, "why": ""}
        self.record["compile"] = info
        self.compiled = None
        t0 = _clock()
        # What the solution has done so far, noted before the judge's compile adds its own.
        self.guard.note()
        self.watch.look()
        self.gpu()
        try:
            compiled = self.torch.compile(self.ref_model)
            with self.no_grad(), self.guard.reference_state():
                x = self.tensors.to_device(self.trial_inputs[0], "cuda")
                self.seed(self.request["trial_seeds"][0])
                y = compiled(*x)
                self.sync()
            r = self.tensors.compare(y, self.ref_outputs[0], float(self.request["atol"]),
                                     float(self.request["rtol"]))
            info["ok"] = True
            if not r["ok"]:
                info["why"] = "torch.compile's output differs from eager's: " + r["why"]
            self.compiled = compiled
        except Exception as e:  # noqa: BLE001 - no compiled baseline: reported, not charged
            info["why"] = describe_short(e)
        info["seconds"] = _clock() - t0
        # torch.compile's first use installs dynamo's hooks and starts inductor's compile workers:
        # the judge's doing, taken into the baselines (what the solution did was noted above).
        self.guard.adopt()
        self.watch.adopt()
        self.idle()

    def pool(self):
        """Up to POOL_SETS of the trials' inputs on the GPU: what the timed pairs' fresh inputs
        are made from."""
        t = self.tensors
        sets, total = [], 0
        for inputs in self.trial_inputs[:POOL_SETS]:
            n = t.nbytes(inputs)
            if sets and total + n > POOL_BYTES:
                break
            sets.append(t.to_device(inputs, "cuda"))
            total += n
        return sets

    def time(self):
        req, t, timer = self.request, self.tensors, self.timer
        p = req.get("timing") or {}
        warmup, trials = int(p.get("warmup", 3)), int(p.get("trials", 100))
        min_trials, budget = int(p.get("min_trials", 10)), float(p.get("budget_s", 10))
        info = {"timed": False, "pairs": []}
        self.record["timing"] = info
        pool = self.pool()
        if not self.control.time():
            info["note"] = "the judge did not time it"
            return
        self.phase_held = "time"
        info["timed"] = True
        sides = [("s", 0, self.sol_model), ("r", 1, self.ref_model)]
        if self.compiled is not None:
            sides.append(("c", 2, self.compiled))
        guard = self.guard
        try:
            with self.no_grad():
                for w in range(warmup):
                    base = t.fresh(pool[w % len(pool)], "%032x" % (w + 1))
                    for name, side, fn in sides:
                        x = t.clone(base)
                        self.seed(w)
                        if side == 0:
                            timer.call(fn, x, side, 1, w)
                        else:
                            with guard.reference_state():
                                timer.call(fn, x, side, 1, w)
                started = _clock()
                previous = None
                k = 0
                while k < trials:
                    key = self.control.pair(k)
                    base = t.fresh(pool[int(key[:8], 16) % len(pool)], key)
                    copies = {name: t.clone(base) for name, _, _ in sides}
                    order = sides[k % len(sides):] + sides[:k % len(sides)]
                    outs, ms, dev = {}, {}, {}
                    for name, side, fn in order:
                        self.seed(int(key[8:23], 16))
                        if side == 0:
                            outs[name], ms[name], dev[name] = timer.call(fn, copies[name], side,
                                                                         2, k)
                        else:
                            with guard.reference_state():
                                outs[name], ms[name], dev[name] = timer.call(
                                    fn, copies[name], side, 2, k)
                    r = t.compare(outs["s"], outs["r"], float(req["atol"]), float(req["rtol"]))
                    mine = t.spans(outs["s"])
                    pair = {"sol_ms": ms["s"], "ref_ms": ms["r"], "cmp_ms": ms.get("c"),
                            "sol_dev_ms": dev["s"], "ref_dev_ms": dev["r"],
                            "cmp_dev_ms": dev.get("c"), "ok": r["ok"],
                            "order": "".join(n for n, _, _ in order),
                            "alias_input": t.overlaps(mine, t.spans(copies["s"])),
                            "alias_earlier": previous is not None and
                            t.overlaps(mine, t.spans(previous))}
                    if not r["ok"]:
                        pair["why"] = r["why"]
                    self.control.done(k, (ms["s"], ms["r"], ms.get("c"), dev["s"], dev["r"],
                                          dev.get("c")), r["ok"])
                    info["pairs"].append(pair)
                    if self.tamper is not None:
                        self.tamper.note()
                    self.watch.look()
                    previous = outs["s"]
                    del outs, copies, base
                    k += 1
                    if not r["ok"]:
                        info["note"] = "pair %d: the solution's output differs: %s" % (
                            k - 1, pair["why"])
                        break
                    if k >= min_trials and _clock() - started > budget:
                        info["note"] = "the budget of %g s ran out after %d pairs" % (budget, k)
                        break
        except BaseException as e:  # noqa: BLE001
            raise StageError("time", e) from None
        self.phase_held = None
        self.control.end()
        info.update(timer.describe())

    def finish(self):
        rec = self.record
        if hasattr(self, "guard"):
            rec["torch_patched"] = self.guard.changes()
            rec["flags_changed"] = self.guard.flags_changed()
            rec["watch"] = self.watch.seen()
        if self.marks is not None:
            rec["cupti"] = self.marks.report()
        if self.tamper is not None:
            rec["tampered"] = self.tamper.changes()
        return rec

    def go(self):
        req = self.request
        try:
            self.timed("setup", self.setup)
            self.timed("reference", self.reference)
            self.timed("import", self.solution)
            correct = self.timed("correctness", self.correctness)
            if correct and req.get("time"):
                if req.get("compile"):
                    self.timed("compile", self.compile_reference)
                else:
                    self.compiled = None
                self.timed("time", self.time)
        except StageError as e:
            self.release()
            self.record["status"] = "error"
            self.record["error"] = describe_exception(e.stage, e.exc)
        except Exception as e:  # noqa: BLE001 - the runner's own failure (the channel gone, ...)
            self.release()
            self.record["status"] = "error"
            self.record["error"] = describe_exception("runner", e)
        return self.finish()


def run(request, control, tamper=None):
    return Run(request, control, tamper).go()
