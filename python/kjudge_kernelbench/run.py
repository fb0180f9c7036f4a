"""One whole run (run): the stages of kjudge_kernelbench/__init__.py in order, each failure
tagged with its stage, the record the judge reads. The control channel (control.py) is asked for
every GPU phase; `control` may be a LocalControl (a run by hand).
"""

import contextlib
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

# The reference's outputs on every trial are kept from before the solution runs while they take
# no more than this; beyond it (level 1's 6 GB activations) each is computed beside the solution's,
# on the same inputs, on the torch the reference started with (TorchGuard.reference_state).
KEEP_REFERENCE_BYTES = 1 << 30


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
        if self.request.get("alone"):
            self.control.solo()
            self.phase_held = "time"
        else:
            self.control.gpu()
            self.phase_held = "gpu"

    def idle(self):
        # What torch's allocator caches goes back to the driver before the GPU is given up: a run
        # waiting for its next phase holds only its live tensors, not the memory of its last one.
        try:
            self.empty_cache()
        except Exception:  # noqa: BLE001
            pass
        if self.request.get("alone"):
            self.control.end()
        else:
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
        try:
            self.timer = Timer(torch, timing, self.marks)
        except (OSError, AttributeError, TypeError, ValueError) as e:
            raise StageError("setup", e) from None
        self.no_grad = torch.no_grad
        self.sync = torch.cuda.synchronize
        self.empty_cache = torch.cuda.empty_cache
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

    def reference_ctx(self):
        guard = getattr(self, "guard", None)
        return guard.reference_state() if guard is not None else contextlib.nullcontext()

    def make_inputs(self, seed):
        """The problem's get_inputs() under `seed`, made on the GPU (torch's default device
        there: new memory, new content, KernelBench's own distribution, and no host copy of a
        6 GB input), on the torch the reference started with."""
        with self.reference_ctx(), self.torch.device("cuda"):
            self.seed(seed)
            # What get_inputs made on the host anyway (an explicit device="cpu") goes over.
            return self.tensors.to_device(self.get_inputs(), "cuda")

    def reference_output(self, seed, index):
        """The reference's output on the inputs of `seed`, and whether it shares their memory."""
        t = self.tensors
        x = self.make_inputs(seed)
        with self.reference_ctx():
            self.seed(seed)
            y = self.call_marked(self.ref_model, x, 1, index)
        if t.nonfinite(y):
            raise ValueError("the reference's output holds NaN or Inf (trial %d)" % index)
        return y, t.overlaps(t.spans(y), t.spans(x))

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
        try:
            self.seed(req["seed"])
            init = get_init_inputs()
            self.seed(req["seed"])
            model = Model(*init)
        except Exception as e:  # noqa: BLE001
            raise StageError("reference", e) from None
        self.gpu()
        seeds = req["trial_seeds"]
        try:
            self.timer.prepare()
            self.ref_model = model.cuda()
            self.ref_outputs, self.ref_alias = [], []
            with self.no_grad():
                y, alias = self.reference_output(seeds[0], 0)
                # Kept from before the solution runs where they fit (then no solution code can
                # touch how they were made); else each is made beside the solution's.
                if self.tensors.nbytes(y) * len(seeds) <= KEEP_REFERENCE_BYTES:
                    self.ref_outputs.append(y)
                    self.ref_alias.append(alias)
                    for i, s in enumerate(seeds[1:], 1):
                        y, alias = self.reference_output(s, i)
                        self.ref_outputs.append(y)
                        self.ref_alias.append(alias)
                else:
                    self.ref_outputs = None
                    self.record["reference_late"] = True
                del y
        except StageError:
            raise
        except Exception as e:  # noqa: BLE001
            raise StageError("reference", e) from None
        self.idle()
        try:
            # torch.compile's first use (the judge's, or a solution's own) installs dynamo's hooks
            # on nn.Module: installed now, they are in the baseline.
            import torch._dynamo  # noqa: F401
            mg = sys.modules.get("torch._dynamo.mutation_guard")
            install = getattr(mg, "install_generation_tagging_init", None)
            if install is not None:
                install()
        except Exception:  # noqa: BLE001 - a torch without dynamo: nothing to install
            pass
        # The baselines of what the solution may change, taken once the reference has run (what
        # it and torch did for it, a model library's imports and threads, is not the solution's)
        # and before any of the solution's code runs.
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
        # Held alive: an output sharing memory with one of them is a cached one. The first and
        # the last (a cached answer is the first one, or the one before).
        first = last = None
        try:
            with self.no_grad():
                for i, s in enumerate(req["trial_seeds"]):
                    if self.ref_outputs is None:
                        try:
                            want, ref_alias = self.reference_output(s, i)
                        except Exception as e:  # noqa: BLE001 - the reference's, not charged
                            raise StageError("reference", e) from None
                    else:
                        want, ref_alias = self.ref_outputs[i], self.ref_alias[i]
                    x = self.make_inputs(s)
                    self.seed(s)
                    y = self.call_marked(self.sol_model, x, 0, i)
                    r = t.compare(y, want, atol, rtol)
                    mine = t.spans(y)
                    r["alias_input"] = t.overlaps(mine, t.spans(x))
                    r["alias_earlier"] = any(t.overlaps(mine, t.spans(o))
                                             for o in (first, last) if o is not None)
                    r["alias_reference"] = t.overlaps(mine, t.spans(want))
                    r["reference_alias_input"] = ref_alias
                    if r["ok"]:
                        r.pop("why", None)
                    self.record["trials"].append(r)
                    del x, want
                    # Large outputs: the last one only (the memory of two more is too much).
                    if first is None and t.nbytes(y) <= KEEP_REFERENCE_BYTES:
                        first = y
                    last = y
                    del y
        except StageError:
            raise
        except BaseException as e:  # noqa: BLE001
            raise StageError("correctness", e) from None
        del first, last
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
            s = self.request["trial_seeds"][0]
            with self.no_grad():
                want, _ = self.reference_output(s, 0)
                x = self.make_inputs(s)
                with self.guard.reference_state():
                    self.seed(s)
                    y = compiled(*x)
                    self.sync()
            r = self.tensors.compare(y, want, float(self.request["atol"]),
                                     float(self.request["rtol"]))
            del x, y, want
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

    def time_side(self, seed, name, side, fn, phase, index):
        """One side of a pair (or a warm-up): its own fresh inputs made from `seed`, then the
        call timed. The solution runs on its own torch, the others on the reference's."""
        t = self.tensors
        x = self.make_inputs(seed)
        spans = t.spans(x)
        self.seed(seed)
        if side == 0:
            out, ms, dev = self.timer.call(fn, x, side, phase, index)
        else:
            with self.guard.reference_state():
                out, ms, dev = self.timer.call(fn, x, side, phase, index)
        del x
        return out, ms, dev, spans

    def time(self):
        req, t = self.request, self.tensors
        p = req.get("timing") or {}
        warmup, trials = int(p.get("warmup", 3)), int(p.get("trials", 100))
        min_trials, budget = int(p.get("min_trials", 10)), float(p.get("budget_s", 10))
        info = {"timed": False, "pairs": []}
        self.record["timing"] = info
        if not self.control.time():
            info["note"] = "the judge did not time it"
            return
        self.phase_held = "time"
        info["timed"] = True
        sides = [("s", 0, self.sol_model), ("r", 1, self.ref_model)]
        if self.compiled is not None:
            sides.append(("c", 2, self.compiled))
        try:
            with self.no_grad():
                for w in range(warmup):
                    for name, side, fn in sides:
                        out = self.time_side(0x5eed0000 + w, name, side, fn, 1, w)
                        del out
                started = _clock()
                previous = None  # the solution's output of the pair before, held alive
                k = 0
                while k < trials:
                    # The pair's inputs exist only once the judge has sent their key.
                    seed = int(self.control.pair(k)[:15], 16)
                    order = sides[k % len(sides):] + sides[:k % len(sides)]
                    outs, ms, dev, mine_in = {}, {}, {}, None
                    for name, side, fn in order:
                        out, ms[name], dev[name], spans = self.time_side(seed, name, side, fn, 2,
                                                                         k)
                        if name == "c":
                            del out  # the baseline's time is all that is needed of it
                            continue
                        outs[name] = out
                        if name == "s":
                            mine_in = spans
                        del out
                    r = t.compare(outs["s"], outs["r"], float(req["atol"]), float(req["rtol"]))
                    mine = t.spans(outs["s"])
                    pair = {"sol_ms": ms["s"], "ref_ms": ms["r"], "cmp_ms": ms.get("c"),
                            "sol_dev_ms": dev["s"], "ref_dev_ms": dev["r"],
                            "cmp_dev_ms": dev.get("c"), "ok": r["ok"],
                            "order": "".join(n for n, _, _ in order),
                            "alias_input": t.overlaps(mine, mine_in),
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
                    del outs
                    k += 1
                    if not r["ok"]:
                        info["note"] = "pair %d: the solution's output differs: %s" % (
                            k - 1, pair["why"])
                        break
                    if k >= min_trials and _clock() - started > budget:
                        info["note"] = "the budget of %g s ran out after %d pairs" % (budget, k)
                        break
                del previous
        except BaseException as e:  # noqa: BLE001
            raise StageError("time", e) from None
        self.phase_held = None
        self.empty_cache()
        self.control.end()
        info.update(self.timer.describe())

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
                # The trials' outputs are of no more use: their memory goes to the timed pairs.
                self.ref_outputs = None if self.ref_outputs is None else []
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
