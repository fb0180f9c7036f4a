#pragma once
// The paired test behind `kjudge report --compare`: the same solutions (task_id, sample) judged
// in two runs. Only the discordant pairs carry information about a difference: b passed in A
// only, c in B only. Under "no difference", each discordant pair is A's or B's with probability
// 1/2, so b ~ Binomial(b + c, 1/2); the exact test needs no large-sample approximation, which
// matters for the few flips a benchmark of a few hundred problems gives.
namespace kjudge::report {

// Two-sided exact McNemar p-value: twice the smaller binomial tail, at most 1. 1 when b+c = 0.
double mcnemar_exact_p(int b, int c);

}  // namespace kjudge::report
