#!/usr/bin/env python3
"""CodeBLEU for kjudge (src/triton/judge/codebleu.cpp): candidate code against reference code.

Usage: codebleu_score.py IN.json OUT.json

IN.json:  {"pairs": [{"reference": "...", "hypothesis": "..."}, ...],
           "lang": "python", "weights": [0.25, 0.25, 0.25, 0.25], "per_pair": false}
OUT.json: {"available": true, "codebleu": x, "ngram_match_score": x,
           "weighted_ngram_match_score": x, "syntax_match_score": x, "dataflow_match_score": x,
           "per_pair": [x, ...] (when asked), "package": "codebleu", "version": "0.7.0"}
       or {"available": false, "reason": "..."} when the `codebleu` package (with the
          tree-sitter grammar for the language) cannot be used here.

The score is whatever the package computes; nothing is estimated when it is missing. The
result goes to OUT.json rather than stdout because the judge captures stdout and stderr
together, and the package logs.
"""

import contextlib
import json
import sys


def unavailable(out_path, reason):
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"available": False, "reason": reason}, f)
    return 0


def main(argv):
    if len(argv) != 3:
        print("usage: codebleu_score.py IN.json OUT.json", file=sys.stderr)
        return 2
    in_path, out_path = argv[1], argv[2]
    with open(in_path, encoding="utf-8") as f:
        request = json.load(f)
    pairs = request.get("pairs")
    if not isinstance(pairs, list) or not pairs:
        print("IN.json: `pairs` must be a non-empty list", file=sys.stderr)
        return 2
    for i, p in enumerate(pairs):
        if not isinstance(p, dict) or not isinstance(p.get("reference"), str) \
                or not isinstance(p.get("hypothesis"), str):
            print(f"IN.json: pairs[{i}] needs string `reference` and `hypothesis`",
                  file=sys.stderr)
            return 2
    lang = request.get("lang", "python")
    weights = tuple(request.get("weights", [0.25, 0.25, 0.25, 0.25]))

    try:
        from codebleu import calc_codebleu
    except Exception as e:  # noqa: BLE001 - any import failure means "not usable here"
        return unavailable(out_path, f"the codebleu package does not import: "
                                     f"{type(e).__name__}: {e}")
    try:
        from importlib import metadata
        version = metadata.version("codebleu")
    except Exception:  # noqa: BLE001
        version = "unknown"

    references = [p["reference"] for p in pairs]
    hypotheses = [p["hypothesis"] for p in pairs]
    # The package prints progress and warnings; keep them off our result.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            corpus = calc_codebleu(references, hypotheses, lang=lang, weights=weights)
        except (ImportError, TypeError) as e:
            # Raised when the tree-sitter grammar for `lang` is missing or of a version the
            # package cannot load (tree-sitter-python 0.23+ with codebleu 0.7's tree-sitter 0.22
            # gives "TypeError: an integer is required").
            return unavailable(out_path, f"codebleu cannot parse {lang}: "
                                         f"{type(e).__name__}: {e}")
        per_pair = None
        if request.get("per_pair"):
            per_pair = [calc_codebleu([r], [h], lang=lang, weights=weights)["codebleu"]
                        for r, h in zip(references, hypotheses)]

    result = {"available": True, "package": "codebleu", "version": version, "lang": lang,
              "weights": list(weights)}
    for key in ("codebleu", "ngram_match_score", "weighted_ngram_match_score",
                "syntax_match_score", "dataflow_match_score"):
        result[key] = float(corpus[key])
    if per_pair is not None:
        result["per_pair"] = [float(x) for x in per_pair]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
