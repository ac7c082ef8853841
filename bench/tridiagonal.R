# Tridiagonal reduction of the centred Z'Z behind krr_fit(lambda = "gcv" /
# "cv"): kitchen's blocked reduction (tridiagonal.hpp) against LAPACK's
# dsytrd + dormtr (the previous path), under OpenBLAS (the default BLAS
# here) and the reference BLAS. Each timing is one reduction plus Q' b and
# Q u for one vector, as krr_fit() does for GCV; median of repeats.
# Run from the repository root: Rscript bench/tridiagonal.R
# Results go to bench/results/tridiagonal.md.

dims <- c(512, 1024, 2048, 4096)

# Child: one BLAS, all sizes, every method interleaved within a repeat.
if ("--child" %in% commandArgs(TRUE)) {
  source(file.path("bench", "common.R"))
  library(kitchen)
  methods <- list("kitchen, 2 threads" = list(FALSE, 2L, "avx512"),
                  "kitchen, 1 thread" = list(FALSE, 1L, "avx512"),
                  "kitchen, 2 threads, SIMD off" = list(FALSE, 2L, "scalar"),
                  "LAPACK dsytrd + dormtr" = list(TRUE, 2L, "avx512"))
  rows <- character()
  for (dim in dims) {
    set.seed(1)
    a <- matrix(rnorm(dim * dim), dim)
    g <- a + t(a) + diag(2 * sqrt(dim), dim)
    b <- matrix(rnorm(dim), dim, 1)
    repeats <- if (dim >= 4096) 3 else 5
    times <- replicate(repeats, vapply(methods, function(m) {
      system.time(kitchen:::tridiagonal_cpp(g, b, b, m[[1]], m[[2]], m[[3]]))[["elapsed"]]
    }, 0))
    rows <- c(rows, sprintf("| %d | %s | %.3f |", dim, names(methods), apply(times, 1, stats::median)))
  }
  cat(sprintf("machine: %s", machine_description()), sprintf("row: %s", rows), sep = "\n")
  quit(save = "no")
}

source(file.path("bench", "common.R"))
rscript <- file.path(R.home("bin"), "Rscript")
settings <- list("OpenBLAS (default libblas.so.3)" = "OPENBLAS_NUM_THREADS=2",
                 "reference BLAS" = "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3")
out <- lapply(settings, function(env) {
  system2(rscript, c("bench/tridiagonal.R", "--child"), stdout = TRUE, env = env)
})
section <- function(name) {
  lines <- out[[name]]
  c(sprintf("## %s", name), "", sub("^machine: ", "", grep("^machine: ", lines, value = TRUE)), "",
    "| D | method | seconds (median) |", "| --- | --- | --- |",
    sub("^row: ", "", grep("^row: ", lines, value = TRUE)), "")
}
write_result(c(
  "# Tridiagonal reduction benchmark", "",
  "G = A + A' + 2 sqrt(D) I (D x D), one reduction G = Q T Q' plus Q' b and Q u for",
  "one vector b; median of 5 repeats (3 at D = 4096), methods interleaved. LAPACK's",
  "dsytrd runs on the BLAS named in each section (OpenBLAS with 2 threads).", "",
  unlist(lapply(names(settings), section))
), "tridiagonal.md")
