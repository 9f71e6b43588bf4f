# simai_bytes.awk — the bytes per parallelism one iteration of a SimAI/AICB
# workload file moves, computed from the file alone (test/simai.sh sets
# them against `sim --check`'s plan lines). SimAI's rules, as its
# astra-sim Workload.cc and Layer.cc read and run the file:
#   - every layer line runs once per iteration (AICB has already written
#     the ga micro-batches out as lines);
#   - a forward or input-gradient collective without suffix runs over the
#     TP group (tp GPUs), a weight-gradient one over the DP group
#     (dp = all_gpus / (tp x pp)); _EP: the EP group (ep GPUs); _DP_EP: the
#     expert-DP group (dp / ep GPUs). A collective of size 0, of type NONE,
#     or over a group of one GPU moves nothing;
#   - every GPU runs the file, so a collective runs once per group of its
#     kind: all_gpus / (group size) times;
#   - the pipeline: every rank sends pp_comm bytes per hop, 2 x vpp x ga
#     hops per iteration in SimAI's count; the first virtual stage has no
#     sender before it and the last none after it, so over the whole job
#     the hops are 2 x (pp x vpp - 1) x ga per dp index and tp rank.
# Bytes on the wire of a collective of S bytes (nccl-tests convention)
# over n GPUs, ring and direct algorithms: all-reduce 2(n-1) S, all-gather,
# reduce-scatter and all-to-all (n-1) S.
# Output: "tp N", "pp N", "dp N", "ep N".
NR == 1 {
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
	next
}
NR == 2 { next }
function coll(type, size, phase,    g, n, par, f) {
	if (type == "NONE" || size == 0)
		return
	if (type ~ /_DP_EP$/) { n = dp / ep; par = "dp" }
	else if (type ~ /_EP$/) { n = ep; par = "ep" }
	else if (phase == "wg") { n = dp; par = "dp" }
	else { n = tp; par = "tp" }
	if (n < 2)
		return
	f = type ~ /^ALLREDUCE/ ? 2 * (n - 1) : n - 1
	bytes[par] += f * size * (all / n)
}
{
	coll($4, $5, "fwd")
	coll($7, $8, "ig")
	coll($10, $11, "wg")
}
END {
	if (pp > 1)
		bytes["pp"] = 2 * (pp * vpp - 1) * ga * dp * tp * ppc
	printf "tp %.0f\npp %.0f\ndp %.0f\nep %.0f\n", bytes["tp"], bytes["pp"], bytes["dp"], bytes["ep"]
}
