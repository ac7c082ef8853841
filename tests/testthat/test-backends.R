# backend_settings(): the backends of one call, resolved at its entry. Its
# one-call C++ path must give what the R code gives, setting by setting,
# and leave to the R code whatever it must refuse.

with_settings <- function(options, env, code) {
  old <- options(options)
  old_env <- Sys.getenv(names(env), unset = NA)
  on.exit({
    options(old)
    for (name in names(old_env)) {
      if (is.na(old_env[[name]])) Sys.unsetenv(name) else do.call(Sys.setenv, as.list(old_env[name]))
    }
  })
  for (name in names(env)) {
    if (is.na(env[[name]])) Sys.unsetenv(name) else do.call(Sys.setenv, as.list(env[name]))
  }
  code
}

test_that("backend_settings() equals the R code's resolution under every valid setting", {
  r_path <- function(n_threads) kitchen:::resolve_backend(n_threads, rlang::current_env())
  grid <- expand.grid(threads = c("unset", "1", "3"), simd = c("unset", "scalar", "avx2", "auto"),
                      gemm = c("unset", "blas", "eigen", "auto"),
                      tridiagonal = c("unset", "lapack", "kitchen", "auto"),
                      stringsAsFactors = FALSE)
  value <- function(x) if (x == "unset") NULL else x
  for (i in seq_len(nrow(grid))) {
    s <- grid[i, ]
    options <- list(kitchen.threads = if (s$threads != "unset") as.numeric(s$threads),
                    kitchen.simd = value(s$simd), kitchen.gemm = value(s$gemm),
                    kitchen.tridiagonal = value(s$tridiagonal))
    with_settings(options, c(KITCHEN_NUM_THREADS = NA, KITCHEN_SIMD = NA), {
      for (n in list(NULL, 1, 2L, 1e10)) {
        quick <- kitchen:::backend_settings_cpp(n, RcppParallel::defaultNumThreads(),
                                                kitchen:::blas_is_optimised())
        expect_false(is.null(quick))
        expect_identical(quick, r_path(n))
        expect_identical(kitchen:::backend_settings(n), r_path(n))
      }
    })
  }
  # Both BLAS answers of "auto": an optimised BLAS takes the dense work
  # only when kitchen's SIMD kernels are off.
  with_settings(list(kitchen.simd = "scalar"), c(KITCHEN_NUM_THREADS = NA, KITCHEN_SIMD = NA), {
    optimised <- kitchen:::backend_settings_cpp(NULL, 2L, TRUE)
    expect_true(optimised$blas)
    expect_true(optimised$lapack)
  })
  # Environment variables, as R reads them.
  for (env in list(c(KITCHEN_NUM_THREADS = "1", KITCHEN_SIMD = "avx2"),
                   c(KITCHEN_NUM_THREADS = "", KITCHEN_SIMD = "auto"),
                   c(KITCHEN_NUM_THREADS = "007", KITCHEN_SIMD = "scalar"))) {
    with_settings(list(kitchen.threads = NULL, kitchen.simd = NULL), env, {
      expect_false(is.null(kitchen:::backend_settings_cpp(NULL, 2L, FALSE)))
      expect_identical(kitchen:::backend_settings(), r_path(NULL))
    })
  }
})

test_that("settings to refuse go to the R code, whose errors name them", {
  quick <- function() kitchen:::backend_settings_cpp(NULL, 2L, FALSE)
  refused <- list(
    list(list(kitchen.threads = 0), c(), "kitchen.threads"),
    list(list(kitchen.threads = "2"), c(), "kitchen.threads"),
    list(list(kitchen.simd = "sse9"), c(), "kitchen.simd"),
    list(list(kitchen.gemm = "mkl"), c(), "kitchen.gemm"),
    list(list(kitchen.tridiagonal = TRUE), c(), "kitchen.tridiagonal"),
    list(list(), c(KITCHEN_NUM_THREADS = "two"), "KITCHEN_NUM_THREADS"),
    list(list(), c(KITCHEN_NUM_THREADS = "0"), "KITCHEN_NUM_THREADS"),
    list(list(), c(KITCHEN_SIMD = "fast"), "KITCHEN_SIMD"))
  for (case in refused) {
    env <- c(KITCHEN_NUM_THREADS = NA, KITCHEN_SIMD = NA)
    env[names(case[[2]])] <- case[[2]]
    with_settings(c(list(kitchen.threads = NULL, kitchen.simd = NULL, kitchen.gemm = NULL,
                         kitchen.tridiagonal = NULL), case[[1]]), env, {
      expect_null(quick())
      expect_error(kitchen:::backend_settings(), case[[3]], fixed = TRUE,
                   class = "kitchen_error_argument")
    })
  }
  expect_null(kitchen:::backend_settings_cpp(0, 2L, FALSE))
  expect_error(kitchen:::backend_settings(NA), "n_threads", class = "kitchen_error_argument")
})
