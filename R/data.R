#' Computer activity data (CPU)
#'
#' Measures of a multi-user computer's activity, with the share of time its
#' CPUs spent in user mode: the "CPU" regression benchmark of Rahimi and
#' Recht (2007) and of Le, Sarlos and Smola (2013).
#'
#' @format A data frame with 8192 rows and 22 numeric columns. `usr` is the
#'   response: the percentage of time the CPUs run in user mode. The 21
#'   others are system activity rates sampled from a Sun SPARCstation 20/712
#'   (reads and writes per second between system and user memory `lread`,
#'   `lwrite`; system calls `scall`, `sread`, `swrite`, `fork`, `exec`;
#'   characters transferred `rchar`, `wchar`; paging `pgout`, `ppgout`,
#'   `pgfree`, `pgscan`, `atch`, `pgin`, `ppgin`, `pflt`, `vflt`; process run
#'   queue size `runqsz`; free memory pages `freemem` and swap blocks
#'   `freeswap`).
#' @source The DELVE "comp-activ" dataset (University of Toronto,
#'   <https://www.cs.toronto.edu/~delve/data/comp-activ/desc.html>), 21
#'   attribute version "cpu_act", as distributed by the Penn Machine Learning
#'   Benchmarks (PMLB, dataset `197_cpu_act`, MIT licence) with the response
#'   renamed from `target` to `usr`. DELVE datasets are distributed freely
#'   for research use.
#' @examples
#' str(cpu_act)
#' summary(cpu_act$usr)
"cpu_act"
