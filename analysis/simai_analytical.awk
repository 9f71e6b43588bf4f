# simai_analytical.awk — what SimAI's analytical mode predicts for one
# iteration of a SimAI/AICB workload file, from the bus bandwidths of a
# busbw.yaml, to set beside the iteration rocesim simulates for the same
# file (docs/workloads.md, "Against SimAI's analytical mode").
#
#   awk -f analysis/simai_analytical.awk data/simai/busbw.yaml data/simai/workload_gpt7b_64g.txt
#
# SimAI's formulas (astra-sim's Layer::compute_time and Layer::report in
# SimAI's analytical build), with every overlap ratio 0 (its default) and
# GB = 2^30 B (astra-sim's GBps):
#   a collective of S bytes over n GPUs at busbw B takes
#     all-reduce  2(n-1)/n x S / B;  all-gather, reduce-scatter, all-to-all  (n-1)/n x S / B
#   with B by group and op: TP (forward, input gradient without suffix) the
#   TP row (all-gather and reduce-scatter share the allgather entry); EP
#   (_EP) all-to-all the EP alltoall entry (an EP all-gather or
#   reduce-scatter inside a server costs 0 in SimAI); DP (weight gradient
#   without suffix) the DP row; expert-DP (_DP_EP) the EP row's
#   allgather entry; a null entry costs 0;
#   compute = the sum of every line's three compute times;
#   exposed = the sum of every collective's time (no overlap);
#   bubble  = (pp - 1) / (ga x vpp) x the sum, over the lines not named
#             embedding_layer, of their compute and forward and
#             input-gradient collective times;
#   PP      = 2 x vpp x ga x pp_comm / PP busbw;
#   total   = compute + exposed + bubble + PP.
# The branches taken are those for a job larger than one 8-GPU server
# with tp <= 8 (every shipped example but the 8-GPU micro all-reduce, which
# has no DP collective). Times in ns (SimAI's tick). Output: one line of
# the parts and the total.
function bwval(v) { return v == "null" ? 0 : v + 0 }
FNR == 1 && NR == 1 { yaml = FILENAME }
FILENAME == yaml {
	if ($0 ~ /^(TP|DP|EP|PP):/) { sec = substr($1, 1, 2); next }
	if (NF == 2) { key = $1; sub(/,?:$/, "", key); bw[sec, key] = bwval($2) }
	next
}
FNR == 1 {
	for (i = 2; i < NF; i++) {
		if ($i == "model_parallel_NPU_group:") tp = $(i + 1)
		if ($i == "ep:") ep = $(i + 1)
		if ($i == "pp:") pp = $(i + 1)
		if ($i == "vpp:") vpp = $(i + 1)
		if ($i == "ga:") ga = $(i + 1)
		if ($i == "all_gpus:") all = $(i + 1)
		if ($i == "pp_comm" || $i == "pp_comm:") ppc = $(i + 1)
	}
	if (ep == "") ep = 1
	if (pp == "") pp = 1
	if (vpp == "") vpp = 1
	if (ga == "") ga = 1
	dp = all / (tp * pp)
	G = 1024 * 1024 * 1024
	next
}
FNR == 2 { next }
# ns of size bytes at busbw b over n GPUs with factor f x (n-1)/n
function span(size, b, n, f) { return b ? size / G / b * 1e9 * f * (n - 1) / n : 0 }
function t(type, size, phase,    op, grp) {
	if (type == "NONE" || size == 0)
		return 0
	op = type; sub(/_.*/, "", op)
	if (type ~ /_DP_EP$/) grp = "DPEP"; else if (type ~ /_EP$/) grp = "EP"; else grp = phase == "wg" ? "DP" : "TP"
	if (grp == "TP") {
		if (op == "ALLREDUCE") return span(size, bw["TP", "allreduce"], tp, 2)
		if (op == "ALLTOALL") return span(size, bw["TP", "alltoall"], tp, 1)
		return span(size, bw["TP", "allgather"], tp, 1)
	}
	if (grp == "EP")
		return op == "ALLTOALL" ? span(size, bw["EP", "alltoall"], ep, 1) : op == "ALLREDUCE" ? span(size, bw["TP", "allreduce"], ep, 2) : 0
	if (grp == "DP")
		return op == "ALLREDUCE" ? span(size, bw["DP", "allreduce"], dp, 2) : span(size, bw["DP", "allgather"], dp, 1)
	return op == "ALLREDUCE" ? span(size, bw["EP", "allreduce"], dp / ep, 2) : span(size, bw["EP", "allgather"], dp / ep, 1)
}
{
	f = t($4, $5, "fwd"); ig = t($7, $8, "ig"); w = t($10, $11, "wg")
	comp += $3 + $6 + $9
	exposed += f + ig + w
	if ($1 != "embedding_layer")
		pre += f + $3 + $9 + $6 + ig
}
END {
	bubble = pp > 1 ? pre * (pp - 1) / (ga * vpp) : 0
	ppt = 2 * vpp * ga * (ppc / G / bw["PP", "busbw"] * 1e9)
	printf "compute_ns %.0f exposed_ns %.0f bubble_ns %.0f pp_ns %.0f total_ns %.0f\n", comp, exposed, bubble, ppt,
		comp + exposed + bubble + ppt
}
