# Per-call cost of small multithreaded kitchen calls over a long session,
# and the TBB behaviour behind it (bench/cpp/tbb_arena.cpp).
# Run from the repository root: Rscript bench/threads.R
# Results go to bench/results/threads.md.
#
# kitchen used RcppParallel's parallelFor, which makes a TBB arena per call;
# oneTBB gets slower with every arena it has destroyed, so a session's
# parallel calls grew slower the more of them it had made. kitchen now keeps
# one arena per thread count (src/parallel_chunks.h). Each batch below runs
# the same small calls again, so a cost that grows with the session shows
# as rising numbers down a column.

source(file.path("bench", "common.R"))
library(kitchen)
set.seed(1)
batches <- 12
calls <- 2000
x <- matrix(rnorm(2 * 1024), 1024, 2)
map <- rff(64, 1024, sigma = 1, seed = 1)
rows <- matrix(rnorm(10 * 64), 10)
per_call <- function(f) {
  elapsed <- system.time(for (i in seq_len(calls)) f())[["elapsed"]]
  1e6 * elapsed / calls
}
kitchen_rows <- do.call(rbind, lapply(seq_len(batches), function(b) data.frame(
  batch = b,
  fwht_2t = per_call(function() fwht(x, n_threads = 2)),
  fwht_1t = per_call(function() fwht(x, n_threads = 1)),
  rff_2t = per_call(function() predict(map, rows, n_threads = 2)),
  rff_1t = per_call(function() predict(map, rows, n_threads = 1)))))

# The same TBB that RcppParallel loaded: its link flags, else the system's.
tbb_libs <- utils::capture.output(RcppParallel::RcppParallelLibs())
if (!any(nzchar(tbb_libs))) tbb_libs <- "-ltbb"
harness <- compile_cpp("bench/cpp/tbb_arena.cpp",
                       c(paste0("-I", system.file("include", package = "RcppParallel")), tbb_libs))
Sys.setenv(LD_LIBRARY_PATH = paste(system.file("lib", package = "RcppParallel"),
                                   Sys.getenv("LD_LIBRARY_PATH"), sep = .Platform$path.sep))
arena <- utils::read.csv(text = system2(harness, c("--batches", batches, "--calls", calls),
                                        stdout = TRUE))

write_result(c(
  "# Small multithreaded calls over a long session", "",
  machine_description(), "",
  sprintf("Microseconds per call, mean over each batch of %d calls; the batches run one", calls),
  "after the other in one R session (and one C++ process below), so a per-call",
  "cost that grows with the number of calls made shows as rising numbers.", "",
  "## kitchen (TBB arena kept per thread count)", "",
  "`fwht()` of a 1024 x 2 matrix (about 1 us of transform) and `predict()` of an",
  "`rff()` map, d = 64, 1024 features, on 10 rows.", "",
  markdown_table(data.frame(
    batch = kitchen_rows$batch,
    `fwht, 2 threads` = three_digits(kitchen_rows$fwht_2t),
    `fwht, 1 thread` = three_digits(kitchen_rows$fwht_1t),
    `rff predict, 2 threads` = three_digits(kitchen_rows$rff_2t),
    `rff predict, 1 thread` = three_digits(kitchen_rows$rff_1t), check.names = FALSE)), "",
  "## TBB alone (bench/cpp/tbb_arena.cpp)", "",
  "A 2-thread `tbb::parallel_for` over two tasks of 1024 multiply-adds, with a new",
  "`tbb::task_arena` per call (what RcppParallel's `parallelFor` does) and with",
  "one arena kept, the two ways alternating batch by batch in one process.", "",
  markdown_table(data.frame(
    batch = arena$batch, `new arena per call` = three_digits(arena$per_call_arena_us),
    `arena kept` = three_digits(arena$kept_arena_us), check.names = FALSE))
), "threads.md")
