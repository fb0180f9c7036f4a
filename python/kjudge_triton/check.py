"""Every timed call checked, torch-free: the inputs each timed repetition gets (fresh copies,
new content where the site's plan says, seeded from the judge's keys), the plan the reference's
first timing process makes for each call site (CallCheck.probe), and what is kept of each timed
call's output for the judge (whole, or a sample, within byte budgets). The tensor operations it
uses come from torchops.py (or a stand-in in the tests).
"""

import hashlib

from .results import encode_results, flatten, unique_names


# Checking every timed call (docs/triton.md, "Every timed output checked"). Each timed
# repetition runs on fresh copies of the tensor arguments; the floating-point ones the
# reference's first timing process found safe to change get new content, seeded by the judge's
# secret, the call site and the repetition (the same in every process of a job, so the
# reference's process sees the very inputs the candidate's does). What each timed call returned,
# and what it wrote into its arguments, goes back to the judge, which compares it with the
# reference's output on the same inputs: a candidate that caches by content finds nothing to
# reuse, and one that computes only the test's own call is caught.
#
# What is kept of each timed call is bounded, whatever the size of the operator's outputs
# (a rope_embedding call site returns 256 MiB and writes as much into an argument): a timed call
# keeps its whole output while the site's and the process's byte budgets allow, and otherwise a
# *sample* of each tensor leaf, SAMPLE_ELEMENTS elements at most, gathered on the device (only
# the sample is copied to the host). Which calls of a site are whole (the first `whole`) and how
# many elements the others keep of each leaf (`sample`) is decided by the reference's first
# timing process and handed on in the plan, so that every process of a job keeps the same.
#
# The positions of a sample are drawn from a generator seeded by the judge's secret, the site,
# the repetition and the leaf's name (sample_seed), over the leaf's elements in row-major order:
# the same in every process for the same site, call and shape, and unknown to the operator
# before its call returns (it would have to read the secret out of the runner). They are
# stratified: the n elements are cut into k equal runs of n/k and one position is drawn
# uniformly in each. So a sampled call catches, with certainty, any difference that covers a
# run of 2n/k consecutive elements (for 16x128x64x512 float32, n/k = 1024: two rows of 512),
# and a difference at m scattered elements escapes one call's sample with probability at most
# exp(-m k / n) (each run misses its m_i wrong elements with probability 1 - m_i k / n), and all
# R sampled calls of a site, whose positions are drawn afresh, with at most exp(-m k R / n). A
# candidate wrong on 1 % of its elements is caught by one call (e^-655); one wrong at 64
# scattered elements of 2^26 escapes a call with probability 0.94 and 30 calls with 0.15. Such
# a difference is what sampling gives up: the test's own call, the whole-output calls, and every
# call of a site whose outputs fit the budget are still compared whole.

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
PERTURB_RELATIVE = 0.125        # the size of the change, relative to each value
CHECK_BYTES_PER_SITE = 16 << 20  # outputs kept per call site (whole, or sampled beyond that)
CHECK_BYTES = 128 << 20          # and per process, all sites together
# Elements a sampled call keeps of each tensor leaf at most (a leaf this small or smaller is
# kept whole): 256 KiB of float32. Fewer, by halves down to SAMPLE_MIN_ELEMENTS, only where the
# site's sampled calls would not fit its budget otherwise (many leaves, or a process budget that
# earlier sites used up); the repetitions are cut (never below min_reps) only where even those
# do not fit.
SAMPLE_ELEMENTS = 65536
SAMPLE_MIN_ELEMENTS = 1024


def arg_paths(args, kwargs, is_tensor):
    """[(path, tensor)] for the tensors the timer copies: the arguments themselves and the items
    of list and tuple arguments, named "args[1]", "args[2][0]", "kwargs.out"."""
    out = []

    def visit(prefix, v):
        if is_tensor(v):
            out.append((prefix, v))
        elif isinstance(v, (list, tuple)):
            out.extend(("%s[%d]" % (prefix, i), x) for i, x in enumerate(v) if is_tensor(x))

    for i, v in enumerate(args):
        visit("args[%d]" % i, v)
    for key, v in kwargs.items():
        visit("kwargs.%s" % key, v)
    return out


def copy_args(args, kwargs, is_tensor, make):
    """(args, kwargs) with every tensor arg_paths names replaced by make(path, tensor); lists and
    tuples holding one are rebuilt, everything else is passed as it is (objects are shared)."""

    def one(prefix, v):
        if is_tensor(v):
            return make(prefix, v)
        if isinstance(v, (list, tuple)) and any(is_tensor(x) for x in v):
            items = [make("%s[%d]" % (prefix, i), x) if is_tensor(x) else x
                     for i, x in enumerate(v)]
            if hasattr(v, "_fields"):  # a namedtuple takes its fields one by one
                return type(v)(*items)
            return type(v)(items)
        return v

    return ([one("args[%d]" % i, v) for i, v in enumerate(args)],
            {key: one("kwargs.%s" % key, v) for key, v in kwargs.items()})


def observation(result, args, kwargs, observe, is_tensor):
    """What one call is judged by: its result, and the arguments listed in `observe` as they are
    after the call (an in-place operator's output)."""
    found = dict(arg_paths(args, kwargs, is_tensor))
    kept = {"result": result}
    for path in observe:
        if path in found:
            kept[path] = found[path]
    return kept


def perturb_seed(secret, site, rep, path):
    """The seed of one argument's new content: the same in every process given the same
    secret, and unrelated between repetitions, sites and arguments."""
    text = "%d/%d/%s/%s" % (secret, site, rep, path)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def sample_seed(secret, site, rep, name):
    """The seed of the positions a sampled timed call keeps of its output leaf `name`: the same
    in every process given the same secret, and unrelated between repetitions, sites, leaves
    and the new content's seeds (perturb_seed)."""
    text = "sample/%d/%d/%s/%s" % (secret, site, rep, name)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


class CallCheck:
    """The check of one timing process: per call site, which arguments its timed calls get new
    content in and which ones are read back after each call (the site's plan), and the encoded
    outputs of every timed call, in one blob.

    The plan comes from the judge, which takes it from the reference's first timing process; that
    process has none and makes it (`probe`), so every later process, the candidate's included,
    runs on exactly the reference's inputs.

    What is kept of each timed call stays within the byte budgets (`max_bytes` per site,
    `max_total` per process) whatever the outputs' size: the site's first `whole` timed calls
    keep their whole output, the others a sample of at most `sample` elements of each tensor
    leaf (see the comment above FLOAT_DTYPES). Both are in the plan: the reference's first
    process decides them at the site's first timed call (`split`), from the shapes of what it
    returned, and every later process keeps the same calls whole and samples the others at the
    same positions. A call planned whole whose output would not fit the budgets in this process
    (a candidate returning more than the reference) is sampled instead, and the judge finds a
    sample where the reference's output is whole: a mismatch, never a blown memory limit.

    Not deduplicated: a tensor both returned and read back as an argument (an in-place
    operator returning its output, rope_embedding's Q) is encoded, or sampled, once per name;
    the budgets count both, so this costs repetitions or sample size, not memory beyond them."""

    def __init__(self, ops, params):
        self.ops = ops
        self.enabled = bool(params.get("perturb", True))
        self.relative = float(params.get("perturb_relative", PERTURB_RELATIVE))
        self.secret = int(params.get("seed", 0))
        self.max_bytes = int(params.get("max_bytes_per_site", CHECK_BYTES_PER_SITE))
        self.max_total = int(params.get("max_bytes", CHECK_BYTES))
        # The sample sizes: the runner's constants; the parameters are for tests.
        self.sample_elements = max(1, int(params.get("sample_elements", SAMPLE_ELEMENTS)))
        self.sample_min = max(1, min(self.sample_elements,
                                     int(params.get("sample_min_elements", SAMPLE_MIN_ELEMENTS))))
        self.tolerances = {}
        for dtype, t in (params.get("tolerances") or {}).items():
            self.tolerances[dtype] = (float(t["rtol"]), float(t["atol"]))
        plan = params.get("plan")
        self.plan = None if plan is None else list(plan)
        self.blob = bytearray()

    def site_plan(self, index, fn, args, kwargs, reset):
        """{mode, reason, perturb, observe, reps, probe, whole, sample} for call site `index`.
        whole: the timed calls kept whole (the first ones; None: all that fit the budgets, until
        `split` decides in the reference's first process); sample: the elements the others keep
        of each tensor leaf."""
        if self.plan is None:
            return self.probe(index, fn, args, kwargs, reset)
        if index >= len(self.plan) or not isinstance(self.plan[index], dict):
            return {"mode": "unperturbed", "reason": "the reference made no such call",
                    "perturb": [], "observe": [], "reps": None, "probe": [], "whole": None,
                    "sample": self.sample_elements}
        p = self.plan[index]
        reps, whole, sample = p.get("reps"), p.get("whole"), p.get("sample")

        def count(v, least):
            return v if type(v) is int and v >= least else None

        plan = {"mode": str(p.get("mode", "unperturbed")), "reason": str(p.get("reason", "")),
                "perturb": [str(x) for x in p.get("perturb", [])],
                "observe": [str(x) for x in p.get("observe", [])],
                "reps": count(reps, 1),
                "probe": [[str(x) for x in c] for c in p.get("probe", []) if isinstance(c, list)],
                "whole": count(whole, 0),
                "sample": count(sample, 1) or self.sample_elements}
        self.replay(index, fn, args, kwargs, reset, plan["probe"])
        return plan

    def replay(self, index, fn, args, kwargs, reset, probe):
        """The probe's calls again, untimed, on the same inputs: every process then makes the
        same calls in the same order, so an operator that keeps state between calls (a model it
        steps, a cache it fills) is in the same state in each when its timed calls come."""
        ops = self.ops
        for perturb in probe:
            a, k, _ = self.inputs(args, kwargs, perturb, index, "probe")
            reset()
            try:
                fn(*a, **k)
                ops.sync()
            except Exception:  # noqa: BLE001 - the probe's call raised in the reference too
                pass

    def inputs(self, args, kwargs, perturb, index, rep, key=None):
        """Fresh copies of the tensor arguments, those named in `perturb` (and still floating
        point) with new content, drawn from `key` (a timed call's: the judge streams it just
        before the call, CallStream) or the request's seed (the probe's). Returns (args, kwargs,
        the paths changed)."""
        ops = self.ops
        changed = []
        secret = self.secret if key is None else key

        def make(path, t):
            if path in perturb and ops.is_float(t):
                changed.append(path)
                return ops.perturbed(t, perturb_seed(secret, index, rep, path),
                                     self.relative)
            return ops.clone(t)

        a, k = copy_args(args, kwargs, ops.is_tensor, make)
        return a, k, changed

    def leaves(self, result, args, kwargs, observe):
        return unique_names(flatten(observation(result, args, kwargs, observe,
                                                self.ops.is_tensor)))

    def describe(self, v):
        if self.ops.is_tensor(v):
            return ("tensor", self.ops.dtype(v), tuple(int(x) for x in v.shape))
        return (type(v).__name__,)

    def agree(self, x, y):
        ops = self.ops
        if ops.is_tensor(x) and ops.is_tensor(y):
            return ops.close(x, y, self.tolerances.get(ops.dtype(x)))
        if isinstance(x, float) and isinstance(y, float):
            return x == y or (x != x and y != y)
        if isinstance(x, (bool, int, str)) or x is None:
            return x == y
        return True  # objects: the judge does not compare them either

    def probe(self, index, fn, args, kwargs, reset):
        """The reference's first timing process decides a site's plan, untimed. Arguments that
        get new content are the floating-point ones holding a fraction; two calls on the same
        new content must neither raise, nor change the kind, dtype or shape of an output, nor
        make one NaN or infinite, nor disagree with each other. Otherwise the site's timed calls
        run on plain copies (their outputs still checked, against the reference's on the same
        copies), and `reason` says why. What is read back after each call: the result, and
        every tensor argument but those that got new content and that no probe call wrote
        (inputs only read; an output buffer the test's own call already filled is written again
        with the same values on a plain copy, but not on new content)."""
        ops = self.ops
        paths = [path for path, _ in arg_paths(args, kwargs, ops.is_tensor)]
        plan = {"mode": "unperturbed", "reason": "", "perturb": [], "observe": paths,
                "reps": None, "probe": [], "whole": None, "sample": self.sample_elements}
        written = set()

        def call(perturb):
            plan["probe"].append(list(perturb))  # replayed by every later process
            a, k, _ = self.inputs(args, kwargs, perturb, index, "probe")
            before = [(path, ops.clone(t)) for path, t in arg_paths(a, k, ops.is_tensor)]
            reset()
            out = fn(*a, **k)
            ops.sync()
            after = dict(arg_paths(a, k, ops.is_tensor))
            written.update(path for path, t in before if not ops.same(after[path], t))
            return self.leaves(out, a, k, paths)

        base = call(())
        if not self.enabled:
            plan["reason"] = "new content is turned off"
            return plan
        fresh = [path for path, t in arg_paths(args, kwargs, ops.is_tensor)
                 if ops.perturbable(t)]
        if not fresh:
            plan["reason"] = "no floating-point tensor argument holds a fraction"
            return plan
        try:
            runs = [call(fresh), call(fresh)]
        except Exception as e:  # noqa: BLE001 - the reference's own: it decides the plan only
            plan["reason"] = "the reference raised %s on new content: %s" % (
                type(e).__name__, str(e)[:200])
            return plan
        if [(n, self.describe(v)) for n, v in runs[0]] != [(n, self.describe(v)) for n, v in base]:
            plan["reason"] = "new content changes the kind, dtype or shape of its outputs"
            return plan
        for (name, b), (_, v) in zip(base, runs[0]):
            if ops.is_tensor(v) and ops.finite(b) and not ops.finite(v):
                plan["reason"] = "new content makes %s NaN or infinite" % name
                return plan
        for (name, x), (_, y) in zip(runs[0], runs[1]):
            if not self.agree(x, y):
                plan["reason"] = "the reference disagrees with itself on new content (%s)" % name
                return plan
        plan["mode"] = "perturbed"
        plan["perturb"] = fresh
        plan["observe"] = [path for path in paths if path not in fresh or path in written]
        return plan

    def sizes(self, value):
        """[(elements, bytes each)] of what encoding `value` keeps whole, from shapes alone: a
        pair per tensor leaf (ops.encoded_size) and per Python number."""
        out = []
        for _, leaf in flatten(value):
            size = self.ops.encoded_size(leaf)
            if size is not None:
                out.append(size)
            elif isinstance(leaf, bool):
                out.append((1, 1))
            elif isinstance(leaf, (int, float)):
                out.append((1, 8))
        return out

    def split(self, plan, value, reps, min_reps):
        """The reference's first process, at a site's first timed call (`value` its
        observation): sets plan["whole"] and plan["sample"] so that the site's `reps` timed calls
        fit what is left of the budgets, and returns the repetitions, cut (to min_reps at least)
        only where even samples of sample_min elements do not fit. All whole where they fit;
        else sampled calls at the largest sample (halving from sample_elements) that fits, and
        the first calls whole as far as the room left allows."""
        sizes = self.sizes(value)
        budget = max(0, min(self.max_bytes, self.max_total - len(self.blob)))
        whole = sum(n * b for n, b in sizes)

        def sampled(k):
            return sum(min(n, k) * b for n, b in sizes)

        sample = self.sample_elements
        if reps * whole <= budget:
            plan["whole"], plan["sample"] = reps, sample
            return reps
        while sample > self.sample_min and reps * sampled(sample) > budget:
            sample = max(self.sample_min, sample // 2)
        per = sampled(sample)
        if reps * per > budget:
            reps = min(reps, max(min_reps, budget // max(1, per)))
        if whole <= per:  # every leaf within the sample: a sample is the whole output
            plan["whole"] = reps
        elif reps * per > budget:
            plan["whole"] = 0
        else:
            plan["whole"] = min(reps, (budget - reps * per) // (whole - per))
        plan["sample"] = sample
        return reps

    def keep(self, value, site, rep, plan, site_bytes, sample_key=None):
        """Encodes one timed call's observation (`value`) into the blob, whole or sampled as the
        plan says (a call planned whole that would not fit the budgets, with `site_bytes` kept
        for this site so far, is sampled); returns its manifest, whose entries' offsets count
        from `offset`. A sample's positions are drawn from `sample_key` (the judge streams it
        once the call has returned: the operator cannot know them during its call), else from
        the request's seed."""
        ops = self.ops
        planned = plan.get("whole")
        whole = planned is None or rep < planned
        if whole:
            need = sum(n * b for n, b in self.sizes(value))
            whole = (site_bytes + need <= self.max_bytes
                     and len(self.blob) + need <= self.max_total)
        if whole:
            entries, raw = encode_results(value, ops.parts)
        else:
            sample = plan["sample"]
            secret = self.secret if sample_key is None else sample_key

            def sampled_parts(name, leaf):
                return ops.sampled_parts(leaf, sample, sample_seed(secret, site, rep, name))

            entries, raw = encode_results(value, ops.parts, sampled_parts)
        kept = {"entries": entries, "offset": len(self.blob), "data_bytes": len(raw)}
        self.blob += raw
        return kept
