# The backends every call resolves from options and the environment, in one
# place: threads (kitchen.threads / KITCHEN_NUM_THREADS), the SIMD level
# (kitchen.simd / KITCHEN_SIMD), R's BLAS or kitchen's kernels for dense
# products (kitchen.gemm) and the tridiagonal reduction (kitchen.tridiagonal).

#' Number of threads used by kitchen
#'
#' Every function of kitchen that works in parallel takes an `n_threads`
#' argument. When it is `NULL` the number is taken, in this order, from the
#' option `kitchen.threads`, the environment variable `KITCHEN_NUM_THREADS`,
#' and finally [RcppParallel::defaultNumThreads()]. A request for more threads
#' than [RcppParallel::defaultNumThreads()] allows is capped there. Results
#' never depend on the number of threads. [RcppParallel::setThreadOptions()]
#' and `RCPP_PARALLEL_NUM_THREADS` are not used: kitchen runs its own
#' parallel loops, so set its threads with the settings above.
#'
#' In parallel workers of your own (`future` plans, [parallel::mclapply()],
#' PSOCK clusters) the default is still every core, so two workers on two
#' cores run four threads: set `options(kitchen.threads = 1)` in each, or
#' pass `n_threads = 1` (kitchen's own chunk engine does so for its
#' workers). A process forked from one that has already run kitchen's
#' threads (`mclapply()`, `plan(multicore)`) runs on one thread whatever
#' the setting: the thread pool does not survive a fork. Results are the
#' same either way.
#'
#' Long calls stop soon after Ctrl-C, and the session stays usable. A time
#' limit of [setTimeLimit()] that runs out inside kitchen's compiled code
#' arrives the same way, as an interrupt rather than an error (as in any
#' package that checks for interrupts through Rcpp): a service that catches
#' time-outs needs `tryCatch(..., interrupt = )` beside `error =`.
#'
#' @param n_threads Number of threads: a whole number >= 1, or `NULL` for the
#'   default (see [kitchen_threads()]). Results do not depend on it.
#' @return The number of threads that would be used, an integer.
#' @export
#' @examples
#' kitchen_threads()
#' kitchen_threads(2)
#' old <- options(kitchen.threads = 1)
#' kitchen_threads()
#' options(old)
kitchen_threads <- function(n_threads = NULL) {
  resolve_threads(n_threads)
}

# The backends of one call, resolved once at its entry and passed down to
# everything it runs (a fit's passes, solves, searches and chunk tasks, in
# this process or in future workers): n_threads, the SIMD cap by name
# (resolve_simd()), whether dense products go to R's BLAS
# (products_on_blas()), whether the tridiagonal reduction goes to LAPACK
# (tridiagonal_on_lapack()), and whether R's BLAS is the reference one
# (then the fit's Z'y is summed by kitchen in the reference dgemm's order,
# on threads: src/fit_blocks.cpp). n_threads = NULL in a chunk engine's backend
# means "the worker's own default" (task_backend()).
backend_settings <- function(n_threads = NULL, call = NULL) {
  # In one C++ call when every setting is valid (6 us, against 23 us for
  # the R code on this project's AVX2 machine: as long as a one-row
  # prediction); else in R, where errors name the setting.
  backend_settings_cpp(n_threads, defaultNumThreads(), blas_is_optimised()) %||%
    resolve_backend(n_threads, call %||% rlang::caller_env())
}

# backend_settings() in R: each setting checked, errors naming it.
resolve_backend <- function(n_threads, call) {
  list(n_threads = resolve_threads(n_threads, call = call), simd = resolve_simd(call),
       blas = products_on_blas(call), lapack = tridiagonal_on_lapack(call),
       reference_blas = !blas_is_optimised())
}

# The thread pool refuses (with a warning on stderr) more workers than it
# was set up with, so requests are capped at that number.
resolve_threads <- function(n_threads, call = rlang::caller_env()) {
  available <- defaultNumThreads()
  arg <- "n_threads"
  if (is.null(n_threads)) {
    n_threads <- getOption("kitchen.threads")
    arg <- "options(kitchen.threads)"
  }
  if (is.null(n_threads)) {
    env <- env_value_cpp("KITCHEN_NUM_THREADS", "")  # Sys.getenv() costs a microsecond
    if (!nzchar(env)) return(available)
    n_threads <- suppressWarnings(as.numeric(env))
    if (is.na(n_threads)) {
      abort_arg("{.envvar KITCHEN_NUM_THREADS} must be a whole number >= 1, not {.val {env}}.",
                call = call)
    }
    arg <- "KITCHEN_NUM_THREADS"
  }
  if (is.character(n_threads)) {
    # check_count() would show "2", as if the number were refused
    abort_arg("{.arg {arg}} must be a number, not the string {.val {n_threads}}.", call = call)
  }
  check_count(n_threads, arg = arg, call = call)
  as.integer(min(n_threads, available))  # min() first: 1e10 is no integer
}

#' SIMD instruction sets used by kitchen
#'
#' The compiled kernels of kitchen are built with R's portable compiler flags
#' and pick faster instruction sets (AVX2, AVX-512) at run time when the CPU
#' has them. The option `kitchen.simd`, or else the environment variable
#' `KITCHEN_SIMD`, caps the level used: one of `"auto"` (default, the best the
#' CPU supports), `"avx512"`, `"avx2"` or `"scalar"` (the portable code).
#' A cap above what the CPU supports falls back to what it supports. Results
#' are identical on every level, except the dense products (`Z'Z` in
#' [krr_fit()], the projections of [rff()] features), whose AVX2 and AVX-512
#' kernels (identical to each other, with fused multiply-adds) round
#' differently from the portable code, at the level of 1e-15 relative; so
#' do [fastfood()] features (differences of about 1e-17 in a few entries
#' in a thousand), the normalisation of a [nystrom()] map (its inverse
#' square root of the landmarks' kernel matrix: about 1e-14 times that
#' matrix's condition number, 6e-11 in features seen on a 300-landmark map)
#' and the calibration of class probabilities (its Newton steps: 1e-9 seen);
#' and the tridiagonal reduction behind `lambda = "gcv"` / `"cv"` in
#' [krr_fit()] rounds differently on each level (backward stable on all).
#' These are rounding, far below any statistical difference, but searches
#' can amplify them: the bandwidths that `krr_fit(sigma = "ard")` learns
#' moved by 2e-4 (relative) between the portable code and AVX-512 (and with
#' `options(kitchen.gemm = "blas")`), and its predictions by 1e-3 of the
#' response's spread, as an optimiser's end point moves with its rounding.
#' AVX2 and AVX-512 give identical results. [fwht()] is identical on every
#' level.
#'
#' @return A list with `cpu`, the best level this CPU supports, and `used`,
#'   the level kitchen uses under the current option or environment variable.
#' @export
#' @examples
#' kitchen_simd()
#' old <- options(kitchen.simd = "scalar")
#' kitchen_simd()
#' options(old)
kitchen_simd <- function() {
  list(cpu = simd_detect_cpp(), used = simd_used())
}

# Lowest first: a level implies the ones before it.
simd_levels <- function() c("scalar", "avx2", "avx512")

# The level kitchen's kernels run at: the cap, or less if the CPU has less.
simd_used <- function(call = rlang::caller_env()) {
  levels <- simd_levels()
  levels[[min(match(simd_detect_cpp(), levels), match(resolve_simd(call), levels))]]
}

# The requested cap by name, as the C++ side takes it ("scalar", "avx2",
# "avx512"; the glue caps it at what the CPU supports).
resolve_simd <- function(call = rlang::caller_env()) {
  value <- getOption("kitchen.simd")
  if (is.null(value)) {
    value <- env_value_cpp("KITCHEN_SIMD", "auto")  # Sys.getenv() costs a microsecond
    if (identical(value, "auto")) return("avx512")  # fast path: nothing set
    arg <- "KITCHEN_SIMD"
  } else {
    arg <- "options(kitchen.simd)"
  }
  choices <- c(simd_levels(), "auto")
  if (!is.character(value) || length(value) != 1L || !value %in% choices) {
    abort_arg("{.arg {arg}} must be one of {.or {.val {choices}}}, not {shown_value(value)}.",
              call = call)
  }
  if (value == "auto") "avx512" else value
}

# A kitchen option naming one of `choices` (the first is the default), or
# an argument error naming the option.
option_choice <- function(name, choices, call = rlang::caller_env()) {
  choice <- getOption(name, choices[1])
  if (!is.character(choice) || length(choice) != 1L || !choice %in% choices) {
    abort_arg("{.arg options({name})} must be one of {.or {.val {choices}}}, not {shown_value(choice)}.",
              call = call)
  }
  choice
}

# The BLAS cannot change within a session: look once (extSoftVersion() is
# slow next to a one-row prediction).
blas_is_optimised <- function() {
  if (is.null(gemm_cache$optimised)) {
    blas <- tolower(extSoftVersion()[["BLAS"]])
    gemm_cache$optimised <- grepl("openblas|mkl|blis|accelerate|atlas|armpl|flexiblas", blas)
  }
  gemm_cache$optimised
}

gemm_cache <- new.env(parent = emptyenv())

# With an option at "auto", R's BLAS (or LAPACK on it) takes dense work
# only when it is an optimised one and kitchen's SIMD kernels are
# unavailable or switched off.
blas_beats_kitchen <- function(call = rlang::caller_env()) {
  blas_is_optimised() && simd_used(call) == "scalar"
}

# Dense products (Z'Z in krr_fit(), the projection X W of rff features),
# under the option `kitchen.gemm`: "blas" for R's BLAS, "eigen" for
# kitchen's own code (its SIMD kernels, or Eigen when SIMD is off), "auto"
# for blas_beats_kitchen(). kitchen's AVX2/AVX-512 kernels (gram_simd.hpp,
# gemm_simd.hpp) beat an optimised BLAS on this project's machines (Z'Z
# with AVX-512: 166 against OpenBLAS 0.3.21's 89 GFlop/s on 2 threads,
# bench/results/gram.md).
products_on_blas <- function(call = rlang::caller_env()) {
  switch(option_choice("kitchen.gemm", c("auto", "blas", "eigen"), call),
         blas = TRUE, eigen = FALSE, auto = blas_beats_kitchen(call))
}

# The option `kitchen.tridiagonal` ("auto", "kitchen" or "lapack"): which
# code reduces the centred Z'Z to tridiagonal form for lambda = "gcv" and
# "cv" (ridge_path.cpp), and nystrom()'s K_CC^(-1/2) (inverse_root.cpp;
# "lapack" there means R's eigen()). "kitchen" is kitchen's blocked reduction
# (tridiagonal.hpp: threads, AVX-512 / AVX2 kernels), "lapack" R's LAPACK
# dsytrd on R's BLAS. With "auto", kitchen's, except when SIMD is
# unavailable or switched off and R's BLAS is an optimised one: with
# AVX-512 it ran 1.2-1.8 times as fast as OpenBLAS 0.3.21's dsytrd at D =
# 512-4096 on 2 threads and 4.6-5.6 times as fast as the reference BLAS's,
# but without SIMD 1.7-2.4 times slower than OpenBLAS's
# (bench/results/tridiagonal.md).
tridiagonal_on_lapack <- function(call = rlang::caller_env()) {
  switch(option_choice("kitchen.tridiagonal", c("auto", "kitchen", "lapack"), call),
         lapack = TRUE, kitchen = FALSE, auto = blas_beats_kitchen(call))
}
