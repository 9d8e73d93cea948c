// Package reproduce checks a paper's headline table against a campaign's
// results: it is `bench reproduce PAPER`.
//
// The table lives in the paper's campaign file (campaigns/<paper>.yaml),
// in a headlines section, so that one file says what to run and what to
// check. Each row names a summary.csv metric, the policy and its
// baseline, how the effect is measured, the workload, the paper's figure,
// the spec row it comes from, and the paper's effect:
//
//	headlines:
//	  title: Dawn vs Fair on ML, virtual cluster
//	  note: a paragraph shown under the table
//	  rows:
//	    - metric: throughput_jobs_per_h
//	      effect: relative        # policy mean / baseline mean − 1
//	      policy: dawn
//	      baseline: fair
//	      workload: ML (B1–B15), Google-trace arrivals
//	      figure: Fig. 11, §6.1.1
//	      spec: dawn.md §6.1 row 7
//	      quote: the paper's or the spec's words, verbatim (optional)
//	      paper: +65%             # or "-12pp" with effect: points; or higher / lower
//	      modes: [sim]            # optional: the modes the row applies to
//
// The effect of a row is measured on the means over repetitions:
//
//   - relative: policy mean / baseline mean − 1, written "+65%";
//   - points: (policy mean − baseline mean) × 100, percentage points, for
//     the fraction columns (*_frac), written "+12pp";
//   - value: the policy's own mean, with no baseline, written as a
//     percentage for a ratio column ("79%" of a *_frac share, "3%" of a
//     *_gap) or as a plain number in the column's unit ("0.004", "55"
//     seconds). Written with "≤" or "≥" ("<=", ">=") in front, the
//     paper's figure is a bound: the row is reproduced when the policy's
//     mean keeps it, and otherwise says by how much it misses it
//     (Corral's heuristic "within 3%" of the LP bound).
//
// The verdict (Judge): reproduced when the measured effect has the
// paper's direction and lies within ½× to 2× of the paper's effect (the
// bounds included); otherwise not reproduced, because of the wrong
// direction (a measured effect of exactly 0 has none), or an effect too
// small (under ½×) or too large (over 2×). Where the paper gives only a
// direction (paper: higher or lower), the direction alone decides, and
// the verdict says so. A row whose metric could not be measured — a
// missing run of the policy or the baseline, failed jobs in one (in any
// queue) or a host lost, a run in which nothing the metric is taken over finished (no
// job for a completion time, no workload for a WCT or a per-workload
// figure, no map of an input class for a share), a baseline mean of 0
// under a relative effect — is not measured.
//
// The means and their 95% confidence intervals are bench/report's.
//
// `bench reproduce all` (RunAll, Page) does it for every paper into one
// result directory per paper, runs each paper's emulated run sets in the
// simulator too (Twin: the same run set, workload, policy and seed), and
// builds one page (report.Reproduction): per paper the headline rows in
// both modes, its key figure (KeyFigures) and the fidelity of its
// emulated runs against their twins (Fidelity: mean JCT and cross-rack
// bytes within FidelityTolerance).
package reproduce
