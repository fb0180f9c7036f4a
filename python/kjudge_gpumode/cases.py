"""The cases the judge hands the checker (one `name: value; name: value` line each, seeds
already combined with a ranked run's secret by the judge), and the seeds of fresh inputs."""

import re

_PART = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*):\s*([A-Za-z_][A-Za-z0-9_]*|[+-]?[0-9]+)\s*")
MASK64 = (1 << 64) - 1


class CaseError(ValueError):
    pass


def parse_case(line):
    """`size: 1024; seed: 42` -> {"size": 1024, "seed": 42} (integers as int, words as str),
    in order, as GPU MODE's eval.py reads a case."""
    args = {}
    for part in line.split(";"):
        m = _PART.fullmatch(part)
        if not m:
            raise CaseError("invalid case '%s': '%s'" % (line, part))
        key, value = m.group(1), m.group(2)
        if key in args:
            raise CaseError("invalid case '%s': '%s' given twice" % (line, key))
        try:
            args[key] = int(value)
        except ValueError:
            args[key] = value
    return args


def read_cases(text):
    """Every non-blank line of a cases file, parsed: [(line, args)]."""
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append((line.strip(), parse_case(line)))
    return out


def mix64(x):
    """splitmix64, as harness/kjudge/seeds.h's kj::mix64."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def repetition_seed(seed, rep, salt=0):
    """The seed of repetition `rep` of a case seeded `seed`: repetition 0 is the case itself
    (tests, as GPU MODE runs them); every other one unrelated inputs. `salt`: a secret the
    checker draws for each run and never hands to the worker, so that no repetition's inputs can
    be foreseen from the public seeds. Below 2^63: generators that take a signed 64-bit seed
    (torch.Generator.manual_seed, numpy's) accept it."""
    if rep == 0:
        return seed
    return mix64((seed ^ mix64(rep) ^ salt) & MASK64) >> 1


def with_seed(args, seed):
    """The case's arguments with its seed replaced (a copy); a case without one is unchanged:
    its inputs cannot be made fresh, which the checker reports."""
    out = dict(args)
    if "seed" in out:
        out["seed"] = seed
    return out
